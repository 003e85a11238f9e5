/**
 * `fisk serve` as an operator sees it, from the built CLI on a private nats-server: log lines in
 * text and JSON carry the time, the worker id, the job id and a failure's reason; the health
 * endpoint answers `/healthz` and `/readyz` while serving and while draining; the served work's
 * metrics arrive at an OTLP receiver.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AckPolicy, DiscardPolicy, RetentionPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { JetStreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { anthropicError, anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer, ReceivedRequest } from '../../src/agenttest/fake-model-server.js';
import { freePort, startNatsServer } from '../../src/agenttest/nats-server.js';
import type { NatsServer } from '../../src/agenttest/nats-server.js';
import { startOtlpReceiver } from '../../src/agenttest/otlp-receiver.js';
import type { OtlpReceiver } from '../../src/agenttest/otlp-receiver.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'bin', 'fisk.cjs');
const app = join(root, 'test', 'fixtures', 'job-app.mjs');
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/u;

let nats: NatsServer;
let nc: NatsConnection;
let jsm: JetStreamManager;
let fake: FakeModelServer;
let otlp: OtlpReceiver;
let home: string;
let workDir: string;
const children: ChildProcess[] = [];

function promptOf(req: ReceivedRequest): string {
  const body = req.body as { messages?: { content: unknown }[] } | undefined;
  const first = body?.messages?.[0]?.content;
  return typeof first === 'string' ? first : ((first as { text?: string }[] | undefined)?.[0]?.text ?? '');
}

/** "fail ..." is refused by the model service for good; "work N ..." runs the tool N seconds first. */
function model(req: ReceivedRequest) {
  const body = req.body as { messages: { content: unknown }[] };
  const prompt = promptOf(req);
  if (prompt.startsWith('fail')) return anthropicError(400, 'invalid_request_error', 'prompt is too long for this model');
  const last = body.messages[body.messages.length - 1];
  const answered = Array.isArray(last?.content) && (last.content as { type: string }[]).some((b) => b.type === 'tool_result');
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

function agentYaml(healthPort: number, telemetry: boolean): string {
  return [
    'identity: operated',
    `application_path: ${app}`,
    'nats_context: js',
    'system_prompt: You do the work you are asked to.',
    'llm:',
    '  model: claude-sonnet-4-6',
    '  no_tool_search: true',
    'harness:',
    '  sessions: {backend: jetstream, options: {stream: OPRUNS}}',
    'expose:',
    '  agent:',
    '    jobs: {stream: OPJOBS, consumer: workers}',
    `    health: {port: ${healthPort}}`,
    'tasks: {backend: jetstream, options: {bucket: OPTASKS}}',
    ...(telemetry ? ['telemetry:', '  enabled: true', `  endpoint: ${otlp.url}`, '  protocol: http/json'] : []),
    '',
  ].join('\n');
}

beforeAll(async () => {
  if (!existsSync(cli)) spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  jsm = await jetstreamManager(nc);
  home = mkdtempSync(join(tmpdir(), 'fisk-operate-'));
  workDir = join(home, 'work');
  mkdirSync(workDir);
  mkdirSync(join(home, 'nats', 'context'), { recursive: true });
  writeFileSync(join(home, 'nats', 'context', 'js.json'), JSON.stringify({ url: nats.url }));
  await jsm.streams.add({ name: 'OPJOBS', subjects: ['fisk.jobs.OPJOBS'], retention: RetentionPolicy.Workqueue });
  await jsm.consumers.add('OPJOBS', { durable_name: 'workers', ack_policy: AckPolicy.Explicit, ack_wait: 5_000_000_000 });
  await jsm.streams.add({
    name: 'OPRUNS',
    subjects: ['fisk.sessions.>'],
    max_msgs_per_subject: 1,
    discard: DiscardPolicy.New,
    discard_new_per_subject: true,
  });
  await new Kvm(nc).create('OPTASKS', { history: 1 });
  fake = await startFakeModelServer({ fallback: model });
  otlp = await startOtlpReceiver();
}, 180_000);

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

afterAll(async () => {
  await fake.close();
  await otlp.close();
  await nc.close();
  await nats.stop();
  rmSync(home, { recursive: true, force: true });
});

interface Worker {
  readonly child: ChildProcess;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

function startWorker(config: string, extra: readonly string[]): Worker {
  const child = spawn(
    process.execPath,
    [cli, 'serve', '--config', config, '--work-dir', workDir, '--base-url', fake.url, '--api-key', 'k', ...extra],
    {
      cwd: home,
      env: env(),
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  children.push(child);
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, stderr: () => err, exited };
}

async function task(id: string): Promise<Record<string, unknown>> {
  const kv = await new Kvm(nc).open('OPTASKS');
  let last: unknown;
  await vi.waitFor(
    async () => {
      const e = await kv.get(id);
      last = e?.operation === 'PUT' ? e.json<Record<string, unknown>>() : undefined;
      const state = (last as Record<string, unknown> | undefined)?.['state'];
      if (state !== 'completed' && state !== 'failed' && state !== 'dead') throw new Error(`task ${id} got no result (${String(state)})`);
    },
    { timeout: 60_000, interval: 100 },
  );
  return last as Record<string, unknown>;
}

async function probe(url: string): Promise<{ status: number; body: { status?: string; reasons?: string[] } }> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as { status?: string; reasons?: string[] } };
}

const publish = (job: object): Promise<unknown> => jetstream(nc).publish('fisk.jobs.OPJOBS', JSON.stringify(job));

describe('fisk serve for an operator', () => {
  it('logs JSON lines with time, worker, job and reason; answers health probes through a drain; exports the served work as metrics', async () => {
    const port = await freePort();
    const config = join(home, 'json.yaml');
    writeFileSync(config, agentYaml(port, true));
    const served = startWorker(config, ['--log-format', 'json', '--verbose']);
    const health = `http://127.0.0.1:${port}`;
    await vi.waitFor(async () => expect(await probe(`${health}/readyz`)).toEqual({ status: 200, body: { status: 'ready' } }), {
      timeout: 30_000,
      interval: 100,
    });
    expect(await probe(`${health}/healthz`)).toEqual({ status: 200, body: { status: 'alive' } });

    await publish({ id: 'json-ok', prompt: 'say hello' });
    await publish({ id: 'json-fail', prompt: 'fail this one' });
    expect(await task('json-ok')).toMatchObject({ state: 'completed' });
    expect(await task('json-fail')).toMatchObject({ state: 'failed', reason: 'error' });

    // a job in flight holds the drain open: the worker is alive and not ready meanwhile
    await publish({ id: 'json-slow', prompt: 'work 3 slowly' });
    await vi.waitFor(() => expect(served.stderr()).toContain('"job":"json-slow"'), { timeout: 30_000, interval: 50 });
    served.child.kill('SIGINT');
    await vi.waitFor(
      async () => expect(await probe(`${health}/readyz`)).toEqual({ status: 503, body: { status: 'not ready', reasons: ['draining'] } }),
      { timeout: 10_000, interval: 50 },
    );
    expect((await probe(`${health}/healthz`)).status).toBe(200);
    expect(await served.exited).toBe(0);
    expect(await task('json-slow')).toMatchObject({ state: 'completed' });

    const lines = served.stderr().trim().split('\n');
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const workerId = `${hostname()}:${served.child.pid}`;
    for (const record of records) {
      expect(record['time']).toMatch(ISO);
      expect(record['worker']).toBe(workerId);
      expect(typeof record['event']).toBe('string');
    }
    const banner = records.find((r) => r['event'] === 'serving');
    expect(banner).toMatchObject({
      identity: 'operated',
      version: '1.0.0',
      nats_context: 'js',
      health: health,
      channels: [{ name: 'jobs', slots: 1, stream: 'OPJOBS', consumer: 'workers' }],
    });
    const failed = records.find((r) => r['event'] === 'ended' && r['job'] === 'json-fail');
    expect(failed).toMatchObject({ level: 'warn', outcome: 'failed', session: expect.stringMatching(/^job-[0-9a-f]{32}$/u) as unknown });
    expect(failed?.['reason']).toContain('prompt is too long for this model');
    expect(records.find((r) => r['event'] === 'ended' && r['job'] === 'json-ok')).toMatchObject({
      outcome: 'completed',
      duration_ms: expect.any(Number) as unknown,
    });
    expect(records.find((r) => r['event'] === 'started' && r['job'] === 'json-slow')).toBeDefined();

    // the metrics are pushed when the worker stops
    const metric = (name: string) => otlp.metrics.filter((m) => m.name === name);
    const outcomes = metric('fisk.serve.work').flatMap((m) =>
      m.points.map((p) => [p.attributes['fisk.serve.outcome'], p.attributes['fisk.serve.channel'], p.value]),
    );
    expect(outcomes).toEqual(
      expect.arrayContaining([
        ['completed', 'jobs', 2],
        ['failed', 'jobs', 1],
      ]),
    );
    const lag = metric('fisk.serve.queue.lag').flatMap((m) => m.points);
    expect(lag.reduce((n, p) => n + (p.count ?? 0), 0)).toBe(3);
    // every run that started has ended
    expect(metric('fisk.serve.in_flight').flatMap((m) => m.points.map((p) => p.value))).toEqual([0]);
    expect(metric('fisk.serve.in_flight')[0]?.type).toBe('sum');
  }, 120_000);

  it('logs text lines stamped with the time and worker id, naming the job and the reason it failed', async () => {
    const port = await freePort();
    const config = join(home, 'text.yaml');
    writeFileSync(config, agentYaml(port, false));
    const w = startWorker(config, []);
    await vi.waitFor(() => expect(w.stderr()).toContain('Press Ctrl-C to stop'), { timeout: 30_000, interval: 50 });
    await publish({ id: 'text-fail', prompt: 'fail in text' });
    expect(await task('text-fail')).toMatchObject({ state: 'failed' });
    const worker = `${hostname()}:${w.child.pid}`;
    await vi.waitFor(() => expect(w.stderr()).toContain('ended job text-fail'), { timeout: 30_000, interval: 50 });
    w.child.kill('SIGINT');
    expect(await w.exited).toBe(0);
    const lines = w.stderr().trim().split('\n');
    for (const l of lines) expect(l.startsWith(`${l.slice(0, 24)} ${worker} `) && ISO.test(l.slice(0, 24))).toBe(true);
    expect(lines[0]).toMatch(
      new RegExp(`Agent operated 1\\.0\\.0 \\(fisk-ai \\S+\\) on NATS context js as worker ${worker.replace(/[.]/gu, '\\.')}$`, 'u'),
    );
    expect(w.stderr()).toContain(`  Health:    http://127.0.0.1:${port}/healthz (alive), http://127.0.0.1:${port}/readyz (taking work)`);
    const ended = lines.find((l) => l.includes('ended job text-fail'));
    expect(ended).toMatch(/ warning: ended job text-fail: failed in \d+ ms: error: .*prompt is too long for this model/u);
    // without --verbose a job that completes is not logged, one that fails is
    expect(lines.some((l) => l.includes('started job'))).toBe(false);
  }, 120_000);

  it('refuses a health port that is taken, naming the key, before serving anything', async () => {
    const blocker = await import('node:net').then(({ createServer }) => createServer());
    const port = await new Promise<number>((r) => blocker.listen(0, '127.0.0.1', () => r((blocker.address() as { port: number }).port)));
    try {
      const config = join(home, 'taken.yaml');
      writeFileSync(config, agentYaml(port, false));
      const w = startWorker(config, []);
      expect(await w.exited).toBe(3);
      expect(w.stderr()).toContain(
        `expose.agent.health: cannot listen on 127.0.0.1:${port} (the port is taken); set expose.agent.health.port`,
      );
      expect(w.stderr()).not.toContain('Press Ctrl-C');
    } finally {
      blocker.close();
    }
  }, 60_000);

  it('refuses a bad --log-format by name', async () => {
    const w = startWorker(join(home, 'text.yaml'), ['--log-format', 'xml']);
    expect(await w.exited).toBe(2);
    expect(w.stderr()).toContain('--log-format "xml" is not a log format; use text (the default) or json');
  }, 30_000);
});
