import { stripVTControlCharacters } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../agenttest/fake-model-server.js';
import { anthropicEventStream, streamIfAsked } from '../../agenttest/sse-wire.js';
import { openSessionStore } from '../../runstate/index.js';
import { ExitWith } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { captureIo } from '../test-io.js';
import type { CapturedIo } from '../test-io.js';
import { registerRun } from './run.js';
import type { RunCommandDeps } from './run.js';

const FIXTURE = resolve(import.meta.dirname, '../../../test/fixtures/fisk-app.mjs');

let dir: string;
let fake: FakeModelServer;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fisk-run-surface-'));
  fake = await startFakeModelServer();
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

function agent(extra = '', name = 'agent.yaml'): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    `identity: surface\napplication_path: ${FIXTURE}\nsystem_prompt: You run things.\nllm:\n  model: claude-fake-1\n${extra}`,
  );
  return path;
}

interface Terminal {
  readonly out?: boolean;
  readonly err?: boolean;
  readonly columns?: number;
}

/** A captured Io whose streams claim to be terminals as asked. */
function io(term: Terminal = {}, env: Record<string, string> = {}): CapturedIo {
  const c = captureIo({ PATH: process.env['PATH'], ...env }, dir);
  if (term.out === true) c.out.isTTY = true;
  if (term.err === true) {
    c.err.isTTY = true;
    if (term.columns !== undefined) Object.assign(c.err, { columns: term.columns });
  }
  return c;
}

/** No standard input at all (an empty pipe), so a run without a query uses the default prompt. */
function emptyStdin(): Readable {
  return Readable.from([]);
}

