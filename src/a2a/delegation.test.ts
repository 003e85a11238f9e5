import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer } from '../agenttest/nats-server.js';
import type { NatsServer } from '../agenttest/nats-server.js';
import { encode } from './codec.js';
import { applyBudget, delegate, parseDurationMs } from './delegation.js';
import type { DelegationUpdate } from './delegation.js';
import { deriveSessionId, startPromptServer } from './prompt-server.js';
import type { DelegatedRun, DelegationHandler, RunEnding } from './prompt-server.js';
import { A2aError } from './errors.js';
import { InprocBus } from './inproc.js';
import { subjects } from './protocol.js';
import { createTransport } from './registry.js';
import { stampReply } from './stamp.js';
import { startToolService } from './tool-service.js';
import type { ServiceHandle, Transport } from './transport.js';
import { decode } from './codec.js';
import { eventually } from '../agenttest/eventually.js';

let server: NatsServer;
const conns: NatsConnection[] = [];
beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  for (const c of conns) await c.close();
  await server.stop();
});

type Pair = { serving: Transport; calling: Transport };
const bindings: Array<[string, () => Promise<Pair>]> = [
  [
    'inproc',
    () =>
      Promise.resolve(
        ((bus) => ({ serving: createTransport('inproc', { bus }), calling: createTransport('inproc', { bus }) }))(new InprocBus()),
      ),
  ],
  [
    'nats',
    async () => {
      const a = await connect({ servers: server.url });
      const b = await connect({ servers: server.url });
      conns.push(a, b);
      return { serving: createTransport('nats', { connection: a }), calling: createTransport('nats', { connection: b }) };
    },
  ],
];

function parked(run: DelegatedRun): Promise<void> {
  return new Promise((resolve) => {
    if (run.park.aborted) resolve();
    else run.park.addEventListener('abort', () => resolve(), { once: true });
  });
}

