/**
 * The jobs channel on a private nats-server under the real server loop: results stored before the
 * ack, a job id that already has a result never runs twice, a journal that finished gives its
 * answer without a model call, drain loses nothing, and a queue nobody made fails naming the
 * commands that make it.
 */
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { JetStreamManager } from '@nats-io/jetstream';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { anthropicText, anthropicToolUse } from '../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../agenttest/fake-model-server.js';
import { HeldTool } from '../agenttest/held-tool.js';
import type { FakeModelServer, ReceivedRequest } from '../agenttest/fake-model-server.js';
import { startNatsServer } from '../agenttest/nats-server.js';
import type { NatsServer } from '../agenttest/nats-server.js';
import { parseConfigForMode } from '../config/index.js';
import { connectNats } from '../conns/nats-connect.js';
import type { NatsConn } from '../conns/nats-connect.js';
import { openRuntime, startRun } from '../host/index.js';
import type { JournaledRuntime } from '../host/index.js';
import { fileTaskStore, isFinalState, pendingTask } from '../tasks/index.js';
import type { TaskRecord, TaskStore } from '../tasks/index.js';
import { encodeJob, jobRunId } from './job.js';
import type { Job } from './job.js';
import { openJobsChannel } from './jobs.js';
import { startServer } from './server.js';
import { eventually } from '../agenttest/eventually.js';

