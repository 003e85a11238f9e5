import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { anthropicText, anthropicToolUse } from '../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../agenttest/fake-model-server.js';
import { HeldTool } from '../agenttest/held-tool.js';
import type { FakeModelServer, ReceivedRequest } from '../agenttest/fake-model-server.js';
import { parseConfigForMode } from '../config/index.js';
import { openRuntime } from '../host/index.js';
import type { JournaledRuntime } from '../host/index.js';
import { EXIT, exitFor } from '../errors/index.js';
import { loadRun } from '../runstate/index.js';
import type { Channel, PauseListener, Work, WorkResult } from './channel.js';
import { HealthServer } from './health.js';
import { startServer } from './server.js';
import type { ServerNotice } from './server.js';

/** A channel fed by the test: `next` waits for pushed work, the hold, or a close. */
class FakeChannel implements Channel {
  readonly queue: Work[] = [];
  closes = 0;
  #wake: (() => void) | undefined;
  #closed = false;
  failWith: Error | undefined;

  constructor(
    readonly name: string,
    readonly workers: number,
  ) {}

  push(work: Work): void {
    this.queue.push(work);
    this.#wake?.();
  }

  fail(err: Error): void {
    this.failWith = err;
    this.#wake?.();
  }

  async next(signal: AbortSignal): Promise<Work | undefined> {
    for (;;) {
      if (this.failWith !== undefined) throw this.failWith;
      if (this.#closed || signal.aborted) return undefined;
      const w = this.queue.shift();
      if (w !== undefined) return w;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }
  }

  /** Work labels that had ended when the server asked whether the channel had settled. */
  settledAfter: string[] | undefined;
  ended: string[] = [];

  settled(): Promise<void> {
    this.settledAfter = [...this.ended];
    return Promise.resolve();
  }

  pause: PauseListener | undefined;

  watchPause(listener: PauseListener): void {
    this.pause = listener;
  }

  close(): Promise<void> {
    this.closes++;
    this.#closed = true;
    this.#wake?.();
    return Promise.resolve();
  }
}

interface Tracked {
  readonly work: Work;
  readonly results: WorkResult[];
  started: number;
  readonly ended: Promise<WorkResult>;
}

function work(label: string, extra: Partial<Pick<Work, 'signal' | 'park'>> = {}): Tracked {
  let end!: (r: WorkResult) => void;
  const ended = new Promise<WorkResult>((r) => (end = r));
  const t: Tracked = {
    results: [],
    started: 0,
    ended,
    work: {
      label,
      input: { prompt: `do ${label}` },
      ...extra,
      runContext: () => {
        t.started++;
      },
      done: (r) => {
        t.results.push(r);
        end(r);
        return Promise.resolve();
      },
    },
  };
  return t;
}

/** Calls the tool first, then answers once a tool result is in the conversation. */
function toolThenText(req: ReceivedRequest) {
  const body = req.body as { messages: { content: unknown }[] };
  const last = body.messages[body.messages.length - 1];
  const answered = Array.isArray(last?.content) && (last.content as { type: string }[]).some((b) => b.type === 'tool_result');
  return answered ? anthropicText('done') : anthropicToolUse([{ id: `t${body.messages.length}`, name: 'hold', input: {} }]);
}

let fake: FakeModelServer;
let dir: string;
let runtime: JournaledRuntime;
let gate: HeldTool;

beforeAll(async () => {
  fake = await startFakeModelServer({ fallback: toolThenText });
});
afterAll(async () => {
  await fake.close();
});

async function open(): Promise<JournaledRuntime> {
  dir = mkdtempSync(join(tmpdir(), 'fisk-server-'));
  gate = new HeldTool({ output: '{"held":true}' });
  const config = parseConfigForMode(
    {
      text: `identity: served\nsystem_prompt: You test.\nllm:\n  model: claude-sonnet-4-6\n  no_tool_search: true\nharness:\n  sessions: {backend: file, options: {directory: ${JSON.stringify(join(dir, 'runs'))}}}\n`,
    },
    'run',
  );
  runtime = await openRuntime(config, 'run', {
    env: { PATH: process.env['PATH'] },
    providerOptions: { baseUrl: fake.url, apiKey: 'k' },
    sessions: {},
    customTools: [gate.tool()],
  });
  return runtime;
}

afterEach(async () => {
  gate.release();
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('startServer', () => {
  it('runs no more at once than the channel has slots, and journals every run', async () => {
    await open();
    const ch = new FakeChannel('fake', 1);
    const server = startServer(runtime, { channels: [ch] });
    const firstWork = work('a');
    const secondWork = work('b');
    ch.push(firstWork.work);
    ch.push(secondWork.work);
    await gate.until(1);
    // b is taken from the channel but waits for the one slot
    expect(ch.queue).toHaveLength(0);
    expect(secondWork.started).toBe(0);
    gate.release();
    await firstWork.ended;
    await gate.until(1);
    gate.release();
    const rb = await secondWork.ended;
    expect(gate.most).toBe(1);
    expect(rb.kind).toBe('ran');
    for (const piece of [firstWork, secondWork]) {
      expect(piece.results).toHaveLength(1);
      expect(piece.started).toBe(1);
      const result = piece.results[0];
      if (result?.kind !== 'ran') throw new Error(`expected a run, got ${result?.kind}`);
      expect(result.outcome.status).toBe('completed');
      expect(result.runId).toBeDefined();
      // journaled, and released before done was called
      const stored = await loadRun(runtime.sessions, result.runId!);
      expect(stored.status).toBe('completed');
    }
    expect(await server.drain()).toBeUndefined();
    expect(ch.closes).toBe(1);
  });

  it('lets --workers override every channel', async () => {
    await open();
    const ch = new FakeChannel('fake', 1);
    const server = startServer(runtime, { channels: [ch], workers: 2 });
    expect(server.slots.get('fake')).toBe(2);
    const a = work('a');
    const b = work('b');
    ch.push(a.work);
    ch.push(b.work);
    await gate.until(2);
    expect(gate.most).toBe(2);
    gate.release();
    await Promise.all([a.ended, b.ended]);
    await server.drain();
  });

  it('reports work whose sender gave up while it waited for a slot as abandoned, never running it', async () => {
    await open();
    const ch = new FakeChannel('fake', 1);
    const server = startServer(runtime, { channels: [ch] });
    const a = work('a');
    const gaveUp = new AbortController();
    const b = work('b', { signal: gaveUp.signal });
    ch.push(a.work);
    ch.push(b.work);
    await gate.until(1);
    gaveUp.abort();
    expect(await b.ended).toEqual({ kind: 'abandoned' });
    expect(b.started).toBe(0);
    gate.release();
    await a.ended;
    await server.drain();
    expect(gate.calls).toBe(1);
    expect(b.results).toHaveLength(1);
  });

  it('drains with work in flight losing nothing: the running run finishes, the waiting one is handed back', async () => {
    await open();
    const ch = new FakeChannel('fake', 1);
    const server = startServer(runtime, { channels: [ch] });
    const a = work('a');
    const b = work('b');
    const c = work('c');
    ch.push(a.work);
    ch.push(b.work);
    ch.push(c.work);
    await gate.until(1);
    const drained = server.drain();
    // the hold is closed and the channel with it: b (taken, no slot) is abandoned, c never taken
    expect(await b.ended).toEqual({ kind: 'abandoned' });
    expect(ch.closes).toBe(1);
    expect(ch.queue.map((w) => w.label)).toEqual(['c']);
    expect(a.results).toHaveLength(0);
    ch.ended = a.results.length > 0 ? ['a'] : [];
    void a.ended.then(() => ch.ended.push('a'));
    gate.release();
    expect(await drained).toBeUndefined();
    // the channel was asked to settle its replies only once the run in flight had ended
    expect(ch.settledAfter).toEqual(['a']);
    const ra = a.results[0];
    expect(a.results).toHaveLength(1);
    expect(ra?.kind === 'ran' && ra.outcome.status).toBe('completed');
    expect(c.results).toHaveLength(0);
    expect(await server.stopped).toBeUndefined();
  });

  it('parks a run when the sender asks it to stop, resumable, and cancels all on the second interrupt', async () => {
    await open();
    const ch = new FakeChannel('fake', 2);
    const server = startServer(runtime, { channels: [ch] });
    const park = new AbortController();
    const a = work('a', { park: park.signal });
    const b = work('b');
    ch.push(a.work);
    ch.push(b.work);
    await gate.until(2);
    park.abort();
    void server.drain();
    server.cancel();
    const [ra, rb] = await Promise.all([a.ended, b.ended]);
    expect(ra.kind === 'ran' && ra.outcome.status).toMatch(/suspended|aborted/);
    expect(rb.kind === 'ran' && rb.outcome.status).toBe('aborted');
    expect(await server.stopped).toBeUndefined();
  });

  it('suspends a parked run at its next boundary so it can be resumed', async () => {
    await open();
    const ch = new FakeChannel('fake', 1);
    const server = startServer(runtime, { channels: [ch] });
    const park = new AbortController();
    const a = work('a', { park: park.signal });
    ch.push(a.work);
    await gate.until(1);
    park.abort();
    gate.release();
    const ra = await a.ended;
    if (ra.kind !== 'ran') throw new Error(`expected a run, got ${ra.kind}`);
    expect(ra.outcome.status).toBe('suspended');
    // resumable on this or another worker: the journal is released and the resume runs to the end
    const resumed = work('a-again');
    ch.push({ ...resumed.work, input: { resume: ra.runId! } });
    const rr = await resumed.ended;
    expect(rr.kind === 'ran' && rr.outcome.status).toBe('completed');
    await server.drain();
  });

  it('drains on a channel fault and returns the error, letting runs on other channels finish', async () => {
    await open();
    const good = new FakeChannel('good', 1);
    const bad = new FakeChannel('bad', 1);
    const server = startServer(runtime, { channels: [good, bad] });
    const a = work('a');
    good.push(a.work);
    await gate.until(1);
    bad.fail(new Error('the queue went away'));
    gate.release();
    const err = await server.stopped;
    expect(err?.message).toBe('the queue went away');
    expect(good.closes).toBe(1);
    expect(bad.closes).toBe(1);
    expect(a.results).toHaveLength(1);
    expect(await server.drain()).toBe(err);
  });

  it('reports a run that could not start as refused, without calling runContext', async () => {
    await open();
    const ch = new FakeChannel('fake', 1);
    const server = startServer(runtime, { channels: [ch] });
    const a = work('a');
    ch.push({ ...a.work, input: { resume: 'no-such-run' } });
    const r = await a.ended;
    expect(r.kind).toBe('refused');
    expect(a.started).toBe(0);
    await server.drain();
  });

  it('refuses bad settings by name', async () => {
    await open();
    expect(() => startServer(runtime, { channels: [] })).toThrow(/no channel/);
    expect(() => startServer(runtime, { channels: [new FakeChannel('x', 1)], workers: 0 })).toThrow(/--workers must be a whole number/);
    expect(() => startServer(runtime, { channels: [new FakeChannel('x', 1), new FakeChannel('x', 1)] })).toThrow(/both named "x"/);
  });

  it("refuses a runtime of another mode, or one without its session store, as the caller's mistake (exit 2, not a configuration error)", async () => {
    await open();
    // what a JavaScript caller can pass, which the type checker refuses in TypeScript
    const unjournaled: unknown = { ...runtime, sessions: undefined };
    const lend = await openRuntime(runtime.config, 'lend', { env: { PATH: process.env['PATH'] } });
    try {
      for (const [given, said] of [
        [unjournaled, /a served agent journals every run: open the runtime with its session store/],
        [lend, /a served agent needs a runtime opened in run mode .*, but was given a runtime opened in "lend" mode/],
        [undefined, /but was given no runtime/],
      ] as const) {
        let thrown: unknown;
        try {
          startServer(given as JournaledRuntime, { channels: [new FakeChannel('x', 1)] });
        } catch (err) {
          thrown = err;
        }
        expect(thrown).toMatchObject({ name: 'HostError', code: 'usage', category: 'usage' });
        expect((thrown as Error).message).toMatch(said);
        expect(exitFor(thrown)).toBe(EXIT.usage);
      }
    } finally {
      await lend.close();
    }
  });
});

describe('readiness and what the server reports', () => {
  async function probe(url: string): Promise<{ status: number; body: { status: string; reasons?: string[] } }> {
    const res = await fetch(url);
    return { status: res.status, body: (await res.json()) as { status: string; reasons?: string[] } };
  }

  it('is ready while pulling, not while a channel is paused, and not once draining; /healthz stays alive', async () => {
    await open();
    const ch = new FakeChannel('fake', 1);
    const notices: ServerNotice[] = [];
    const server = startServer(runtime, { channels: [ch], notify: (n) => notices.push(n) });
    const health = await HealthServer.start({ address: '127.0.0.1', port: 0, notReady: () => server.notReady() });
    try {
      expect(await probe(`${health.url}/readyz`)).toEqual({ status: 200, body: { status: 'ready' } });
      ch.pause?.paused('the model service failed 3 times in a row');
      // a second report of the same pause is not a second pause
      ch.pause?.paused('the model service failed 4 times in a row');
      expect(await probe(`${health.url}/readyz`)).toEqual({
        status: 503,
        body: { status: 'not ready', reasons: ['fake paused: the model service failed 3 times in a row'] },
      });
      expect(notices.filter((n) => n.kind === 'paused')).toHaveLength(1);
      ch.pause?.resumed();
      expect((await probe(`${health.url}/readyz`)).status).toBe(200);
      expect(notices.map((n) => n.kind)).toEqual(['paused', 'resumed']);
      const piece = work('a');
      ch.push(piece.work);
      await gate.until(1);
      const drained = server.drain();
      expect(await probe(`${health.url}/readyz`)).toEqual({ status: 503, body: { status: 'not ready', reasons: ['draining'] } });
      expect(await probe(`${health.url}/healthz`)).toEqual({ status: 200, body: { status: 'alive' } });
      gate.release();
      await drained;
    } finally {
      await health.close();
    }
  });

  it('says how each piece of work settled, with its ids and the reason for anything but a completion', async () => {
    await open();
    const ch = new FakeChannel('fake', 1);
    const notices: ServerNotice[] = [];
    const server = startServer(runtime, { channels: [ch], notify: (n) => notices.push(n) });
    const a = work('a');
    ch.push({ ...a.work, ids: { job: 'job-a' } });
    await gate.until(1);
    const gaveUp = new AbortController();
    const b = work('b', { signal: gaveUp.signal });
    ch.push({ ...b.work, ids: { job: 'job-b' } });
    await vi.waitFor(() => expect(ch.queue).toHaveLength(0), { timeout: 10_000 });
    gaveUp.abort();
    await b.ended;
    gate.release();
    await a.ended;
    await server.drain();
    const ended = notices.filter((n) => n.kind === 'ended');
    const started = notices.find((n) => n.kind === 'started');
    expect(started).toMatchObject({ ids: { job: 'job-a', session: expect.any(String) as unknown } });
    expect(ended.map((n) => [n.label, n.settled, n.ids.job])).toEqual([
      ['b', { outcome: 'returned', reason: 'its sender gave up before it started' }, 'job-b'],
      ['a', { outcome: 'completed' }, 'job-a'],
    ]);
  });
});
