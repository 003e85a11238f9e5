/**
 * `fisk serve` taking jobs with the file task store and file sessions, from the built CLI on a
 * private nats-server, as an operator would find its state directory: while it serves, the only
 * files beside the records are the few spares the stores keep ready; a worker that stops cleanly
 * leaves records alone; one killed with SIGKILL leaves its spares, and the next worker to make
 * spares in the directories removes them once they are a minute old.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AckPolicy, RetentionPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { anthropicText } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../src/agenttest/fake-model-server.js';
import { startNatsServer } from '../../src/agenttest/nats-server.js';
import type { NatsServer } from '../../src/agenttest/nats-server.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'bin', 'fisk.cjs');

let nats: NatsServer;
let nc: NatsConnection;
let fake: FakeModelServer;
let home: string;
let runs: string;
let tasks: string;
let config: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!existsSync(cli)) spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  const jsm = await jetstreamManager(nc);
  home = mkdtempSync(join(tmpdir(), 'fisk-jobs-files-'));
  mkdirSync(join(home, 'nats', 'context'), { recursive: true });
  writeFileSync(join(home, 'nats', 'context', 'js.json'), JSON.stringify({ url: nats.url }));
  await jsm.streams.add({ name: 'FJOBS', subjects: ['fisk.jobs.FJOBS'], retention: RetentionPolicy.Workqueue });
  await jsm.consumers.add('FJOBS', { durable_name: 'workers', ack_policy: AckPolicy.Explicit, ack_wait: 10_000_000_000 });
  fake = await startFakeModelServer({ fallback: () => anthropicText('done') });
  runs = join(home, 'state', 'runs');
  tasks = join(home, 'state', 'tasks');
  config = join(home, 'agent.yaml');
  writeFileSync(
    config,
    [
      'identity: filed',
      'nats_context: js',
      'system_prompt: You answer.',
      'llm: {model: claude-sonnet-4-6, no_tool_search: true}',
      `harness: {sessions: {backend: file, options: {directory: ${runs}}}}`,
      'expose: {agent: {jobs: {stream: FJOBS, consumer: workers}}}',
      `tasks: {backend: file, options: {directory: ${tasks}}}`,
      '',
    ].join('\n'),
  );
}, 180_000);

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

afterAll(async () => {
  await fake.close();
  await nc.close();
  await nats.stop();
  rmSync(home, { recursive: true, force: true });
});

function startWorker(): { child: ChildProcess; exited: Promise<number | null>; stderr: () => string } {
  const child = spawn(process.execPath, [cli, 'serve', '--config', config, '--base-url', fake.url, '--api-key', 'k'], {
    cwd: home,
    env: { PATH: process.env['PATH'], HOME: home, XDG_CONFIG_HOME: home, XDG_STATE_HOME: join(home, 'state') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, exited, stderr: () => err };
}

const spares = (dir: string): string[] => readdirSync(dir).filter((n) => n.startsWith('.spare-'));
const others = (dir: string): string[] => readdirSync(dir).filter((n) => !/^[^.][^/]*\.json$/u.test(n));

async function runJobs(ids: readonly string[]): Promise<void> {
  for (const id of ids) await jetstream(nc).publish('fisk.jobs.FJOBS', JSON.stringify({ id, prompt: `job ${id}` }));
  await vi.waitFor(
    () => {
      for (const id of ids) {
        const path = join(tasks, `${id}.result.json`);
        if (!existsSync(path)) throw new Error(`no result for ${id} yet`);
        expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ id, state: 'completed', answer: 'done' });
      }
    },
    { timeout: 60_000, interval: 50 },
  );
}

describe('fisk serve with the file stores', () => {
  it('keeps a few spare files while it serves, removes them when it stops, and cleans up after a killed worker', async () => {
    const first = startWorker();
    await runJobs(['a1', 'a2', 'a3']);
    // serving: spares wait beside the records, a few per directory (three and two, and one more
    // on disk while it is being made), never one per job
    await vi.waitFor(() => expect(spares(tasks).length).toBeGreaterThan(0), { timeout: 10_000, interval: 20 });
    expect(spares(tasks).length).toBeLessThanOrEqual(4);
    expect(spares(runs).length).toBeLessThanOrEqual(3);
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(others(tasks)).toEqual([]);
    expect(others(runs)).toEqual([]);
    expect(readdirSync(runs).sort()).toHaveLength(3);

    // killed outright, a worker leaves its spares: nothing else, no lock file, no half record
    const killed = startWorker();
    await runJobs(['b1', 'b2']);
    await vi.waitFor(() => expect(spares(tasks).length).toBeGreaterThan(0), { timeout: 10_000, interval: 20 });
    await vi.waitFor(() => expect(spares(runs).length).toBeGreaterThan(0), { timeout: 10_000, interval: 20 });
    killed.child.kill('SIGKILL');
    await killed.exited;
    const left = [...spares(tasks).map((n) => join(tasks, n)), ...spares(runs).map((n) => join(runs, n))];
    expect(left.length).toBeGreaterThan(0);
    expect([...others(tasks), ...others(runs)].every((n) => n.startsWith('.spare-'))).toBe(true);

    // once they are a minute old and nobody holds them, the next worker to make spares removes them
    const past = new Date(Date.now() - 120_000);
    for (const path of left) utimesSync(path, past, past);
    const next = startWorker();
    await runJobs(['c1', 'c2']);
    await vi.waitFor(() => expect(left.filter((path) => existsSync(path))).toEqual([]), { timeout: 10_000, interval: 20 });
    next.child.kill('SIGINT');
    expect(await next.exited, next.stderr()).toBe(0);
    expect(others(tasks)).toEqual([]);
    expect(others(runs)).toEqual([]);
  }, 120_000);

  it('removes the spares of a pool nobody closed when its process exits', () => {
    const dir = mkdtempSync(join(home, 'exit-'));
    const pool = pathToFileURL(join(root, 'dist', 'util', 'spare-files.js')).href;
    const script = [
      `import { SpareFiles, discard } from ${JSON.stringify(pool)};`,
      'const spares = new SpareFiles(process.argv[1], () => true, 2);',
      'for (let i = 0; i < 3; i++) spares.take();',
      // once one is ready it is taken and removed (a taken spare is its taker's), the pool
      // refills, and the process exits without closing it
      'const wait = () => { const s = spares.take(); if (s === undefined) return setTimeout(wait, 5); discard(s); setTimeout(() => process.exit(0), 200); };',
      'wait();',
    ].join('\n');
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script, dir], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });
});
