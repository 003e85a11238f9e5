/**
 * Two `fisk serve` workers on one private nats-server sharing a work queue, the journals and the
 * task store in JetStream: a worker killed mid-job leaves it to the other, which finishes it from
 * the journal without repeating a journaled model call; a drained worker loses nothing; a job
 * submitted twice with one id runs once; the nats-server restarted under a running worker.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AckPolicy, DiscardPolicy, RetentionPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { JetStreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer, ReceivedRequest } from '../../src/agenttest/fake-model-server.js';
import { startNatsServer } from '../../src/agenttest/nats-server.js';
import type { NatsServer } from '../../src/agenttest/nats-server.js';
import { eventually } from '../../src/agenttest/eventually.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'bin', 'fisk.cjs');
const app = join(root, 'test', 'fixtures', 'job-app.mjs');

let nats: NatsServer;
let nc: NatsConnection;
let jsm: JetStreamManager;
let fake: FakeModelServer;
let home: string;
let workDir: string;
const workers: ChildProcess[] = [];

/** The prompt's first user text. */
function promptOf(req: ReceivedRequest): string {
  const body = req.body as { messages?: { content: unknown }[] } | undefined;
  const first = body?.messages?.[0]?.content;
  return typeof first === 'string' ? first : ((first as { text?: string }[] | undefined)?.[0]?.text ?? '');
}

/** "work N ..." calls the work tool for N seconds first; every prompt is then answered. */
function model(req: ReceivedRequest) {
  const body = req.body as { messages: { content: unknown }[] };
  const prompt = promptOf(req);
  const last = body.messages[body.messages.length - 1];
  const answered = Array.isArray(last?.content) && (last.content as { type: string }[]).some((b) => b.type === 'tool_result');
  const m = /^work (\d+)/u.exec(prompt);
  if (m !== null && !answered)
    return anthropicToolUse([{ id: `toolu_${body.messages.length}`, name: 'work', input: { seconds: Number(m[1]) } }]);
  return anthropicText(`done: ${prompt}`);
}

const callsFor = (prompt: string): number => fake.requests.filter((r) => promptOf(r) === prompt).length;
const env = (): NodeJS.ProcessEnv => ({
  PATH: process.env['PATH'],
  HOME: home,
  XDG_CONFIG_HOME: home,
  XDG_STATE_HOME: join(home, 'state'),
});

beforeAll(async () => {
  if (!existsSync(cli)) spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  jsm = await jetstreamManager(nc);
  home = mkdtempSync(join(tmpdir(), 'fisk-workers-'));
  workDir = join(home, 'work');
  mkdirSync(workDir);
  mkdirSync(join(home, 'nats', 'context'), { recursive: true });
  writeFileSync(join(home, 'nats', 'context', 'js.json'), JSON.stringify({ url: nats.url }));
  await jsm.streams.add({ name: 'JOBS', subjects: ['fisk.jobs.JOBS'], retention: RetentionPolicy.Workqueue });
  await jsm.consumers.add('JOBS', { durable_name: 'workers', ack_policy: AckPolicy.Explicit, ack_wait: 2_000_000_000 });
  await jsm.streams.add({
    name: 'RUNS',
    subjects: ['fisk.sessions.>'],
    max_msgs_per_subject: 1,
    discard: DiscardPolicy.New,
    discard_new_per_subject: true,
  });
  await new Kvm(nc).create('TASKS', { history: 1 });
  fake = await startFakeModelServer({ fallback: model });
  writeFileSync(
    join(home, 'agent.yaml'),
    [
      'identity: jobs',
      `application_path: ${app}`,
      'nats_context: js',
      'system_prompt: You do the work you are asked to.',
      'llm:',
      '  model: claude-sonnet-4-6',
      '  no_tool_search: true',
      'harness:',
      '  sessions: {backend: jetstream, options: {stream: RUNS}}',
      'expose:',
      '  agent:',
      '    jobs: {stream: JOBS, consumer: workers}',
      'tasks: {backend: jetstream, options: {bucket: TASKS}}',
      '',
    ].join('\n'),
  );
}, 180_000);

afterEach(async () => {
  for (const w of workers.splice(0)) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  // the pull requests of killed workers are gone before the next test counts waiting workers
  await eventually(async () => (await jsm.consumers.info('JOBS', 'workers')).num_waiting === 0, "the killed workers' pull requests to go", {
    intervalMs: 50,
  });
});

