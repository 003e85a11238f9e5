import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { decode, encode, isDateTime, validateOutgoing } from './codec.js';
import { A2aError } from './errors.js';
import { MAX_MESSAGE_BYTES, PROTOCOLS } from './protocol.js';
import type { ProtocolId } from './protocol.js';
import { allSchemas, HEADER_FIELDS, knownKeys } from './schemas.js';
import { stampReply, stampRequest } from './stamp.js';
import type { MessageMap } from './types.js';
import { compileValidators, loadGeneratedValidators, schemaFingerprint } from './validators.js';
import type { Formats } from './validators.js';
import { validatorModuleSource } from './validators-source.js';

const H = {
  id: '2ZxY1',
  request: '2ZxY1',
  conversation: '2ZxY1',
  parent: 'p1',
  sequence: 0,
  time: '2026-01-02T03:04:05.123Z',
  sender: { name: 'alpha', instance: 'one' },
  recipient: { name: 'beta', instance: 'two' },
  must_understand: false,
} as const;

/**
 * One message per protocol with every optional field set. `Required<...>` makes the compiler
 * insist on every field the TypeScript type declares; the test below insists the schema declares
 * exactly the same keys, so the two cannot drift apart in either direction.
 */
const FULL: { [P in ProtocolId]: Required<MessageMap[P]> } = {
  'io.choria.fisk-ai.v1.request': {
    ...H,
    protocol: 'io.choria.fisk-ai.v1.request',
    prompt: 'do it',
    context: 'ctx',
    tool_hints: ['a'],
    budget: { max_tokens: 10, max_iterations: 2, call_timeout: '30s' },
    stream: true,
  },
  'io.choria.fisk-ai.v1.followup': {
    ...H,
    protocol: 'io.choria.fisk-ai.v1.followup',
    prompt: 'more',
    context: 'c',
    tool_hints: [],
    budget: {},
    stream: false,
  },
  'io.choria.fisk-ai.v1.event': {
    ...H,
    protocol: 'io.choria.fisk-ai.v1.event',
    block: { type: 'tool_result', call_id: 'c1', is_error: false, output: 'ok', exec: { command: 'x', exit_code: 3, truncated: true } },
  },
  'io.choria.fisk-ai.v1.result': {
    ...H,
    protocol: 'io.choria.fisk-ai.v1.result',
    stop_reason: 'end_turn',
    text: 'done',
    usage: { input_tokens: 1, output_tokens: 2 },
  },
  'io.choria.fisk-ai.v1.error': { ...H, protocol: 'io.choria.fisk-ai.v1.error', error: 'boom', stop_reason: 'error', code: 'x' },
  'io.choria.fisk-ai.v1.cancel': { ...H, protocol: 'io.choria.fisk-ai.v1.cancel', reason: 'enough' },
  'io.choria.fisk-ai.v1.ack': { ...H, protocol: 'io.choria.fisk-ai.v1.ack', accepted: true, reason: 'ok' },
  'io.choria.fisk-ai.v1.tool.request': { ...H, protocol: 'io.choria.fisk-ai.v1.tool.request', name: 'ls', input: { path: '/' } },
  'io.choria.fisk-ai.v1.tool.reply': {
    ...H,
    protocol: 'io.choria.fisk-ai.v1.tool.reply',
    is_error: false,
    output: 'x',
    exec: { command: 'ls /', exit_code: 0, truncated: false },
  },
  'io.choria.fisk-ai.v1.discovery.request': { ...H, protocol: 'io.choria.fisk-ai.v1.discovery.request' },
  'io.choria.fisk-ai.v1.discovery.reply': {
    ...H,
    protocol: 'io.choria.fisk-ai.v1.discovery.reply',
    name: 'beta',
    version: '1.0',
    description: 'd',
    protocols: ['io.choria.fisk-ai.v1'],
    tools: [{ name: 't', description: 'd', input_schema: { type: 'object' } }],
  },
  'io.choria.fisk-ai.v1.question': {
    ...H,
    protocol: 'io.choria.fisk-ai.v1.question',
    question: 'q1',
    kind: 'select',
    text: 'which?',
    options: ['a', 'b'],
    tool: 'reboot',
    trigger: 'ai:confirm',
  },
  'io.choria.fisk-ai.v1.answer': { ...H, protocol: 'io.choria.fisk-ai.v1.answer', question: 'q1', value: 'decline', reason: 'use staging' },
  'io.choria.fisk-ai.v1.keepalive': { ...H, protocol: 'io.choria.fisk-ai.v1.keepalive', question: 'q1' },
  'io.choria.fisk-ai.v1.warning': { ...H, protocol: 'io.choria.fisk-ai.v1.warning', text: 'careful' },
  'io.choria.fisk-ai.v1.text': { ...H, protocol: 'io.choria.fisk-ai.v1.text', text: 'frag' },
  'io.choria.fisk-ai.v1.run.start': {
    ...H,
    protocol: 'io.choria.fisk-ai.v1.run.start',
    start: { prompt: 'p', resume: 'r1', force: true, checkpoint: true, name: 'n1', questions: 'ask', interactive: true, stream: true },
  },
  'io.choria.fisk-ai.v1.run.started': {
    ...H,
    protocol: 'io.choria.fisk-ai.v1.run.started',
    started: { kind: 'resumed', runId: 'r1', changes: [], nextIteration: 2, replay: [{ type: 'text', text: 'hi', final: false }] },
  },
  'io.choria.fisk-ai.v1.run.event': {
    ...H,
    protocol: 'io.choria.fisk-ai.v1.run.event',
    event: { type: 'tool_call', id: 'c1', name: 'ls', input: {}, presentation: 'command' },
  },
  'io.choria.fisk-ai.v1.run.ask': {
    ...H,
    protocol: 'io.choria.fisk-ai.v1.run.ask',
    question: 'q1',
    call: { kind: 'approval', request: { tool: 'sh', commandLine: 'ls', trigger: 'exec' } },
  },
  'io.choria.fisk-ai.v1.run.abort': { ...H, protocol: 'io.choria.fisk-ai.v1.run.abort', reason: 'now' },
  'io.choria.fisk-ai.v1.run.outcome': {
    ...H,
    protocol: 'io.choria.fisk-ai.v1.run.outcome',
    outcome: { status: 'completed', answer: 'a' },
    failure: { code: 'resume', category: 'runtime', message: 'no such run' },
  },
};

