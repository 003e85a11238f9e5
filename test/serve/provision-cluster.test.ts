/**
 * Replicas on a real three-node JetStream cluster, from the built CLI: `fisk provision
 * --replicas 3` makes every stream and bucket R3 (and 3 is the default on a cluster), the
 * commands printed for what is missing say `--replicas 3`, and a worker binding an R1 stream warns
 * at start.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AckPolicy, RetentionPolicy, jetstreamManager } from '@nats-io/jetstream';
import type { JetStreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startNatsCluster } from '../../src/agenttest/nats-cluster.js';
import type { NatsCluster } from '../../src/agenttest/nats-cluster.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'bin', 'fisk.cjs');

let cluster: NatsCluster;
let nc: NatsConnection;
let jsm: JetStreamManager;
let home: string;
const children: ChildProcess[] = [];

const env = (): NodeJS.ProcessEnv => ({
  PATH: process.env['PATH'],
  HOME: home,
  XDG_CONFIG_HOME: home,
  XDG_STATE_HOME: join(home, 'state'),
});

function write(name: string, lines: readonly string[]): string {
  const path = join(home, name);
  writeFileSync(path, [...lines, ''].join('\n'));
  return path;
}

function fisk(args: readonly string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: home, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => res({ code, out, err }));
  });
}

const base = (identity: string): string[] => [
  `identity: ${identity}`,
  'nats_context: cl',
  'system_prompt: You work.',
  'llm: {model: claude-sonnet-4-6}',
];

beforeAll(async () => {
  if (!existsSync(cli)) spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  cluster = await startNatsCluster();
  nc = await connect({ servers: cluster.url.split(',') });
  jsm = await jetstreamManager(nc);
  home = mkdtempSync(join(tmpdir(), 'fisk-provision-cluster-'));
  mkdirSync(join(home, 'nats', 'context'), { recursive: true });
  writeFileSync(join(home, 'nats', 'context', 'cl.json'), JSON.stringify({ url: cluster.url }));
}, 180_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await nc?.close();
  await cluster?.stop();
  if (home !== undefined) rmSync(home, { recursive: true, force: true });
});

describe('replicas on a three-node cluster', () => {
  it('fisk provision --replicas 3 makes every stream and bucket R3', async () => {
    const config = write('r3.yaml', [
      ...base('r3'),
      'harness:',
      '  sessions: {backend: jetstream, options: {stream: R3_RUNS}}',
      '  memory: {enabled: true, backend: jetstream, options: {bucket: R3_MEM}}',
      'expose: {agent: {jobs: {stream: R3_JOBS, consumer: workers}}}',
      'tasks: {backend: jetstream, options: {bucket: R3_TASKS}}',
    ]);
    const r = await fisk(['provision', '--config', config, '--replicas', '3']);
    expect(r.code, r.err).toBe(0);
    expect(r.out.trim().split('\n')).toEqual([
      'created  jobs stream R3_JOBS (expose.agent.jobs.stream, R3)',
      'created  jobs consumer workers on R3_JOBS (expose.agent.jobs.consumer, R3)',
      'created  session stream R3_RUNS (harness.sessions.options.stream, R3)',
      'created  task bucket R3_TASKS (tasks.options.bucket, R3)',
      'created  memory bucket R3_MEM (harness.memory.options.bucket, R3)',
    ]);
    for (const stream of ['R3_JOBS', 'R3_RUNS', 'KV_R3_TASKS', 'KV_R3_MEM'])
      expect((await jsm.streams.info(stream)).config.num_replicas, stream).toBe(3);
    expect((await jsm.consumers.info('R3_JOBS', 'workers')).config.num_replicas).toBe(3);
    // found as made the second time, by default with the cluster's three
    const again = await fisk(['provision', '--config', config]);
    expect(again.code, again.err).toBe(0);
    expect(again.out).not.toContain('created');
  }, 120_000);

  it('prints --replicas 3 for what is missing, and a worker binding an R1 stream warns at start', async () => {
    const config = write('r1.yaml', [
      ...base('r1'),
      'expose: {agent: {jobs: {stream: R1_JOBS, consumer: workers}}}',
      'tasks: {backend: file}',
    ]);
    const missing = await fisk(['serve', '--config', config, '--api-key', 'k']);
    expect(missing.code).toBe(3);
    expect(missing.err).toContain(
      "Create it with: nats stream add R1_JOBS --subjects 'fisk.jobs.R1_JOBS' --retention work --storage file --discard old --replicas 3 --defaults --context cl",
    );

    await jsm.streams.add({ name: 'R1_JOBS', subjects: ['fisk.jobs.R1_JOBS'], retention: RetentionPolicy.Workqueue, num_replicas: 1 });
    await jsm.consumers.add('R1_JOBS', { durable_name: 'workers', ack_policy: AckPolicy.Explicit });
    const child = spawn(process.execPath, [cli, 'serve', '--config', config, '--api-key', 'k', '--state-dir', join(home, 'r1-state')], {
      cwd: home,
      env: env(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await vi.waitFor(() => expect(err).toContain('Press Ctrl-C to stop'), { timeout: 60_000, interval: 100 });
    expect(err).toMatch(
      /warning: expose\.agent\.jobs\.stream: jobs stream R1_JOBS has one replica on a clustered server \(cluster \S+\): losing the node that holds it loses it; recreate it with --replicas 3/u,
    );
    child.kill('SIGINT');
    expect(await exited).toBe(0);

    // fisk provision says so too, and changes nothing
    const check = await fisk(['provision', '--config', config]);
    expect(check.code).toBe(1);
    expect(check.out).toContain('differs  jobs stream R1_JOBS (expose.agent.jobs.stream, R1): it has 1 replica, not 3');
    expect((await jsm.streams.info('R1_JOBS')).config.num_replicas).toBe(1);
  }, 180_000);
});
