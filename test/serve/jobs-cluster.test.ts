/**
 * `fisk serve` workers on a real three-node JetStream cluster with R3 streams and buckets, on a
 * bad day: the stream leader and a worker are killed mid-batch and the model service stops
 * answering for longer than the ack wait, and every job still ends completed exactly once. A
 * stream deleted under a worker ends it non-zero; `fisk task retry`, `rm` and `ls --state` steer
 * the queue from the built CLI.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AckPolicy, DiscardPolicy, RetentionPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { JetStreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { KV } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer, FakeReply, ReceivedRequest } from '../../src/agenttest/fake-model-server.js';
import { startNatsCluster } from '../../src/agenttest/nats-cluster.js';
import type { NatsCluster } from '../../src/agenttest/nats-cluster.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'bin', 'fisk.cjs');
const app = join(root, 'test', 'fixtures', 'job-app.mjs');

let cluster: NatsCluster;
let nc: NatsConnection;
let jsm: JetStreamManager;
let kv: KV;
let fake: FakeModelServer;
let home: string;
let workDir: string;
const workers: ChildProcess[] = [];
/** While set, the model service takes requests and never answers. */
let stalled = false;
/** Prompts the model refuses with a 400 while they are in here. */
const refused = new Set<string>();

function promptOf(req: ReceivedRequest): string {
  const body = req.body as { messages?: { content: unknown }[] } | undefined;
  const first = body?.messages?.[0]?.content;
  return typeof first === 'string' ? first : ((first as { text?: string }[] | undefined)?.[0]?.text ?? '');
}

/** "work N ..." calls the work tool for N seconds first; every prompt is then answered. */
function model(req: ReceivedRequest): FakeReply {
  if (stalled) return { hang: true };
  const prompt = promptOf(req);
  if (refused.has(prompt))
    return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'this prompt is refused' } } };
  const body = req.body as { messages: { content: unknown }[] };
  const last = body.messages[body.messages.length - 1];
  const answered = Array.isArray(last?.content) && (last.content as { type: string }[]).some((b) => b.type === 'tool_result');
  // "loop ..." calls the work tool on every turn, so only an iteration limit ends it
  if (prompt.startsWith('loop ')) return anthropicToolUse([{ id: `toolu_${body.messages.length}`, name: 'work', input: { seconds: 0 } }]);
  const m = /^work (\d+)/u.exec(prompt);
  if (m !== null && !answered)
    return anthropicToolUse([{ id: `toolu_${body.messages.length}`, name: 'work', input: { seconds: Number(m[1]) } }]);
  return anthropicText(`done: ${prompt}`);
}

const env = (): NodeJS.ProcessEnv => ({
  PATH: process.env['PATH'],
  HOME: home,
  XDG_CONFIG_HOME: home,
  XDG_STATE_HOME: join(home, 'state'),
});

/** Every write of a result to the task bucket, by task id, as a watcher saw them. */
const results = new Map<string, string[]>();
/** How many times each task's record was written. */
const writes = new Map<string, number>();