const bytes = (v: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(v));
const code = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return err instanceof A2aError ? err.code : `other: ${String(err)}`;
  }
  return 'none';
};
const without = (o: Record<string, unknown>, key: string): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));

describe('a2a schemas', () => {
  it('every schema is a valid 2020-12 schema in both forms', () => {
    for (const mode of ['strict', 'lenient'] as const) {
      const ajv = new Ajv2020({ strict: true, strictTypes: false });
      ajv.addFormat('date-time', true);
      for (const s of allSchemas(mode)) expect(ajv.validateSchema(s), JSON.stringify(ajv.errors)).toBe(true);
    }
  });

  it.each(PROTOCOLS)('%s: the TypeScript type and the schema name the same keys', (p) => {
    expect(Object.keys(FULL[p]).sort()).toEqual([...knownKeys(p)].sort());
    expect(HEADER_FIELDS.every((f) => f in FULL[p])).toBe(true);
  });

  it.each(PROTOCOLS)('%s: a full message is valid outgoing and round-trips incoming', (p) => {
    expect(() => validateOutgoing(FULL[p])).not.toThrow();
    expect(decode(encode(FULL[p]), [p])).toEqual(FULL[p]);
  });

  it.each(PROTOCOLS)('%s: outgoing refuses an unknown key; incoming drops it', (p) => {
    const extra = { ...FULL[p], surprise: 1 } as unknown as MessageMap[typeof p];
    expect(code(() => validateOutgoing(extra))).toBe('invalid');
    expect(decode(bytes(extra), [p])).toEqual(FULL[p]);
  });

  it.each(PROTOCOLS)('%s: a missing header field is invalid both ways', (p) => {
    for (const field of ['id', 'request', 'conversation', 'sequence', 'time', 'sender']) {
      const broken = without(FULL[p], field);
      expect(
        code(() => decode(bytes(broken))),
        field,
      ).toBe('invalid');
    }
  });

  it.each(PROTOCOLS)('%s: a body relabelled as another protocol is refused', (p) => {
    const other = PROTOCOLS.find((q) => q !== p && Object.keys(FULL[q]).some((k) => !knownKeys(p).has(k))) as ProtocolId;
    const relabelled = { ...FULL[other], protocol: p };
    expect(code(() => decode(bytes(relabelled)))).toBe('invalid');
  });

  const invalid: Array<[string, Record<string, unknown>]> = [
    ['request without prompt', without(FULL['io.choria.fisk-ai.v1.request'], 'prompt')],
    ['negative budget', { ...FULL['io.choria.fisk-ai.v1.request'], budget: { max_tokens: -1 } }],
    ['sender with a dot', { ...FULL['io.choria.fisk-ai.v1.tool.request'], sender: { name: 'a.b' } }],
    ['recipient instance with a wildcard', { ...FULL['io.choria.fisk-ai.v1.tool.request'], recipient: { name: 'a', instance: '*' } }],
    ['negative sequence', { ...FULL['io.choria.fisk-ai.v1.ack'], sequence: -1 }],
    ['time not a date', { ...FULL['io.choria.fisk-ai.v1.ack'], time: 'yesterday' }],
    ['tool input an array', { ...FULL['io.choria.fisk-ai.v1.tool.request'], input: [1] }],
    ['tool input null', { ...FULL['io.choria.fisk-ai.v1.tool.request'], input: null }],
    ['tool request without name', without(FULL['io.choria.fisk-ai.v1.tool.request'], 'name')],
    ['exit code a string', { ...FULL['io.choria.fisk-ai.v1.tool.reply'], exec: { exit_code: '1' } }],
    ['card without version', without(FULL['io.choria.fisk-ai.v1.discovery.reply'], 'version')],
    ['descriptor without name', { ...FULL['io.choria.fisk-ai.v1.discovery.reply'], tools: [{ description: 'x' }] }],
    ['ack without accepted', without(FULL['io.choria.fisk-ai.v1.ack'], 'accepted')],
    ['text block without text', { ...FULL['io.choria.fisk-ai.v1.event'], block: { type: 'text' } }],
    ['block without type', { ...FULL['io.choria.fisk-ai.v1.event'], block: { text: 'x' } }],
    ['question id with a dot', { ...FULL['io.choria.fisk-ai.v1.question'], question: 'a.b' }],
    ['question of an unknown kind', { ...FULL['io.choria.fisk-ai.v1.question'], kind: 'poll' }],
    ['answer value an object', { ...FULL['io.choria.fisk-ai.v1.answer'], value: { a: 1 } }],
    ['run start without a question mode', { ...FULL['io.choria.fisk-ai.v1.run.start'], start: { prompt: 'p' } }],
    ['run start of an unknown question mode', { ...FULL['io.choria.fisk-ai.v1.run.start'], start: { questions: 'later' } }],
    ['run start naming an empty run', { ...FULL['io.choria.fisk-ai.v1.run.start'], start: { questions: 'none', name: '' } }],
    ['run started of an unknown kind', { ...FULL['io.choria.fisk-ai.v1.run.started'], started: { kind: 'forked' } }],
    ['run event without a type', { ...FULL['io.choria.fisk-ai.v1.run.event'], event: { text: 'x' } }],
    ['run ask of an unknown kind', { ...FULL['io.choria.fisk-ai.v1.run.ask'], call: { kind: 'poll' } }],
    ['run ask with a dotted question id', { ...FULL['io.choria.fisk-ai.v1.run.ask'], question: 'a.b' }],
    ['run outcome without a status', { ...FULL['io.choria.fisk-ai.v1.run.outcome'], outcome: { answer: 'a' } }],
    ['run failure without a category', { ...FULL['io.choria.fisk-ai.v1.run.outcome'], failure: { code: 'x', message: 'y' } }],
    ['usage negative', { ...FULL['io.choria.fisk-ai.v1.result'], usage: { input_tokens: -1, output_tokens: 0 } }],
    ['question naming a tool but not its trigger', without(FULL['io.choria.fisk-ai.v1.question'], 'trigger')],
    ['question naming a trigger but not its tool', without(FULL['io.choria.fisk-ai.v1.question'], 'tool')],
    ['question naming an empty tool', { ...FULL['io.choria.fisk-ai.v1.question'], tool: '' }],
    [
      'tool result refused for no reason',
      { ...FULL['io.choria.fisk-ai.v1.event'], block: { type: 'tool_result', call_id: 'c1', refused: '' } },
    ],
    [
      'tool result refused with a number',
      { ...FULL['io.choria.fisk-ai.v1.event'], block: { type: 'tool_result', call_id: 'c1', refused: 3 } },
    ],
  ];
  it.each(invalid)('invalid corpus: %s', (_name, msg) => {
    expect(code(() => decode(bytes(msg)))).toBe('invalid');
    expect(code(() => validateOutgoing(msg as unknown as MessageMap[ProtocolId]))).toBe('invalid');
  });

  it('refuses an unknown protocol id, a non-object, broken JSON and deep nesting', () => {
    expect(code(() => decode(bytes({ ...FULL['io.choria.fisk-ai.v1.ack'], protocol: 'io.choria.fisk-ai.v1.ack2' })))).toBe(
      'unknown_protocol',
    );
    expect(code(() => decode(bytes([1, 2])))).toBe('malformed');
    expect(code(() => decode(new TextEncoder().encode('{"protocol":')))).toBe('malformed');
    let deep: unknown = {};
    for (let i = 0; i < 100; i++) deep = { d: deep };
    expect(code(() => decode(bytes({ ...FULL['io.choria.fisk-ai.v1.tool.request'], input: deep })))).toBe('malformed');
  });

  it('refuses a body over the cap before decoding it', () => {
    const big = new Uint8Array(MAX_MESSAGE_BYTES + 1).fill(0x20);
    expect(code(() => decode(big))).toBe('oversize');
    const huge = { ...FULL['io.choria.fisk-ai.v1.tool.reply'], output: 'x'.repeat(MAX_MESSAGE_BYTES) };
    expect(code(() => encode(huge))).toBe('oversize');
  });

  it('checks the expected protocol on arrival', () => {
    expect(code(() => decode(encode(FULL['io.choria.fisk-ai.v1.discovery.request']), ['io.choria.fisk-ai.v1.tool.request']))).toBe(
      'unexpected_protocol',
    );
  });

  it('carries an unknown stop reason and an unknown block kind incoming, refuses them outgoing', () => {
    const odd = { ...FULL['io.choria.fisk-ai.v1.result'], stop_reason: 'pondering' };
    expect(decode(bytes(odd), ['io.choria.fisk-ai.v1.result']).stop_reason).toBe('pondering');
    expect(code(() => validateOutgoing(odd))).toBe('invalid');
    const ev = { ...FULL['io.choria.fisk-ai.v1.event'], block: { type: 'diagram', svg: '<svg/>' } };
    const got = decode(bytes(ev), ['io.choria.fisk-ai.v1.event']);
    expect(got.block).toEqual({ type: 'opaque', kind: 'diagram', raw: { type: 'diagram', svg: '<svg/>' } });
    expect(code(() => validateOutgoing(ev as unknown as MessageMap['io.choria.fisk-ai.v1.event']))).toBe('invalid');
  });

  it('carries a refusal a tool result names; an unknown reason incoming as sent, refused outgoing', () => {
    const denied = {
      ...FULL['io.choria.fisk-ai.v1.event'],
      block: { type: 'tool_result', call_id: 'c1', output: 'no', refused: 'denied' },
    } as const;
    expect(() => validateOutgoing(denied)).not.toThrow();
    expect(decode(encode(denied), ['io.choria.fisk-ai.v1.event']).block).toEqual(denied.block);
    const odd = { ...denied, block: { ...denied.block, refused: 'vetoed' } };
    expect(decode(bytes(odd), ['io.choria.fisk-ai.v1.event']).block).toEqual(odd.block);
    expect(code(() => validateOutgoing(odd))).toBe('invalid');
  });

  it('a question without the approval fields is still valid both ways, as an older agent sends it', () => {
    const plain = without(
      without(FULL['io.choria.fisk-ai.v1.question'], 'tool'),
      'trigger',
    ) as unknown as MessageMap['io.choria.fisk-ai.v1.question'];
    expect(() => validateOutgoing(plain)).not.toThrow();
    expect(decode(encode(plain), ['io.choria.fisk-ai.v1.question'])).toEqual(plain);
  });

  describe('the generated validators', () => {
    const formats: Formats = { 'date-time': { type: 'string', validate: isDateTime } };
    const dir = new URL(`../../.tmp/a2a-validators-${process.pid}/`, import.meta.url);
    mkdirSync(dir, { recursive: true });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    // generating compiles every schema in both forms: once for the whole block
    let source: string | undefined;
    const generatedSource = (): string => (source ??= validatorModuleSource());
    const write = (name: string, text: string): URL => {
      const file = new URL(name, dir);
      writeFileSync(file, text);
      return file;
    };

    /** Every message the corpora above use, valid and invalid, plus a few that only the lenient form keeps. */
    const corpus: Array<Record<string, unknown>> = [
      ...PROTOCOLS.map((p) => FULL[p] as Record<string, unknown>),
      ...PROTOCOLS.map((p) => ({ ...FULL[p], surprise: 1 })),
      ...PROTOCOLS.flatMap((p) => ['id', 'request', 'conversation', 'sequence', 'time', 'sender'].map((f) => without(FULL[p], f))),
      ...PROTOCOLS.map((p, i) => ({ ...FULL[PROTOCOLS[(i + 1) % PROTOCOLS.length] as ProtocolId], protocol: p })),
      ...invalid.map(([, msg]) => msg),
      { ...FULL['io.choria.fisk-ai.v1.result'], stop_reason: 'pondering' },
      { ...FULL['io.choria.fisk-ai.v1.event'], block: { type: 'diagram', svg: '<svg/>' } },
      { ...FULL['io.choria.fisk-ai.v1.event'], block: { type: 'text', text: 'hi', colour: 'red' } },
      { ...FULL['io.choria.fisk-ai.v1.event'], block: { type: 'tool_result', call_id: 'c1', refused: 'vetoed' } },
      { ...FULL['io.choria.fisk-ai.v1.ack'], time: '2026-02-29T00:00:00Z' },
    ];

    it('agree with the schemas compiled by ajv on every corpus message, in both forms and under every protocol id', () => {
      const generated = loadGeneratedValidators(write('current.cjs', generatedSource()), formats);
      expect(generated).toBeDefined();
      let checked = 0;
      let refused = 0;
      const mismatches: string[] = [];
      const first = (errors: ValidateFunction['errors']): string =>
        JSON.stringify(errors?.slice(0, 1).map((e) => [e.keyword, e.instancePath, e.message]));
      for (const mode of ['strict', 'lenient'] as const) {
        const compiled = compileValidators(mode, formats);
        for (const protocol of PROTOCOLS) {
          const want = compiled.get(protocol);
          const got = generated?.[mode].get(protocol);
          if (want === undefined || got === undefined) throw new Error(`no ${mode} validator for ${protocol}`);
          for (const msg of corpus) {
            const forCompiled = structuredClone(msg);
            const forGenerated = structuredClone(msg);
            const verdict = want(forCompiled);
            // the verdict, what the lenient form removed, and the first error must all be the same
            const expected = JSON.stringify([verdict, forCompiled, first(want.errors)]);
            const actual = JSON.stringify([got(forGenerated), forGenerated, first(got.errors)]);
            if (actual !== expected) mismatches.push(`${mode} ${protocol} ${JSON.stringify(msg)}: ${actual} != ${expected}`);
            checked++;
            if (!verdict) refused++;
          }
        }
      }
      expect(mismatches).toEqual([]);
      // the comparison covers both verdicts, not only the easy one
      expect(refused).toBeGreaterThan(checked / 2);
      expect(refused).toBeLessThan(checked);
    });

    it('are not used when the file is missing or was made from other schemas', () => {
      expect(loadGeneratedValidators(new URL('missing.cjs', dir), formats)).toBeUndefined();
      const stale = generatedSource().replace(schemaFingerprint(), 'f'.repeat(64));
      expect(loadGeneratedValidators(write('stale.cjs', stale), formats)).toBeUndefined();
    });
  });

  it('drops unknown keys inside known nested objects', () => {
    const ev = { ...FULL['io.choria.fisk-ai.v1.event'], block: { type: 'text', text: 'hi', colour: 'red' } };
    expect(decode(bytes(ev), ['io.choria.fisk-ai.v1.event']).block).toEqual({ type: 'text', text: 'hi' });
  });
});

