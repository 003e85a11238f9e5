/**
 * `fisk provision` from the built CLI on a private single nats-server: it creates every stream,
 * consumer and bucket the configuration names with the replicas asked for, finds them in order
 * the second time, reports what differs in one it did not make without changing it, and refuses
 * what JetStream cannot place. A worker on a server on its own does not warn about one replica.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RetentionPolicy, jetstreamManager } from '@nats-io/jetstream';
import type { JetStreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer } from '../../src/agenttest/nats-server.js';
import type { NatsServer } from '../../src/agenttest/nats-server.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'bin', 'fisk.cjs');

let nats: NatsServer;
let nc: NatsConnection;
let jsm: JetStreamManager;
let home: string;

const env = (): NodeJS.ProcessEnv => ({
  PATH: process.env['PATH'],
  HOME: home,
  XDG_CONFIG_HOME: home,
  XDG_STATE_HOME: join(home, 'state'),
});

function yaml(prefix: string): string {
  return [
    `identity: ${prefix.toLowerCase()}-agent`,
    'nats_context: js',
    'system_prompt: You provision.',
    'llm: {model: claude-sonnet-4-6}',
    'harness:',
    `  sessions: {backend: jetstream, options: {stream: ${prefix}_RUNS}}`,
    `  memory: {enabled: true, backend: jetstream, options: {bucket: ${prefix}_MEM}}`,
    'expose:',
    '  agent:',
    `    jobs: {stream: ${prefix}_JOBS, consumer: workers}`,
    `tasks: {backend: jetstream, options: {bucket: ${prefix}_TASKS}}`,
    '',
  ].join('\n');
}

function write(name: string, text: string): string {
  const path = join(home, name);
  writeFileSync(path, text);
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

beforeAll(async () => {
  if (!existsSync(cli)) spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  jsm = await jetstreamManager(nc);
  home = mkdtempSync(join(tmpdir(), 'fisk-provision-'));
  mkdirSync(join(home, 'nats', 'context'), { recursive: true });
  writeFileSync(join(home, 'nats', 'context', 'js.json'), JSON.stringify({ url: nats.url }));
}, 120_000);

afterAll(async () => {
  await nc.close();
  await nats.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('fisk provision on a server on its own', () => {
  it('creates every stream, consumer and bucket the configuration names, then finds them in order', async () => {
    const config = write('a.yaml', yaml('A'));
    const first = await fisk(['provision', '--config', config]);
    expect(first.code, first.err).toBe(0);
    expect(first.out.trim().split('\n')).toEqual([
      'created  jobs stream A_JOBS (expose.agent.jobs.stream, R1)',
      'created  jobs consumer workers on A_JOBS (expose.agent.jobs.consumer, R1)',
      'created  session stream A_RUNS (harness.sessions.options.stream, R1)',
      'created  task bucket A_TASKS (tasks.options.bucket, R1)',
      'created  memory bucket A_MEM (harness.memory.options.bucket, R1)',
    ]);
    const jobs = await jsm.streams.info('A_JOBS');
    expect(jobs.config).toMatchObject({ retention: RetentionPolicy.Workqueue, num_replicas: 1, subjects: ['fisk.jobs.A_JOBS'] });
    const consumer = await jsm.consumers.info('A_JOBS', 'workers');
    expect(consumer.config).toMatchObject({ ack_policy: 'explicit', durable_name: 'workers', max_deliver: -1 });
    expect((await jsm.streams.info('KV_A_TASKS')).config.num_replicas).toBe(1);

    const second = await fisk(['provision', '--config', config]);
    expect(second.code, second.err).toBe(0);
    expect(
      second.out
        .trim()
        .split('\n')
        .every((l) => l.startsWith('ok       ')),
    ).toBe(true);

    // what was made is what the binders accept: fisk info and fisk task ls open them without complaint
    const ls = await fisk(['task', 'ls', '--config', config]);
    expect(ls.code, ls.err).toBe(0);
    // every session stream takes fisk.sessions.>: the next configurations bring their own
    await jsm.streams.delete('A_RUNS');
  }, 60_000);

  it('reports how an existing stream differs and changes nothing, ending with status 1', async () => {
    await jsm.streams.add({ name: 'B_JOBS', subjects: ['fisk.jobs.B_JOBS'], retention: RetentionPolicy.Limits });
    const config = write('b.yaml', yaml('B'));
    const r = await fisk(['provision', '--config', config]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('differs  jobs stream B_JOBS (expose.agent.jobs.stream, R1): its retention is limits, not workqueue');
    // the rest is still made
    expect(r.out).toContain('created  task bucket B_TASKS');
    expect(r.err).toContain('1 of 5 already exists and differs from what fisk-ai needs; fisk provision never changes an existing one');
    expect((await jsm.streams.info('B_JOBS')).config.retention).toBe(RetentionPolicy.Limits);
    await jsm.streams.delete('B_RUNS');
  }, 60_000);

  it('refuses more replicas than a server on its own can place, and a count that is not one', async () => {
    const config = write('c.yaml', yaml('C'));
    const three = await fisk(['provision', '--config', config, '--replicas', '3']);
    expect(three.code).toBe(1);
    expect(three.err).toMatch(/cannot provision on NATS context js: .*replicas/iu);
    const zero = await fisk(['provision', '--config', config, '--replicas', '0']);
    expect(zero.code).toBe(2);
    expect(zero.err).toContain('--replicas "0" is not a replica count; pass 1 to 5');
  }, 60_000);

  it('says when the configuration names nothing on JetStream', async () => {
    const config = write('d.yaml', 'identity: plain\nsystem_prompt: p\nllm: {model: m}\n');
    const r = await fisk(['provision', '--config', config]);
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toContain('names nothing on JetStream to provision');
  }, 30_000);

  it('prints provisioning commands with the replica count when a stream is missing', async () => {
    const config = write('e.yaml', yaml('E'));
    const r = await fisk(['serve', '--config', config, '--api-key', 'k']);
    expect(r.code).toBe(3);
    expect(r.err).toContain(
      "Create it with: nats stream add E_RUNS --subjects 'fisk.sessions.>' --storage file --retention limits --discard new --discard-per-subject --max-msgs-per-subject 1 --max-age 0 --replicas 1 --defaults --context js",
    );
    await fisk(['provision', '--config', config]);
    await jsm.streams.delete('E_JOBS');
    const jobs = await fisk(['serve', '--config', config, '--api-key', 'k']);
    expect(jobs.code).toBe(3);
    expect(jobs.err).toContain(
      "Create it with: nats stream add E_JOBS --subjects 'fisk.jobs.E_JOBS' --retention work --storage file --discard old --replicas 1 --defaults --context js",
    );
  }, 30_000);
});