afterAll(async () => {
  await fake.close();
  await nc.close();
  await nats.stop();
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

/** Waits until `n` workers have a pull request waiting on the consumer. */
async function pulling(n: number, ws: readonly Worker[]): Promise<void> {
  await eventually(async () => (await jsm.consumers.info('JOBS', 'workers')).num_waiting >= n, `${n} workers to pull`, {
    intervalMs: 50,
    observed: () => ws.map((w) => w.stderr()).join('\n---\n'),
    stopIf: () => {
      const gone = ws.find((w) => w.child.exitCode !== null);
      return gone === undefined ? undefined : `a worker exited ${gone.child.exitCode}: ${gone.stderr()}`;
    },
  });
}

function publish(job: object): Promise<unknown> {
  return jetstream(nc).publish('fisk.jobs.JOBS', JSON.stringify(job));
}

async function task(id: string): Promise<Record<string, unknown>> {
  const kv = await new Kvm(nc).open('TASKS');
  return eventually(
    async () => {
      const e = await kv.get(id);
      if (e === null || e.operation !== 'PUT') return undefined;
      const t = e.json<Record<string, unknown>>();
      return t['state'] !== 'pending' && t['state'] !== 'running' ? t : undefined;
    },
    `task ${id} to get a result`,
    { timeoutMs: 60_000, intervalMs: 100 },
  );
}

function toolCalls(): string[] {
  const path = join(workDir, 'calls.log');
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
    : [];
}

async function untilToolCalls(n: number): Promise<string[]> {
  return eventually(
    () => {
      const calls = toolCalls();
      return calls.length >= n && calls;
    },
    `${n} calls of the tool`,
    { intervalMs: 50, observed: toolCalls },
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

describe('two fisk serve workers on one queue', () => {
  it('finishes a job from the journal when its worker is killed mid-job, repeating no journaled model call', async () => {
    const a = startWorker();
    const b = startWorker();
    await pulling(2, [a, b]);
    const before = toolCalls().length;
    const prompt = 'work 4 on the killed worker';
    await publish({ id: 'killed-1', prompt });
    const calls = await untilToolCalls(before + 1);
    const holder = Number(calls[calls.length - 1]);
    const [victim, survivor] = holder === a.child.pid ? [a, b] : [b, a];
    expect(victim.child.pid).toBe(holder);
    victim.child.kill('SIGKILL');
    const t = await task('killed-1');
    expect(t).toMatchObject({ state: 'completed', answer: `done: ${prompt}` });
    // one call asked for the tool and was journaled; the survivor made only the final call
    expect(callsFor(prompt)).toBe(2);
    // the tool call in flight had no journaled result, so the survivor ran it once more
    expect(toolCalls().slice(before).map(Number)).toEqual([victim.child.pid, survivor.child.pid]);
  }, 120_000);

  it('runs a job submitted twice with one id once, and prints the same answer both times', async () => {
    const a = startWorker();
    const b = startWorker();
    await pulling(2, [a, b]);
    const first = await runCli(['task', 'submit', '--config', 'agent.yaml', '--id', 'twice', '--wait', 'say', 'hello']);
    expect(first).toMatchObject({ code: 0, out: 'done: say hello\n' });
    const second = await runCli(['task', 'submit', '--config', 'agent.yaml', '--id', 'twice', '--wait', 'say', 'hello']);
    expect(second).toMatchObject({ code: 0, out: 'done: say hello\n' });
    expect(callsFor('say hello')).toBe(1);
    const shown = await runCli(['task', 'show', '--config', 'agent.yaml', 'twice']);
    expect(shown.out).toMatch(/State: +completed/u);
  }, 120_000);

  it('drains with a job in flight and loses nothing', async () => {
    const a = startWorker();
    await pulling(1, [a]);
    const before = toolCalls().length;
    const prompt = 'work 2 while draining';
    await publish({ id: 'drained-1', prompt });
    await untilToolCalls(before + 1);
    a.child.kill('SIGINT');
    expect(await a.exited).toBe(0);
    expect(await task('drained-1')).toMatchObject({ state: 'completed', answer: `done: ${prompt}` });
    expect(callsFor(prompt)).toBe(2);
    const ci = await jsm.consumers.info('JOBS', 'workers');
    expect(ci.num_ack_pending + ci.num_pending).toBe(0);
  }, 120_000);

  it('keeps working across a nats-server restart', async () => {
    const a = startWorker();
    await pulling(1, [a]);
    // the test's own connection to the same server sees it go, as the worker's does
    let down = false;
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type !== 'disconnect') continue;
        down = true;
        return;
      }
    })();
    await nats.kill();
    await eventually(() => down, 'the connection to see the server go');
    await nats.restart();
    await eventually(
      async () => {
        await publish({ id: 'restarted-1', prompt: 'after the restart' });
        return true;
      },
      'a publish to succeed after the restart',
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(await task('restarted-1')).toMatchObject({ state: 'completed', answer: 'done: after the restart' });
    expect(a.child.exitCode).toBeNull();
  }, 120_000);
});
