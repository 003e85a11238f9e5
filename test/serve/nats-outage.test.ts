/**
 * `fisk serve` taking jobs when its NATS server goes away, from the built CLI on a private
 * nats-server, as an operator watching its log meets it: the drop and the return are told, a job
 * queued after the return runs, and a server that refuses the worker's credentials when it comes
 * back (they were rotated) stops the worker with a non-zero status and the reason, instead of
 * leaving it to exit 0 without a word once the client gives up.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AckPolicy, RetentionPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { anthropicText } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../src/agenttest/fake-model-server.js';
import { startNatsServer } from '../../src/agenttest/nats-server.js';
import type { NatsServer } from '../../src/agenttest/nats-server.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'bin', 'fisk.cjs');

let nats: NatsServer;
let fake: FakeModelServer;
let home: string;
let tasks: string;
let config: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!existsSync(cli)) spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  // a configuration file of its own, so the server can come back with another one
  nats = await startNatsServer({ config: '# open to every client\n' });
  const nc = await connect({ servers: nats.url });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: 'OJOBS', subjects: ['fisk.jobs.OJOBS'], retention: RetentionPolicy.Workqueue });
  await jsm.consumers.add('OJOBS', { durable_name: 'workers', ack_policy: AckPolicy.Explicit, ack_wait: 10_000_000_000 });
  await nc.close();
  home = mkdtempSync(join(tmpdir(), 'fisk-nats-outage-'));
  mkdirSync(join(home, 'nats', 'context'), { recursive: true });
  writeFileSync(join(home, 'nats', 'context', 'js.json'), JSON.stringify({ url: nats.url }));
  fake = await startFakeModelServer({ fallback: () => anthropicText('done') });
  tasks = join(home, 'state', 'tasks');
  config = join(home, 'agent.yaml');
  writeFileSync(
    config,
    [
      'identity: outage',
      'nats_context: js',
      'system_prompt: You answer.',
      'llm: {model: claude-sonnet-4-6, no_tool_search: true}',
      `harness: {sessions: {backend: file, options: {directory: ${join(home, 'state', 'runs')}}}}`,
      'expose: {agent: {jobs: {stream: OJOBS, consumer: workers}}}',
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
  await nats.stop();
  rmSync(home, { recursive: true, force: true });
});

async function runJob(id: string): Promise<void> {
  const nc = await connect({ servers: nats.url });
  try {
    await jetstream(nc).publish('fisk.jobs.OJOBS', JSON.stringify({ id, prompt: `job ${id}` }));
  } finally {
    await nc.close();
  }
  await vi.waitFor(
    () => {
      const path = join(tasks, `${id}.result.json`);
      if (!existsSync(path)) throw new Error(`no result for ${id} yet`);
      expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ id, state: 'completed', answer: 'done' });
    },
    { timeout: 30_000, interval: 50 },
  );
}

describe('fisk serve when NATS goes away', () => {
  it('says when the connection drops and when it is back, runs the jobs queued after, and stops non-zero when the server then refuses it', async () => {
    const child = spawn(process.execPath, [cli, 'serve', '--config', config, '--base-url', fake.url, '--api-key', 'k'], {
      cwd: home,
      env: { PATH: process.env['PATH'], HOME: home, XDG_CONFIG_HOME: home, XDG_STATE_HOME: join(home, 'state') },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let err = '';
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await runJob('before');

    await nats.kill();
    await vi.waitFor(() => expect(err).toContain('warning: lost the NATS connection (context js, 127.0.0.1:'), {
      timeout: 15_000,
      interval: 50,
    });
    expect(err).toContain('reconnecting, and nothing is taken from NATS until it is back');
    await nats.restart();
    await vi.waitFor(() => expect(err).toMatch(/reconnected to NATS \(context js, 127\.0\.0\.1:\d+\) after \d+\.\d s/u), {
      timeout: 15_000,
      interval: 50,
    });
    await runJob('after');

    // the credentials were rotated while the worker ran: it cannot serve, and says so
    await nats.kill();
    writeFileSync(join(nats.storeDir, 'nats-server.conf'), 'authorization { token: "rotated" }\n');
    await nats.restart();
    expect(await exited).toBe(1);
    expect(err).toMatch(
      /fisk serve stopped: the NATS connection \(context js\) closed: [^\n]*Authorization Violation[^\n]*, so nothing more can be served; check the server and the context's credentials, then start it again/iu,
    );
  }, 90_000);
});