beforeAll(async () => {
  if (!existsSync(cli)) spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  cluster = await startNatsCluster();
  nc = await connect({ servers: cluster.url.split(','), reconnectTimeWait: 100, maxReconnectAttempts: -1 });
  jsm = await jetstreamManager(nc);
  home = mkdtempSync(join(tmpdir(), 'fisk-cluster-'));
  workDir = join(home, 'work');
  mkdirSync(workDir);
  mkdirSync(join(home, 'nats', 'context'), { recursive: true });
  writeFileSync(join(home, 'nats', 'context', 'cluster.json'), JSON.stringify({ url: cluster.url }));
  await jsm.streams.add({ name: 'JOBS', subjects: ['fisk.jobs.JOBS'], retention: RetentionPolicy.Workqueue, num_replicas: 3 });
  await jsm.consumers.add('JOBS', { durable_name: 'workers', ack_policy: AckPolicy.Explicit, ack_wait: 2_000_000_000, num_replicas: 3 });
  await jsm.streams.add({
    name: 'RUNS',
    subjects: ['fisk.sessions.>'],
    max_msgs_per_subject: 1,
    discard: DiscardPolicy.New,
    discard_new_per_subject: true,
    num_replicas: 3,
  });
  kv = await new Kvm(nc).create('TASKS', { history: 1, replicas: 3 });
  // the watcher is started again from the next revision if a stream leader change ends it, so no
  // write is missed or counted twice; one that goes quiet is stopped and started again too, since
  // a watch whose consumer was lost with a killed leader can wait forever without ending
  let seen = 0;
  const follow = async (): Promise<void> => {
    for (;;) {
      try {
        const watch = await kv.watch(seen === 0 ? { include: 'updates' } : { resumeFromRevision: seen + 1 });
        let heard = Date.now();
        const quiet = setInterval(() => {
          if (Date.now() - heard > 2_000) watch.stop();
        }, 500);
        try {
          for await (const e of watch) {
            heard = Date.now();
            if (e.revision <= seen) continue;
            seen = e.revision;
            if (e.operation !== 'PUT') continue;
            writes.set(e.key, (writes.get(e.key) ?? 0) + 1);
            const t = e.json<{ state: string; message?: string }>();
            const state = t.state;
            if (state === 'completed' || state === 'failed' || state === 'dead')
              results.set(e.key, [...(results.get(e.key) ?? []), t.message === undefined ? state : `${state}: ${t.message}`]);
          }
        } finally {
          clearInterval(quiet);
        }
      } catch {
        // the cluster is electing a leader: watch again
      }
      if (nc.isClosed()) return;
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  void follow();
  fake = await startFakeModelServer({ fallback: model });
  writeFileSync(
    join(home, 'agent.yaml'),
    [
      'identity: jobs',
      `application_path: ${app}`,
      'nats_context: cluster',
      'system_prompt: You do the work you are asked to.',
      'llm:',
      '  model: claude-sonnet-4-6',
      '  no_tool_search: true',
      '  budget: {call_timeout: 1s}',
      'harness:',
      '  sessions: {backend: jetstream, options: {stream: RUNS}}',
      'expose:',
      '  agent:',
      '    jobs: {stream: JOBS, consumer: workers, workers: 3}',
      'tasks: {backend: jetstream, options: {bucket: TASKS}}',
      '',
    ].join('\n'),
  );
}, 120_000);

afterEach(() => {
  stalled = false;
  for (const w of workers.splice(0)) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
});

afterAll(async () => {
  await fake.close();
  await nc.close();
  await cluster.stop();
  rmSync(home, { recursive: true, force: true });
});

interface Worker {
  readonly child: ChildProcess;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

function startWorker(): Worker {
  const child = spawn(
    process.execPath,
    [cli, 'serve', '--config', join(home, 'agent.yaml'), '--work-dir', workDir, '--base-url', fake.url, '--api-key', 'k'],
    {
      cwd: home,
      env: env(),
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  workers.push(child);
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, stderr: () => err, exited };
}

async function pulling(n: number, ws: readonly Worker[]): Promise<void> {
  await vi.waitFor(
    async () => {
      for (const w of ws) if (w.child.exitCode !== null) throw new Error(`a worker exited ${w.child.exitCode}: ${w.stderr()}`);
      const ci = await jsm.consumers.info('JOBS', 'workers');
      if (ci.num_waiting < n) throw new Error(`${ci.num_waiting} of ${n} workers pull: ${ws.map((w) => w.stderr()).join('\n---\n')}`);
    },
    { timeout: 30_000, interval: 100 },
  );
}

function runCli(args: readonly string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: home, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => res({ code, out, err }));
  });
}

/** The task records of `ids` once every one has a result. */
async function allFinished(
  ids: readonly string[],
  timeout: number,
  ws: readonly Worker[] = [],
): Promise<Map<string, Record<string, unknown>>> {
  return vi.waitFor(
    async () => {
      const out = new Map<string, Record<string, unknown>>();
      const open: string[] = [];
      for (const id of ids) {
        const e = await kv.get(id);
        const t = e === null || e.operation !== 'PUT' ? undefined : e.json<Record<string, unknown>>();
        if (t === undefined || t['state'] === 'pending' || t['state'] === 'running') open.push(id);
        else out.set(id, t);
      }
      if (open.length > 0) {
        const first = await kv.get(open[0] ?? '');
        const ci = await jsm.consumers.info('JOBS', 'workers').catch((e: unknown) => String(e));
        throw new Error(
          `${open.length} of ${ids.length} jobs have no result: ${open.slice(0, 5).join(', ')}; ${first?.string() ?? ''}; ${JSON.stringify(typeof ci === 'string' ? ci : { pending: ci.num_pending, ack: ci.num_ack_pending, redelivered: ci.num_redelivered, waiting: ci.num_waiting })}\n${ws.map((w) => w.stderr().slice(-3000)).join('\n---\n')}`,
        );
      }
      return out;
    },
    { timeout, interval: 250 },
  );
}

describe('workers on a three-node cluster with R3 streams', () => {
  it('completes every job exactly once through a killed stream leader, a killed worker and a stalled model', async () => {
    const ws = [startWorker(), startWorker(), startWorker()];
    await pulling(3, ws);
    const js = jetstream(nc);
    const ids = Array.from({ length: 24 }, (_, i) => `batch-${i}`);
    for (const [i, id] of ids.entries())
      await js.publish('fisk.jobs.JOBS', JSON.stringify({ id, prompt: `work ${i % 3 === 0 ? 1 : 0} ${id}` }));
    // mid-batch: the stream's leader and one worker die
    await vi.waitFor(
      () => {
        if (results.size < 4) throw new Error(`only ${results.size} jobs finished before the faults`);
      },
      { timeout: 30_000, interval: 50 },
    );
    const leader = await cluster.streamLeader('JOBS');
    await leader.kill();
    ws[0]?.child.kill('SIGKILL');
    // the model service stops answering for longer than the consumer's ack wait (2 s)
    stalled = true;
    await new Promise((r) => setTimeout(r, 4_000));
    stalled = false;
    await leader.restart();
    const finished = await allFinished(ids, 90_000, ws);
    const wrong = ids.filter((id) => finished.get(id)?.['state'] !== 'completed' || results.get(id)?.length !== 1);
    if (wrong.length > 0)
      throw new Error(
        `not completed once: ${wrong.map((id) => `${id}: ${JSON.stringify(finished.get(id))} ${JSON.stringify(results.get(id))}`).join('\n')}\n${ws.map((w) => w.stderr().slice(-3000)).join('\n---\n')}`,
      );
    for (const id of ids)
      expect(finished.get(id)).toMatchObject({ state: 'completed', answer: `done: ${`work ${ids.indexOf(id) % 3 === 0 ? 1 : 0} ${id}`}` });
    // each result was written once: none failed, none answered twice
    for (const id of ids) expect(results.get(id)).toEqual(['completed']);
    // the faults were felt: some job needed more than one attempt, and a worker said why
    expect([...finished.values()].some((t) => Number(t['attempts']) > 1)).toBe(true);
    expect(
      ws
        .slice(1)
        .map((w) => w.stderr())
        .join('\n'),
    ).toMatch(/attempt \d+ failed and is tried again/u);
    await vi.waitFor(
      async () => {
        const ci = await jsm.consumers.info('JOBS', 'workers');
        if (ci.num_pending + ci.num_ack_pending > 0) throw new Error(`the queue still holds ${ci.num_pending + ci.num_ack_pending} jobs`);
      },
      { timeout: 30_000, interval: 100 },
    );
    for (const worker of ws.slice(1)) expect(worker.child.exitCode).toBeNull();
  }, 180_000);

  it('re-runs a failed job with fisk task retry, and lists and removes tasks by state', async () => {
    const w = startWorker();
    await pulling(1, [w]);
    refused.add('a refused prompt');
    const failed = await runCli(['task', 'submit', '--config', 'agent.yaml', '--id', 'refused-1', '--wait', 'a', 'refused', 'prompt']);
    expect(failed.code).toBe(1);
    expect(failed.err).toMatch(/job refused-1 error: .*this prompt is refused/u);
    const listed = await runCli(['task', 'ls', '--config', 'agent.yaml', '--state', 'failed']);
    expect(listed.out).toMatch(/^refused-1 +failed +1 /mu);
    expect(listed.out).not.toMatch(/batch-/u);
    refused.delete('a refused prompt');
    const again = await runCli(['task', 'retry', '--config', 'agent.yaml', '--wait', 'refused-1']);
    expect(again).toMatchObject({ code: 0, out: 'done: a refused prompt\n' });
    expect(again.err).toMatch(/re-queued job refused-1 on JOBS; its journal is kept/u);
    expect(await runCli(['task', 'retry', '--config', 'agent.yaml', 'refused-1'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/task refused-1 is completed; only a failed or dead job can be retried/u) as unknown,
    });
    expect((await runCli(['task', 'ls', '--config', 'agent.yaml', '--state', 'completed'])).out).toMatch(/^refused-1 +completed +1 /mu);
    expect(await runCli(['task', 'rm', '--config', 'agent.yaml', 'refused-1'])).toMatchObject({ code: 0 });
    expect((await runCli(['task', 'show', '--config', 'agent.yaml', 'refused-1'])).code).toBe(1);
  }, 120_000);

  it('retries a job under the budget its submission lowered', async () => {
    const worker = startWorker();
    await pulling(1, [worker]);
    const first = await runCli([
      'task',
      'submit',
      '--config',
      'agent.yaml',
      '--id',
      'capped-1',
      '--max-iterations',
      '2',
      '--wait',
      'loop',
      'capped',
    ]);
    expect(first.code).toBe(5);
    expect(first.err).toMatch(/job capped-1 max_iterations: stopped after 2 model calls/u);
    expect((await kv.get('capped-1'))?.json<Record<string, unknown>>()).toMatchObject({
      state: 'failed',
      reason: 'max_iterations',
      budget: { max_iterations: 2 },
    });
    const again = await runCli(['task', 'retry', '--config', 'agent.yaml', '--wait', 'capped-1']);
    // the configured limit is far above 2: only the submission's own budget stops the retried run there
    expect(again.code).toBe(5);
    expect(again.err).toMatch(/job capped-1 max_iterations: stopped after 2 model calls/u);
    const retried = (await kv.get('capped-1'))?.json<Record<string, unknown>>();
    expect(retried).toMatchObject({
      state: 'failed',
      reason: 'max_iterations',
      budget: { max_iterations: 2 },
      run_id: expect.any(String) as unknown,
    });
    expect(results.get('capped-1')).toHaveLength(2);
  }, 120_000);

  it('records every job submitted during a stream leader election exactly once', async () => {
    // no worker runs: every job stays in the stream, where its messages can be counted
    const before = (await jsm.streams.info('JOBS')).state.last_seq;
    const leader = await cluster.streamLeader('JOBS');
    await leader.kill();
    const ids = Array.from({ length: 4 }, (_, i) => `elected-${i}`);
    let submits: { code: number | null; out: string; err: string }[];
    try {
      submits = await Promise.all(
        ids.map((id) => runCli(['task', 'submit', '--config', 'agent.yaml', '--id', id, `during the election ${id}`])),
      );
    } finally {
      await leader.restart();
    }
    for (const [i, submitted] of submits.entries())
      expect(submitted, `submit of ${ids[i] ?? ''}: ${submitted.err}`).toMatchObject({ code: 0, out: `${ids[i] ?? ''}\n` });
    // the election happened under the submissions: the stream's leader moved away from the killed node
    expect((await cluster.streamLeader('JOBS')).name).not.toBe(leader.name);
    const info = await jsm.streams.info('JOBS');
    const queued = new Map<string, number>();
    for (let seq = before + 1; seq <= info.state.last_seq; seq++) {
      const message = await jsm.streams.getMessage('JOBS', { seq }).catch(() => null);
      if (message === null) continue;
      const id = message.json<{ id: string }>().id;
      queued.set(id, (queued.get(id) ?? 0) + 1);
    }
    expect(Object.fromEntries(queued)).toEqual(Object.fromEntries(ids.map((id) => [id, 1])));
    for (const id of ids) {
      const entry = await kv.get(id);
      expect(entry?.json<Record<string, unknown>>()).toMatchObject({ id, state: 'pending', prompt: `during the election ${id}` });
      // one record: written once, never rewritten by a repeated attempt
      await vi.waitFor(
        () => {
          if (writes.get(id) === undefined) throw new Error(`the bucket's watcher never saw ${id} written`);
        },
        { timeout: 15_000, interval: 100 },
      );
      expect(writes.get(id), `writes of ${id}`).toBe(1);
    }
    await jsm.streams.purge('JOBS');
  }, 120_000);

  it('ends a worker non-zero with the error when its stream is deleted', async () => {
    await jsm.streams.add({ name: 'GONE', subjects: ['fisk.jobs.GONE'], retention: RetentionPolicy.Workqueue, num_replicas: 3 });
    await jsm.consumers.add('GONE', { durable_name: 'workers', ack_policy: AckPolicy.Explicit, num_replicas: 3 });
    const config = join(home, 'gone.yaml');
    writeFileSync(
      config,
      [
        'identity: gone',
        `application_path: ${app}`,
        'nats_context: cluster',
        'system_prompt: You test.',
        'llm: {model: claude-sonnet-4-6, no_tool_search: true}',
        'harness:',
        '  sessions: {backend: jetstream, options: {stream: RUNS}}',
        'expose: {agent: {jobs: {stream: GONE, consumer: workers}}}',
        'tasks: {backend: jetstream, options: {bucket: TASKS}}',
        '',
      ].join('\n'),
    );
    const child = spawn(
      process.execPath,
      [cli, 'serve', '--config', config, '--work-dir', workDir, '--base-url', fake.url, '--api-key', 'k'],
      { cwd: home, env: env(), stdio: ['ignore', 'ignore', 'pipe'] },
    );
    workers.push(child);
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await vi.waitFor(
      async () => {
        if ((await jsm.consumers.info('GONE', 'workers')).num_waiting < 1) throw new Error(`the worker never pulled: ${err}`);
      },
      { timeout: 30_000, interval: 100 },
    );
    await jsm.streams.delete('GONE');
    expect(await exited).toBe(1);
    expect(err).toMatch(/the jobs stream GONE is gone; this worker stops\. Recreate it with: nats stream add GONE/u);
  }, 60_000);
});