/** Prompts containing "hold" call the hold tool first; every prompt is answered "answer: <prompt>". */
function model(req: ReceivedRequest) {
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
  home = mkdtempSync(join(tmpdir(), 'fisk-jobs-'));
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

interface Setup {
  readonly runtime: JournaledRuntime;
  readonly tasks: TaskStore;
  readonly hold: HeldTool;
  readonly stream: string;
  readonly subject: string;
  readonly warnings: string[];
  publish(job: Job | string): Promise<void>;
  waitFor(id: string): Promise<TaskRecord>;
  queue(): Promise<{ pending: number; ackPending: number }>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(): Promise<Setup> {
  const i = n++;
  const stream = `JOBS${i}`;
  const subject = `jobs${i}.work`;
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
  return {
    runtime,
    tasks,
    hold,
    stream,
    subject,
    warnings: [],
    async publish(job) {
      await js.publish(subject, typeof job === 'string' ? job : encodeJob(job));
    },
    async waitFor(id) {
      return eventually(
        async () => {
          const t = await tasks.get(id);
          return t !== undefined && isFinalState(t.state) ? t : undefined;
        },
        `job ${id} to reach a final state`,
        { intervalMs: 50, observed: () => tasks.get(id) },
      );
    },
    async queue() {
      const ci = await jsm.consumers.info(stream, 'workers');
      return { pending: ci.num_pending, ackPending: ci.num_ack_pending };
    },
  };
}

async function serve(s: Setup, workers = 1) {
  const channel = await openJobsChannel({
    nats: conn,
    stream: s.stream,
    consumer: 'workers',
    workers,
    tasks: s.tasks,
    sessions: s.runtime.sessions,
    warn: (t) => s.warnings.push(t),
  });
  const server = startServer(s.runtime, { channels: [channel] });
  cleanups.push(async () => {
    server.cancel();
    await server.stopped;
  });
  return server;
}

async function settled(s: Setup): Promise<void> {
  await eventually(
    async () => {
      const q = await s.queue();
      return q.pending === 0 && q.ackPending === 0;
    },
    'the queue to settle',
    { intervalMs: 50, observed: () => s.queue() },
  );
}

describe('the jobs channel', () => {
  it('stores the answer, then acknowledges; a job id that has its answer is not run again', async () => {
    const s = await setup();
    await serve(s);
    const before = fake.requests.length;
    await s.publish({ id: 'report-1', prompt: 'write the report' });
    const task = await s.waitFor('report-1');
    expect(task).toMatchObject({ state: 'completed', answer: 'answer: write the report', run_id: jobRunId(s.stream, 'report-1') });
    await settled(s);
    expect(fake.requests.length - before).toBe(1);
    await s.publish({ id: 'report-1', prompt: 'write the report' });
    await settled(s);
    expect(fake.requests.length - before).toBe(1);
    expect(await s.tasks.list()).toHaveLength(1);
  });

  it('records a job published straight to the stream once, running, when its run starts', async () => {
    const s = await setup();
    const ask = vi.spyOn(s.tasks, 'ask');
    const progress = vi.spyOn(s.tasks, 'progress');
    await serve(s);
    await s.publish({ id: 'fresh', prompt: 'hold fresh' });
    await s.hold.until(1);
    await eventually(async () => (await s.tasks.get('fresh'))?.state === 'running', 'the task to be recorded running', { intervalMs: 20 });
    expect(await s.tasks.get('fresh')).toMatchObject({ state: 'running', attempts: 1, prompt: 'hold fresh' });
    expect(ask).toHaveBeenCalledTimes(1);
    expect(progress).not.toHaveBeenCalled();
    s.hold.release();
    expect(await s.waitFor('fresh')).toMatchObject({ state: 'completed', attempts: 1, answer: 'answer: hold fresh' });
    // a job recorded before it was queued (fisk task submit) is updated as it runs
    await s.tasks.ask(pendingTask('asked', jobRunId(s.stream, 'asked'), 'asked first'));
    await s.publish({ id: 'asked', prompt: 'asked first' });
    expect(await s.waitFor('asked')).toMatchObject({ state: 'completed', attempts: 1 });
    expect(progress).toHaveBeenCalledTimes(1);
    await settled(s);
  });

  it('stores a new job with its result when recording it as its run started failed', async () => {
    const s = await setup();
    const ask = s.tasks.ask.bind(s.tasks);
    let refused = 0;
    s.tasks.ask = (record) => (refused++ === 0 ? Promise.reject(new Error('the disk is away')) : ask(record));
    await serve(s);
    const before = fake.requests.length;
    await s.publish({ id: 'late', prompt: 'recorded late' });
    expect(await s.waitFor('late')).toMatchObject({ state: 'completed', answer: 'answer: recorded late', attempts: 1 });
    expect(s.warnings.join('\n')).toMatch(/task late: the task store did not record that it runs: the disk is away/u);
    // stored on this delivery, not handed back to run again
    expect(fake.requests.length - before).toBe(1);
    await settled(s);
  });

  it('drops a message that is not a job, saying why, and goes on', async () => {
    const s = await setup();
    await serve(s);
    await s.publish('{"prompt": "x", "budget": {"max_token": 5}}');
    await s.publish('not json');
    await s.publish({ prompt: 'no id given' });
    const listed = await eventually(
      async () => {
        const all = await s.tasks.list();
        return all[0] !== undefined && isFinalState(all[0].state) ? all : undefined;
      },
      'the one real job to finish',
      { intervalMs: 50 },
    );
    expect(listed.map((t) => [t.id, t.answer])).toEqual([[`${s.stream}-3`, 'answer: no id given']]);
    expect(s.warnings.join('\n')).toMatch(/message 1 .* unknown field "max_token" in budget/u);
    expect(s.warnings.join('\n')).toMatch(/message 2 .* is not JSON/u);
    await settled(s);
  });

  it('takes the answer from a journal that already finished, with no model call', async () => {
    const s = await setup();
    const runId = jobRunId(s.stream, 'again');
    const h = await startRun(s.runtime, { prompt: 'finished before', checkpoint: { runId } });
    await h.outcome;
    await h.close();
    const before = fake.requests.length;
    await serve(s);
    await s.publish({ id: 'again', prompt: 'finished before' });
    expect(await s.waitFor('again')).toMatchObject({ state: 'completed', answer: 'answer: finished before' });
    expect(fake.requests.length).toBe(before);
    await settled(s);
  });

  it('finishes the run in flight on drain and hands the waiting job back', async () => {
    const s = await setup();
    const server = await serve(s, 1);
    await s.publish({ id: 'first', prompt: 'hold first' });
    await s.hold.until(1);
    await s.publish({ id: 'second', prompt: 'hold second' });
    // the second is taken from the queue and waits for the one slot
    await eventually(async () => (await s.queue()).ackPending >= 2, 'the second job to be taken from the queue', {
      intervalMs: 50,
      observed: () => s.queue(),
    });
    const drained = server.drain();
    s.hold.release();
    expect(await drained).toBeUndefined();
    expect(await s.tasks.get('first')).toMatchObject({ state: 'completed', answer: 'answer: hold first' });
    // published straight to the stream and never started, it has no task record yet
    expect(await s.tasks.get('second')).toBeUndefined();
    // nothing lost: another worker takes the second job
    const hold = s.hold;
    const again = await serve(s, 1);
    // the second job's call, counted across both workers
    await hold.arrived(2);
    hold.release();
    expect(await s.waitFor('second')).toMatchObject({ state: 'completed', answer: 'answer: hold second' });
    await again.drain();
    await settled(s);
  });

  it('stores a failure once and never replaces it', async () => {
    const s = await setup();
    await serve(s);
    await s.publish({ id: 'tiny', prompt: 'hold tiny', budget: { max_iterations: 1 } });
    await s.hold.until(1);
    s.hold.release();
    expect(await s.waitFor('tiny')).toMatchObject({ state: 'failed', reason: 'max_iterations' });
    await settled(s);
  });

  it('fails at startup naming the command for a missing stream or consumer', async () => {
    const tasks = fileTaskStore(mkdtempSync(join(home, 'none-')));
    const s = await setup();
    const open = (stream: string, consumer: string) =>
      openJobsChannel({ nats: conn, stream, consumer, workers: 1, tasks, sessions: s.runtime.sessions });
    await expect(open('NOSTREAM', 'workers')).rejects.toThrow(
      /stream "NOSTREAM" does not exist.*nats stream add NOSTREAM .*--retention work.*--replicas 1 .*--context js/u,
    );
    await expect(open(s.stream, 'nobody')).rejects.toThrow(
      /consumer "nobody" on stream "JOBS\d+" does not exist.*nats consumer add JOBS\d+ nobody --pull .*--ack explicit/u,
    );
    await jsm.consumers.add(s.stream, { durable_name: 'pushy', ack_policy: AckPolicy.Explicit, deliver_subject: 'somewhere' });
    await expect(open(s.stream, 'pushy')).rejects.toThrow(/push consumer/u);
  });
});

describe('a nats-server restarted under a running worker', () => {
  it('is waited out: the worker reconnects and takes the next job', async () => {
    const s = await setup();
    const server = await serve(s);
    await s.publish({ id: 'before', prompt: 'before the restart' });
    expect((await s.waitFor('before')).state).toBe('completed');
    let down = false;
    void (async () => {
      for await (const status of conn.connection.status()) {
        if (status.type !== 'disconnect') continue;
        down = true;
        return;
      }
    })();
    await nats.kill();
    await eventually(() => down, "the worker's connection to see the server go");
    await nats.restart();
    // the client reconnects by itself; publish once it has
    await eventually(
      async () => {
        await s.publish({ id: 'after', prompt: 'after the restart' });
        return true;
      },
      'a publish to succeed after the restart',
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(await s.waitFor('after')).toMatchObject({ state: 'completed', answer: 'answer: after the restart' });
    await settled(s);
    expect(server.inFlight).toBe(0);
  }, 60_000);
});
