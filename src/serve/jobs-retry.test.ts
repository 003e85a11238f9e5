/**
 * The jobs channel on a bad day, on a private nats-server under the real server loop: a failure
 * worth retrying hands the job back and records the attempt, a permanent one is stored failed,
 * too many attempts or too old a job is stored dead, a model outage pauses pulling instead of
 * failing the queue, a job's time limit stops it, and a deleted stream stops the worker.
 */
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { JetStreamManager } from '@nats-io/jetstream';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { anthropicText, anthropicToolUse } from '../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../agenttest/fake-model-server.js';
import type { FakeModelServer, FakeReply, ReceivedRequest } from '../agenttest/fake-model-server.js';
import { HeldTool } from '../agenttest/held-tool.js';
import { startNatsServer } from '../agenttest/nats-server.js';
import type { NatsServer } from '../agenttest/nats-server.js';
import { parseConfigForMode } from '../config/index.js';
import { connectNats } from '../conns/nats-connect.js';
import type { NatsConn } from '../conns/nats-connect.js';
import { openRuntime } from '../host/index.js';
import type { Runtime } from '../host/index.js';
import { fileTaskStore, isFinalState } from '../tasks/index.js';
import type { TaskRecord, TaskStore } from '../tasks/index.js';
import { encodeJob } from './job.js';
import type { Job } from './job.js';
import type { JobsChannelOptions } from './jobs.js';
import { openJobsChannel } from './jobs.js';
import { startServer } from './server.js';
import type { Server } from './server.js';

type Mode = 'ok' | 'down' | 'bad';
let mode: Mode = 'ok';

/** "ok" answers (prompts with "hold" call the hold tool first); "down" is a 503, "bad" a 400. */
function model(req: ReceivedRequest): FakeReply {
  if (mode === 'down')
    return {
      status: 503,
      headers: { 'retry-after-ms': '1' },
      body: { type: 'error', error: { type: 'overloaded_error', message: 'down for maintenance' } },
    };
  if (mode === 'bad')
    return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is malformed' } } };
  const body = req.body as { messages: { content: unknown }[] };
  const first = body.messages[0]?.content;
  const prompt = typeof first === 'string' ? first : ((first as { text?: string }[])[0]?.text ?? '');
  const last = body.messages[body.messages.length - 1];
  const answered = Array.isArray(last?.content) && (last.content as { type: string }[]).some((b) => b.type === 'tool_result');
  if (prompt.includes('hold') && !answered) return anthropicToolUse([{ id: `t${body.messages.length}`, name: 'hold', input: {} }]);
  return anthropicText(`answer: ${prompt}`);
}

let nats: NatsServer;
let conn: NatsConn;
let jsm: JetStreamManager;
let fake: FakeModelServer;
let home: string;
let n = 0;

beforeAll(async () => {
  nats = await startNatsServer();
  home = mkdtempSync(join(tmpdir(), 'fisk-jobs-retry-'));
  mkdirSync(join(home, 'nats', 'context'), { recursive: true });
  writeFileSync(join(home, 'nats', 'context', 'js.json'), JSON.stringify({ url: nats.url }));
  conn = await connectNats('js', { env: { HOME: home, XDG_CONFIG_HOME: home } });
  jsm = await jetstreamManager(conn.connection);
  fake = await startFakeModelServer({ fallback: model });
}, 20_000);