async function run(c: CapturedIo, args: string[], deps: RunCommandDeps = { stdin: emptyStdin() }): Promise<number> {
  const program = new Command('fisk').exitOverride();
  registerRun(program, c, { onInterrupt: () => () => undefined, ...deps });
  try {
    await program.parseAsync(['run', '--config', agent(), '--base-url', fake.url, '--api-key', 'k', ...args], { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof ExitWith) return err.exitCode;
    throw err;
  }
}

const streamedText = (text: string): ReturnType<typeof streamIfAsked> => streamIfAsked(anthropicText(text), anthropicEventStream);
/** Escape characters spelled out, so expectations can name them. */
const visible = (text: string): string => text.replaceAll('\u001b', '<ESC>');
const bodyOf = (i: number): Record<string, unknown> => fake.requests[i]?.body as Record<string, unknown>;

describe('fisk run streams the answer to a terminal', () => {
  it('writes the fragments to stdout once, set out as markdown, and does not print the answer again', async () => {
    fake.reply(streamedText('There is **one** stream.'));
    const c = io({ out: true });
    expect(await run(c, ['how', 'many'])).toBe(EXIT.ok);
    expect(bodyOf(0)['stream']).toBe(true);
    expect(stripVTControlCharacters(c.stdout())).toBe('There is one stream.\n');
  });

  it('writes the fragments raw with --no-color', async () => {
    fake.reply(streamedText('There is **one** stream.'));
    const c = io({ out: true });
    expect(await run(c, ['--no-color', 'how', 'many'])).toBe(EXIT.ok);
    expect(c.stdout()).toBe('There is **one** stream.\n');
  });

  it('gives a pipe the final answer once, unchanged, without asking the provider to stream', async () => {
    fake.reply(streamedText('There is **one** stream.'));
    const c = io();
    expect(await run(c, ['how', 'many'])).toBe(EXIT.ok);
    expect(bodyOf(0)['stream']).toBeUndefined();
    expect(c.stdout()).toBe('There is **one** stream.\n');
  });

  it('journals the same records streamed or not', async () => {
    const state = join(dir, 'runs');
    const script = (): void => {
      fake.reply(
        streamIfAsked(
          anthropicToolUse([{ id: 'toolu_1', name: 'stream_ls', input: {} }], { usage: { input_tokens: 9, output_tokens: 4 } }),
          anthropicEventStream,
        ),
        streamedText('done listing'),
      );
    };
    script();
    const tty = io({ out: true });
    expect(await run(tty, ['--checkpoint', '--name', 'streamed', '--state-dir', state, 'list'])).toBe(EXIT.ok);
    expect(tty.stdout()).toBe('done listing\n');
    script();
    const piped = io();
    expect(await run(piped, ['--checkpoint', '--name', 'plain', '--state-dir', state, 'list'])).toBe(EXIT.ok);
    expect(piped.stdout()).toBe('done listing\n');
    expect(fake.requests.map((r) => (r.body as Record<string, unknown>)['stream'])).toEqual([true, true, undefined, undefined]);

    const store = await openSessionStore({ backend: 'file', options: '{}' }, { env: {}, cwd: dir, stateDir: state });
    // what differs between any two runs: their ids and when they happened
    const varying = new Set(['run_id', 'created', 'ts', 'time', 'duration_ms', 'elapsed_ms']);
    const records = async (id: string): Promise<unknown[]> =>
      (await store.load(id)).map((r) => JSON.parse(JSON.stringify(r, (k, v: unknown) => (varying.has(k) ? undefined : v))) as unknown);
    const streamed = await records('streamed');
    const plain = await records('plain');
    expect(streamed.length).toBeGreaterThan(3);
    expect(streamed).toEqual(plain);
  });
});

describe('fisk run shows signs of life on a terminal', () => {
  it('draws a status line on stderr while the model works, and clears it', async () => {
    fake.reply(anthropicText('ok'));
    const c = io({ err: true });
    expect(await run(c, ['go'])).toBe(EXIT.ok);
    const err = visible(c.stderr());
    expect(err).toMatch(/\r<ESC>\[K[|/\\-] waiting for the model \(iteration 1, \d+s\)/);
    // cleared before the summary
    expect(err).toMatch(/waiting for the model[^\n]*\r<ESC>\[KRun summary:/);
    expect(c.stdout()).toBe('ok\n');
  });

  it.each([
    ['--no-tui', ['--no-tui'], {}],
    ['NO_TUI', [], { NO_TUI: '1' }],
  ] as const)('draws it on the line surface chosen with %s', async (_name, flags, env) => {
    fake.reply(anthropicText('ok'));
    const c = io({ err: true }, env);
    expect(await run(c, [...flags, 'go'])).toBe(EXIT.ok);
    expect(visible(c.stderr())).toMatch(/waiting for the model \(iteration 1, \d+s\)/);
  });

  it.each([
    ['a pipe', {}, {}, [], ''],
    ['harness.no_progress', { err: true }, {}, ['--config', ''], 'harness:\n  no_progress: true\n'],
  ] as const)('draws nothing with %s', async (_name, term, env, args, extra) => {
    fake.reply(anthropicText('ok'));
    const c = io(term, env);
    const path = agent(extra, 'custom.yaml');
    const flags = args[0] === '--config' ? ['--config', path] : [...args];
    expect(await run(c, [...flags, 'go'])).toBe(EXIT.ok);
    expect(c.stderr()).not.toContain('waiting for the model');
    expect(c.stderr()).not.toContain('\r');
  });
});

describe('fisk run reads a piped prompt', () => {
  it('uses standard input, read to its end, when no query is given', async () => {
    fake.reply(anthropicText('answered'));
    const c = io();
    expect(await run(c, [], { stdin: Readable.from(['what streams\n', 'are there?\n']) })).toBe(EXIT.ok);
    expect(JSON.stringify(bodyOf(0)['messages'])).toContain('what streams\\nare there?');
    expect(c.stdout()).toBe('answered\n');
  });

  it('falls back to the default prompt on an empty read, and a query wins over stdin', async () => {
    fake.reply(anthropicText('a'), anthropicText('b'));
    expect(await run(io(), [], { stdin: Readable.from(['  \n']) })).toBe(EXIT.ok);
    expect(JSON.stringify(bodyOf(0)['messages'])).toContain('assist the user');
    expect(await run(io(), ['the', 'query'], { stdin: Readable.from(['from stdin']) })).toBe(EXIT.ok);
    const second = JSON.stringify(bodyOf(1)['messages']);
    expect(second).toContain('the query');
    expect(second).not.toContain('from stdin');
  });
});

describe('fisk run on stderr', () => {
  const purge = (stream: string): void => {
    fake.reply(anthropicToolUse([{ id: 'toolu_1', name: 'stream_purge', input: { stream } }]), anthropicText('ok'));
  };

  it('colours lines at a terminal: calls dim, refusals red, warnings yellow', async () => {
    purge('orders');
    const c = io({ err: true }, { NO_TUI: '1' });
    expect(await run(c, ['purge'])).toBe(EXIT.ok);
    const err = visible(c.stderr());
    expect(err).toContain('<ESC>[2m-> stream_purge');
    expect(err).toMatch(/<ESC>\[31m<- refused: /);
    expect(err).toMatch(/<ESC>\[33mwarning: \d+ tools? needs? approval/);
  });

  it.each([
    ['NO_COLOR', { NO_COLOR: '1' }, []],
    ['--no-color', {}, ['--no-color']],
  ] as const)('is plain with %s', async (_name, env, flags) => {
    purge('orders');
    const c = io({ err: true }, { NO_TUI: '1', ...env });
    expect(await run(c, [...flags, 'purge'])).toBe(EXIT.ok);
    expect(c.stderr()).toContain('-> stream_purge');
    // no colour: the status line's erase is the only sequence written
    // eslint-disable-next-line no-control-regex
    expect(c.stderr()).not.toMatch(/\u001b\[[0-9;]*m/);
  });

  it('is plain in a pipe', async () => {
    purge('orders');
    const c = io();
    expect(await run(c, ['purge'])).toBe(EXIT.ok);
    expect(c.stderr()).toMatch(/\n<- refused: /);
    expect(c.stderr()).not.toContain('\u001b[');
  });

  it('cuts tool lines to the terminal width with a marker, never what the model or tool gets', async () => {
    const long = 's'.repeat(5000);
    purge(long);
    const c = io({ err: true, columns: 60 }, { NO_TUI: '1', NO_COLOR: '1' });
    expect(await run(c, ['purge'])).toBe(EXIT.ok);
    // the status line is erased in place before each line
    const lines = stripVTControlCharacters(c.stderr()).split(/[\r\n]/);
    const call = lines.find((l) => l.startsWith('-> stream_purge')) ?? '';
    expect(call.length).toBeLessThanOrEqual(60);
    expect(call).toMatch(/… \(\+\d+ chars\)$/);
    const refused = lines.find((l) => l.startsWith('<- refused')) ?? '';
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThanOrEqual(60);
    expect(JSON.stringify(bodyOf(1))).toContain(long);
  });

  it('cuts tool lines in a pipe at 2,000 characters', async () => {
    purge('p'.repeat(5000));
    const c = io();
    expect(await run(c, ['purge'])).toBe(EXIT.ok);
    const call =
      c
        .stderr()
        .split('\n')
        .find((l) => l.startsWith('-> stream_purge')) ?? '';
    expect(call.length).toBeLessThanOrEqual(2000);
    expect(call).toMatch(/… \(\+\d+ chars\)$/);
  });

  it('cuts the approval command line at 2,000 characters; the tool still gets the whole argument', async () => {
    const long = 'q'.repeat(5000);
    purge(long);
    const c = io({}, {});
    const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
    stdin.isTTY = true;
    const timer = setInterval(() => {
      if (c.stderr().includes('Choose [1]: ')) {
        clearInterval(timer);
        stdin.write('2\n');
      }
    }, 5);
    expect(await run(c, ['purge'], { stdin })).toBe(EXIT.ok);
    const err = c.stderr();
    const approval = err.split('\n').find((l) => l.startsWith('  ') && l.includes('qqqq')) ?? '';
    expect(approval.length).toBeGreaterThan(1000);
    expect(approval.length).toBeLessThanOrEqual(2002);
    expect(approval).toMatch(/… \(\+\d+ chars\)$/);
    expect(err).not.toContain(long);
    // the tool ran with the whole argument: it echoes its positionals
    const messages = bodyOf(1)['messages'] as { content: { type: string; content?: { text: string }[] }[] }[];
    const block = messages.at(-1)?.content.find((b) => b.type === 'tool_result');
    const envelope = JSON.parse(block?.content?.[0]?.text ?? '{}') as { output: string };
    expect((JSON.parse(envelope.output) as { positionals: string[] }).positionals).toEqual([long]);
  });
});

describe('fisk run announces what changes a run', () => {
  it('--model overrides llm.model and the summary names it', async () => {
    fake.reply(anthropicText('ok', { model: 'claude-other' }));
    const c = io();
    expect(await run(c, ['--model', 'claude-other', 'go'])).toBe(EXIT.ok);
    expect(bodyOf(0)['model']).toBe('claude-other');
    expect(c.stderr()).toMatch(/Run summary: model=claude-other /);
  });

  it.each([[[]], [['--checkpoint', '--name', 'pii']]] as const)('announces a PII redaction of the prompt on stderr (%j)', async (flags) => {
    fake.reply(anthropicText('ok'));
    const c = io();
    const path = agent('harness:\n  pii: { mode: redact }\n', 'custom.yaml');
    expect(
      await run(c, ['--config', path, '--state-dir', join(dir, 'runs'), ...flags, 'mail', 'jane.doe@example.com', 'the', 'report']),
    ).toBe(EXIT.ok);
    expect(c.stderr()).toMatch(/warning: PII \([^)]*\) found in the prompt/);
    expect(JSON.stringify(bodyOf(0))).not.toContain('jane.doe@example.com');
  });

  it('prints the configuration warnings at the start', async () => {
    fake.reply(anthropicText('ok'));
    const c = io();
    const path = join(dir, 'custom.yaml');
    writeFileSync(path, 'identity: surface\nsystem_prompt: You run things.\nllm:\n  model: claude-fake-1\ninclude:\n  tools: [x]\n');
    expect(await run(c, ['--config', path, 'go'])).toBe(EXIT.ok);
    expect(c.stderr()).toMatch(/^warning: include: /);
  });
});