describe.each(bindings)('delegating a prompt: %s', (_name, make) => {
  let pair: Pair;
  let handler: DelegationHandler = () => Promise.resolve({ stop_reason: 'end_turn' });
  let service: ServiceHandle;
  let prompts: ReturnType<typeof startPromptServer>;
  const runs: DelegatedRun[] = [];

  beforeAll(async () => {
    pair = await make();
    prompts = startPromptServer({
      identity: 'worker-1',
      transport: pair.serving,
      handler: (run) => {
        runs.push(run);
        return handler(run);
      },
      workers: 1,
      questionWindowMs: 300,
      keepaliveMs: 100,
    });
    service = await pair.serving.serve({ name: 'worker-1', version: '0.0.0', description: 'x', slots: 1, endpoints: [prompts.endpoint] });
  });
  afterAll(async () => {
    await prompts.drain();
    await service.stop();
  });

  it('runs a tool call, a question and a cancel end to end, as one gap-free reply set', async () => {
    let answered: unknown;
    handler = async (run) => {
      await run.emit({ type: 'tool_call', id: 'c1', name: 'ls', input: { path: '/' } });
      await run.emit({ type: 'tool_result', call_id: 'c1', output: 'bin etc', exec: { command: 'ls /', exit_code: 0 } });
      await run.text('Listing ');
      const a = await run.ask({ kind: 'confirm', text: 'delete /tmp?' });
      answered = a;
      await run.emit({ type: 'text', text: `answered ${JSON.stringify(a)}` });
      await parked(run);
      return { stop_reason: 'suspended', usage: { input_tokens: 3, output_tokens: 4 } };
    };
    const updates: DelegationUpdate[] = [];
    const cancel = new AbortController();
    const end = await delegate(pair.calling, 'boss', 'worker-1', {
      prompt: 'tidy up',
      budget: { max_iterations: 3 },
      keepaliveMs: 100,
      onUpdate: (u) => {
        updates.push(u);
        if (u.protocol === 'io.choria.fisk-ai.v1.event' && u.block.type === 'text') cancel.abort();
      },
      onQuestion: async (q, keepalive) => {
        expect(q.text).toBe('delete /tmp?');
        // somebody is typing: the keepalive holds the question open past its 300 ms window
        for (let i = 0; i < 4; i++) {
          await keepalive();
          await new Promise((r) => setTimeout(r, 100));
        }
        return true;
      },
      signal: cancel.signal,
    });
    expect(answered).toEqual({ answered: true, value: true });
    expect(end.protocol).toBe('io.choria.fisk-ai.v1.result');
    expect(end.protocol === 'io.choria.fisk-ai.v1.result' ? end.stop_reason : '').toBe('suspended');
    const kinds = updates
      .filter((u) => u.protocol !== 'io.choria.fisk-ai.v1.keepalive')
      .map((u) => (u.protocol === 'io.choria.fisk-ai.v1.event' ? u.block.type : u.protocol.split('.').pop()));
    expect(kinds).toEqual(['tool_call', 'tool_result', 'text', 'question', 'text']);
    const seqs = [...updates.map((u) => u.sequence), end.sequence];
    expect(seqs).toEqual(seqs.map((_s, i) => i + 2));
    const run = runs.at(-1) as DelegatedRun;
    expect(run.sessionId).toBe(deriveSessionId('boss', run.request.request));
    expect(run.sessionId).not.toContain(run.request.request);
    expect(run.request.budget).toEqual({ max_iterations: 3 });
  });

  it('resolves an unanswered question as silence once its window closes', async () => {
    handler = async (run) => {
      const a = await run.ask({ kind: 'input', text: 'name?' });
      return { stop_reason: 'end_turn', text: a.answered ? 'answered' : 'silent' };
    };
    const end = await delegate(pair.calling, 'boss', 'worker-1', { prompt: 'ask me', keepaliveMs: 100 });
    expect(end.protocol === 'io.choria.fisk-ai.v1.result' ? end.text : end.error).toBe('silent');
  });

  it('refuses work beyond its workers with a negative ack and a terminal error', async () => {
    let release: () => void = () => undefined;
    handler = () => new Promise((resolve) => (release = () => resolve({ stop_reason: 'end_turn' })));
    const first = delegate(pair.calling, 'boss', 'worker-1', { prompt: 'one', keepaliveMs: 100 });
    await eventually(() => runs.at(-1)?.request.prompt === 'one', 'the first delegation to reach the worker', {
      observed: () => runs.map((r) => r.request.prompt),
    });
    const second = await delegate(pair.calling, 'boss', 'worker-1', { prompt: 'two', keepaliveMs: 100 });
    expect(second.protocol).toBe('io.choria.fisk-ai.v1.error');
    expect(second.protocol === 'io.choria.fisk-ai.v1.error' ? [second.code, second.sequence] : []).toEqual(['busy', 2]);
    release();
    expect((await first).protocol).toBe('io.choria.fisk-ai.v1.result');
  });

  it('continues a conversation with a follow-up under the same derived session', async () => {
    handler = () => Promise.resolve({ stop_reason: 'end_turn' });
    await delegate(pair.calling, 'boss', 'worker-1', { prompt: 'first', keepaliveMs: 100 });
    const opening = runs.at(-1) as DelegatedRun;
    await delegate(pair.calling, 'boss', 'worker-1', { prompt: 'again', conversation: opening.request.conversation, keepaliveMs: 100 });
    const follow = runs.at(-1) as DelegatedRun;
    expect(follow.request.protocol).toBe('io.choria.fisk-ai.v1.followup');
    expect(follow.sessionId).toBe(opening.sessionId);
  });

  it('turns a run that throws into a terminal error', async () => {
    handler = () => Promise.reject(new Error('disk full'));
    const end = await delegate(pair.calling, 'boss', 'worker-1', { prompt: 'x', keepaliveMs: 100 });
    expect(end.protocol === 'io.choria.fisk-ai.v1.error' ? end.error : '').toMatch(/disk full/);
  });

  it('still ends the reply set when the terminal message a handler built cannot be sent', async () => {
    // a field the error message does not carry: refused by the outgoing check
    handler = () => Promise.resolve({ error: 'model failed', usage: { input_tokens: 1, output_tokens: 2 } } as unknown as RunEnding);
    const end = await delegate(pair.calling, 'boss', 'worker-1', { prompt: 'x', keepaliveMs: 100 });
    expect(end).toMatchObject({ protocol: 'io.choria.fisk-ai.v1.error', code: 'crashed' });
    expect(end.protocol === 'io.choria.fisk-ai.v1.error' ? end.error : '').toMatch(/could not send how the run ended/);
  });

  it('detects a gap in a reply set', async () => {
    const svc = await pair.serving.serve({
      name: 'gappy',
      version: '0.0.0',
      description: 'x',
      slots: 1,
      endpoints: [
        {
          name: 'prompt',
          subject: subjects.prompt('gappy'),
          slotted: false,
          handle: async (incoming) => {
            const req = decode(incoming.data, ['io.choria.fisk-ai.v1.request']);
            incoming.respond(
              encode(stampReply('io.choria.fisk-ai.v1.ack', { accepted: true }, req, { self: { name: 'gappy' }, sequence: 1 })),
            );
            await pair.serving.publish(
              incoming.replyTo as string,
              encode(stampReply('io.choria.fisk-ai.v1.result', { stop_reason: 'end_turn' }, req, { self: { name: 'gappy' }, sequence: 3 })),
            );
          },
        },
      ],
    });
    await expect(delegate(pair.calling, 'boss', 'gappy', { prompt: 'x', keepaliveMs: 100 })).rejects.toMatchObject({ code: 'sequence' });
    await svc.stop();
  });

  it('reports an agent nobody serves as unavailable', async () => {
    const err = await delegate(pair.calling, 'boss', 'absent', { prompt: 'x', keepaliveMs: 100 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(A2aError);
    expect((err as A2aError).code).toBe('unavailable');
  });
});

describe('budgets', () => {
  it('may only lower the configured limits', () => {
    const limits = { maxTokens: 1000, maxIterations: 10, callTimeoutMs: 120_000 };
    expect(applyBudget(limits, { max_tokens: 50, max_iterations: 99, call_timeout: '1m30s' })).toEqual({
      maxTokens: 50,
      maxIterations: 10,
      callTimeoutMs: 90_000,
    });
    expect(applyBudget(limits, { max_tokens: 0, call_timeout: 'forever' })).toEqual(limits);
    expect(parseDurationMs('250ms')).toBe(250);
    expect(parseDurationMs('2h')).toBe(7_200_000);
    expect(parseDurationMs('5 minutes')).toBeUndefined();
  });
});

describe('prompts beside tools on one micro service', () => {
  it('serves discovery, tools and prompts under one identity and answers a delegation', async () => {
    const nc = await connect({ servers: server.url });
    conns.push(nc);
    const transport = createTransport('nats', { connection: nc });
    const prompts = startPromptServer({
      identity: 'combo',
      transport,
      handler: async (run) => {
        await run.emit({ type: 'text', text: `echo ${run.request.prompt}` });
        return { stop_reason: 'end_turn', text: 'done' };
      },
    });
    const svc = await startToolService(transport, {
      identity: 'combo',
      card: { name: 'combo', version: '1', tools: [] },
      tools: [],
      extraEndpoints: [prompts.endpoint],
    });
    const info = (await nc.request('$SRV.INFO.combo', undefined, { timeout: 2000 })).json<{
      endpoints: Array<{ name: string; subject: string }>;
    }>();
    expect(info.endpoints.map((e) => [e.name, e.subject])).toEqual([
      ['discovery', 'choria.fisk-ai.discovery.combo'],
      ['tool', 'choria.fisk-ai.tool.combo'],
      ['prompt', 'choria.fisk-ai.prompt.combo'],
    ]);
    const seen: string[] = [];
    const end = await delegate(transport, 'boss', 'combo', {
      prompt: 'hi',
      onUpdate: (u) => seen.push(u.protocol === 'io.choria.fisk-ai.v1.event' && u.block.type === 'text' ? u.block.text : u.protocol),
    });
    expect(end.protocol === 'io.choria.fisk-ai.v1.result' ? end.text : '').toBe('done');
    expect(seen).toEqual(['echo hi']);
    await prompts.drain();
    await svc.stop();
  });
});

describe('draining the prompt server', () => {
  it('lets the run in progress finish, refuses a new request as draining, and resolves once the run has ended', async () => {
    const bus = new InprocBus();
    const serving = createTransport('inproc', { bus });
    const calling = createTransport('inproc', { bus });
    let began!: () => void;
    const started = new Promise<void>((resolve) => (began = resolve));
    let release!: () => void;
    const prompts = startPromptServer({
      identity: 'drainer',
      transport: serving,
      workers: 2,
      handler: () => {
        began();
        return new Promise((resolve) => (release = () => resolve({ stop_reason: 'end_turn', text: 'finished' })));
      },
    });
    const svc = await serving.serve({ name: 'drainer', version: '0.0.0', description: 'x', slots: 2, endpoints: [prompts.endpoint] });
    try {
      const first = delegate(calling, 'boss', 'drainer', { prompt: 'one' });
      await started;
      let drained = false;
      const draining = prompts.drain().then(() => (drained = true));
      const refused = await delegate(calling, 'boss', 'drainer', { prompt: 'two' });
      expect(refused).toMatchObject({
        protocol: 'io.choria.fisk-ai.v1.error',
        code: 'draining',
        error: 'agent drainer is shutting down',
        sequence: 2,
      });
      expect(drained).toBe(false);
      release();
      expect(await first).toMatchObject({ protocol: 'io.choria.fisk-ai.v1.result', text: 'finished' });
      await draining;
      expect(drained).toBe(true);
    } finally {
      await svc.stop();
    }
  });

  it('refuses a request whose chain already holds it, before running anything', async () => {
    const bus = new InprocBus();
    const serving = createTransport('inproc', { bus });
    let ran = false;
    const prompts = startPromptServer({
      identity: 'looper',
      transport: serving,
      handler: () => {
        ran = true;
        return Promise.resolve({ stop_reason: 'end_turn' });
      },
    });
    const svc = await serving.serve({ name: 'looper', version: '0.0.0', description: 'x', slots: 1, endpoints: [prompts.endpoint] });
    try {
      const end = await delegate(createTransport('inproc', { bus }), 'boss', 'looper', { prompt: 'x', hops: ['looper', 'boss'] });
      expect(end).toMatchObject({ protocol: 'io.choria.fisk-ai.v1.error', code: 'cycle' });
      expect(ran).toBe(false);
    } finally {
      await prompts.drain();
      await svc.stop();
    }
  });
});