afterAll(async () => {
  await fake.close();
  await conn.connection.close();
  await nats.stop();
  rmSync(home, { recursive: true, force: true });
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  mode = 'ok';
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Setup {
  readonly runtime: Runtime;
  readonly tasks: TaskStore;
  readonly hold: HeldTool;
  readonly stream: string;
  readonly warnings: string[];
  publish(job: Job): Promise<void>;
  result(id: string): Promise<TaskRecord>;
  serve(over?: Partial<JobsChannelOptions>): Promise<{ server: Server; status: () => string }>;
}

async function setup(): Promise<Setup> {
  const i = n++;
  const stream = `RETRY${i}`;
  const subject = `retry${i}.work`;
  await jsm.streams.add({ name: stream, subjects: [subject] });
  await jsm.consumers.add(stream, { durable_name: 'workers', ack_policy: AckPolicy.Explicit, ack_wait: 2_000_000_000 });
  const dir = mkdtempSync(join(home, 'state-'));
  const config = parseConfigForMode(
    {
      text: `identity: worker\nsystem_prompt: You test.\nllm:\n  model: claude-sonnet-4-6\n  no_tool_search: true\nharness:\n  sessions: {backend: file, options: {directory: ${JSON.stringify(join(dir, 'runs'))}}}\n`,
    },
    'run',
  );
  const hold = new HeldTool({ output: '{"held":true}' });
  const runtime = await openRuntime(config, 'run', {
    env: { PATH: process.env['PATH'] },
    providerOptions: { baseUrl: fake.url, apiKey: 'k' },
    sessions: {},
    customTools: [hold.tool()],
  });
  const tasks = fileTaskStore(join(dir, 'tasks'));
  cleanups.push(async () => {
    hold.release();
    await runtime.close();
  });
  const js = jetstream(conn.connection);
  const warnings: string[] = [];
  return {
    runtime,
    tasks,
    hold,
    stream,
    warnings,
    async publish(job) {
      await js.publish(subject, encodeJob(job));
    },
    async result(id) {
      return vi.waitFor(
        async () => {
          const t = await tasks.get(id);
          if (t === undefined || !isFinalState(t.state)) throw new Error(`task ${id} has no result: ${JSON.stringify(t)}`);
          return t;
        },
        { timeout: 30_000, interval: 50 },
      );
    },
    async serve(over = {}) {
      const channel = await openJobsChannel({
        nats: conn,
        stream,
        consumer: 'workers',
        workers: 2,
        tasks,
        sessions: runtime.sessions,
        warn: (t) => warnings.push(t),
        worker: 'w1',
        ...over,
      });
      const server = startServer(runtime, {
        channels: [channel],
        notify: (notice) => {
          if (notice.kind === 'paused') warnings.push(`paused: ${notice.reason}`);
          if (notice.kind === 'resumed') warnings.push('resumed');
        },
      });
      cleanups.push(async () => {
        server.cancel();
        await server.stopped;
      });
      return { server, status: () => channel.status().state };
    },
  };
}

describe('a failure worth retrying', () => {
  it('hands the job back with the attempt and its reason, and the job completes once the model answers', async () => {
    const s = await setup();
    mode = 'down';
    await s.serve({ pause: { threshold: 10 } });
    await s.publish({ id: 'flaky', prompt: 'flaky job' });
    const pending = await vi.waitFor(
      async () => {
        const t = await s.tasks.get('flaky');
        if (t?.state !== 'pending' || (t.failures?.length ?? 0) < 1) throw new Error(`no failed attempt recorded: ${JSON.stringify(t)}`);
        return t;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(pending).toMatchObject({ state: 'pending', attempts: 1, worker: 'w1', failures: [{ attempt: 1, worker: 'w1' }] });
    expect(pending.failures?.[0]?.message).toMatch(/model call failed/u);
    mode = 'ok';
    const done = await s.result('flaky');
    expect(done).toMatchObject({ state: 'completed', answer: 'answer: flaky job' });
    expect(done.attempts).toBeGreaterThanOrEqual(2);
  }, 40_000);

  it('is stored dead past max_deliver with every attempt kept', async () => {
    const s = await setup();
    mode = 'down';
    await s.serve({ maxDeliver: 2, pause: { threshold: 10 } });
    await s.publish({ id: 'doomed', prompt: 'never answered' });
    const dead = await s.result('doomed');
    expect(dead).toMatchObject({ state: 'dead', reason: 'max_deliver', attempts: 2 });
    expect(dead.message).toMatch(/gave up after 2 attempts/u);
    expect(dead.failures?.map((f) => f.attempt)).toEqual([1, 2]);
  }, 40_000);
});

describe('a permanent failure', () => {
  it('is stored failed at once with its reason', async () => {
    const s = await setup();
    mode = 'bad';
    await s.serve();
    await s.publish({ id: 'broken', prompt: 'a bad request' });
    const failed = await s.result('broken');
    expect(failed).toMatchObject({ state: 'failed', reason: 'error', attempts: 1 });
    expect(failed.message).toMatch(/prompt is malformed/u);
    expect(failed.failures).toBeUndefined();
  });
});

describe('a model outage', () => {
  it('pauses pulling instead of failing the queue, and resumes by itself', async () => {
    const s = await setup();
    mode = 'down';
    const { server, status } = await s.serve({ maxDeliver: 3, pause: { threshold: 2, firstProbeMs: 100, maxProbeMs: 400 } });
    for (let i = 0; i < 6; i++) await s.publish({ id: `out-${i}`, prompt: `outage job ${i}` });
    await vi.waitFor(
      () => {
        if (status() !== 'paused') throw new Error(`pulling never paused: ${status()}`);
      },
      { timeout: 20_000, interval: 20 },
    );
    expect(server.notReady().join('\n')).toMatch(/jobs paused: 2 failures in a row \(model call failed/u);
    // the outage outlasts several probes, more than max_deliver would allow if they counted
    const before = fake.requests.length;
    await vi.waitFor(
      () => {
        if (fake.requests.length - before < 4) throw new Error('the paused worker never probed');
      },
      { timeout: 20_000, interval: 20 },
    );
    mode = 'ok';
    for (let i = 0; i < 6; i++) expect(await s.result(`out-${i}`)).toMatchObject({ state: 'completed', answer: `answer: outage job ${i}` });
    expect(status()).toBe('pulling');
    expect(server.notReady()).toEqual([]);
    expect(s.warnings.filter((w) => w.startsWith('paused: '))).toHaveLength(1);
    expect(s.warnings.filter((w) => w === 'resumed')).toHaveLength(1);
  }, 60_000);
});

describe('limits of one job', () => {
  it('stops a run past expose.agent.jobs.timeout and stores it failed', async () => {
    const s = await setup();
    await s.serve({ timeout: { text: '300ms', ms: 300 } });
    await s.publish({ id: 'slow', prompt: 'hold forever' });
    const failed = await s.result('slow');
    expect(failed).toMatchObject({ state: 'failed', reason: 'timeout' });
    expect(failed.message).toMatch(/expose\.agent\.jobs\.timeout \(300ms\).*fisk task retry slow/u);
  });

  it('stores a job older than expose.agent.jobs.max_age dead without running it', async () => {
    const s = await setup();
    await s.publish({ id: 'stale', prompt: 'too late' });
    const before = fake.requests.length;
    // the job waits in the queue longer than its maximum age before any worker pulls it
    await vi.waitFor(async () => {
      const stored = await jsm.streams.getMessage(s.stream, { seq: 1 });
      if (stored === null || Date.now() - new Date(stored.timestamp).getTime() < 50) throw new Error('the job is not yet old enough');
    });
    await s.serve({ maxAge: { text: '10ms', ms: 10 } });
    const dead = await s.result('stale');
    expect(dead).toMatchObject({ state: 'dead', reason: 'max_age' });
    expect(dead.message).toMatch(/older than expose\.agent\.jobs\.max_age \(10ms\)/u);
    expect(fake.requests.length).toBe(before);
  });
});

describe('a queue that disappears', () => {
  it('stops the worker with the error when its stream is deleted', async () => {
    const s = await setup();
    const { server } = await s.serve();
    await s.publish({ id: 'one', prompt: 'before deletion' });
    expect((await s.result('one')).state).toBe('completed');
    await jsm.streams.delete(s.stream);
    const fault = await server.stopped;
    expect(fault?.message).toMatch(/the jobs stream RETRY\d+ is gone; this worker stops\. Recreate it with: nats stream add/u);
  }, 30_000);
});

describe('a NATS server that does not come back', () => {
  it('stops the worker with the error once pulls have failed for longer than the bound', async () => {
    const s = await setup();
    const { server } = await s.serve({ unreachableAfterMs: 1_000 });
    await s.publish({ id: 'last', prompt: 'before the outage' });
    expect((await s.result('last')).state).toBe('completed');
    await nats.kill();
    try {
      const fault = await server.stopped;
      expect(fault?.message).toMatch(
        /cannot pull jobs from RETRY\d+ via NATS context js for \d+ s .*this worker stops|the NATS connection to context js closed/u,
      );
    } finally {
      await nats.restart();
    }
  }, 60_000);
});