describe('stamping', () => {
  it('a request is its own request and conversation; a reply echoes them and swaps the parties', () => {
    const req = stampRequest('io.choria.fisk-ai.v1.tool.request', { name: 'ls' }, { sender: { name: 'a' }, recipient: { name: 'b' } });
    expect(req.request).toBe(req.id);
    expect(req.conversation).toBe(req.id);
    expect(req.sequence).toBe(0);
    expect(req.id).toMatch(/^[0-9A-Za-z]{27}$/);
    const rep = stampReply('io.choria.fisk-ai.v1.tool.reply', { output: 'x' }, req, { self: { name: 'ignored' } });
    expect(rep.id).not.toBe(req.id);
    expect([rep.request, rep.conversation]).toEqual([req.id, req.id]);
    expect(rep.sender).toEqual({ name: 'b' });
    expect(rep.recipient).toEqual({ name: 'a' });
    expect(() => validateOutgoing(rep)).not.toThrow();
  });

  it('a reply to a request naming no recipient is sent as the server itself; a follow-up keeps its conversation', () => {
    const req = stampRequest('io.choria.fisk-ai.v1.discovery.request', {}, { sender: { name: 'a' } });
    expect(stampReply('io.choria.fisk-ai.v1.discovery.reply', { name: 's', version: '1' }, req, { self: { name: 's' } }).sender).toEqual({
      name: 's',
    });
    const fu = stampRequest('io.choria.fisk-ai.v1.followup', { prompt: 'x' }, { sender: { name: 'a' }, conversation: 'C1' });
    expect(fu.conversation).toBe('C1');
    expect(fu.request).toBe(fu.id);
  });
});

describe('the date-time format', () => {
  it('takes RFC 3339 instants and refuses impossible fields', () => {
    for (const ok of [
      '2026-01-02T03:04:05Z',
      '2026-01-02t03:04:05.123456789z',
      '2024-02-29T00:00:00+05:30',
      '2026-12-31T23:59:59-23:59',
      '2000-02-29T12:00:00Z',
      '0001-01-01T00:00:00Z',
    ]) {
      expect([ok, isDateTime(ok)]).toEqual([ok, true]);
    }
    for (const bad of [
      '2026-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-00-10T00:00:00Z',
      '2026-01-00T00:00:00Z',
      '2026-01-02T24:00:00Z',
      '2026-01-02T23:60:00Z',
      '2026-01-02T23:59:60Z',
      '2026-01-02T03:04:05+24:00',
      '2026-01-02T03:04:05+23:60',
      '2026-01-02 03:04:05Z',
      '2026-01-02T03:04:05',
      'yesterday',
    ]) {
      expect([bad, isDateTime(bad)]).toEqual([bad, false]);
    }
  });
});
