import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../src/agenttest/fake-model-server.js';
import { startNatsServer } from '../../src/agenttest/nats-server.js';
import type { NatsServer } from '../../src/agenttest/nats-server.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { runCli } from '../../src/cli/program.js';
import { captureIo } from '../../src/cli/test-io.js';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/fisk-app.mjs');

let server: NatsServer;
let nc: NatsConnection;
let fake: FakeModelServer;
let dir: string;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  await new Kvm(nc).create('agent-memory');
  fake = await startFakeModelServer();
  dir = mkdtempSync(join(tmpdir(), 'fisk-js-run-'));
  mkdirSync(join(dir, 'xdg', 'nats', 'context'), { recursive: true });
  writeFileSync(join(dir, 'xdg', 'nats', 'context', 'local.json'), JSON.stringify({ url: server.url }));
});
afterAll(async () => {
  await nc.close();
  await fake.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

function agent(memory: string): string {
  const path = join(dir, 'agent.yaml');
  writeFileSync(
    path,
    `identity: runner
application_path: ${FIXTURE}
system_prompt: You remember things.
nats_context: local
llm:
  model: claude-fake-1
harness:
  memory:
${memory}`,
  );
  return path;
}

async function run(config: string): Promise<{ code: number; err: string }> {
  const io = captureIo({ PATH: process.env['PATH'], HOME: dir, XDG_CONFIG_HOME: join(dir, 'xdg') }, dir);
  const code = await runCli(['run', '--config', agent(config), '--base-url', fake.url, '--api-key', 'k', 'remember'], io);
  return { code, err: io.stderr() };
}

describe('fisk run with JetStream memory', () => {
  it('connects through nats_context and writes into the bucket', async () => {
    fake.reply(
      anthropicToolUse([
        {
          id: 'toolu_1',
          name: 'memory_write',
          input: { key: 'deploy.window', description: 'When deploys may run', content: 'Tuesdays after 10:00.' },
        },
      ]),
      anthropicText('Saved.'),
    );
    const r = await run('    enabled: true\n    backend: jetstream\n    options: {bucket: agent-memory}\n');
    expect(r.err).not.toMatch(/error/i);
    expect(r.code).toBe(EXIT.ok);
    const kv = await new Kvm(nc).open('agent-memory');
    const entry = await kv.get('runner.deploy.window');
    expect(entry?.string()).toContain('Tuesdays after 10:00.');
  });

  it('refuses a bucket that does not exist, before the model is contacted', async () => {
    const before = fake.requests.length;
    const r = await run('    enabled: true\n    backend: jetstream\n    options: {bucket: missing-bucket}\n');
    expect(r.code).not.toBe(EXIT.ok);
    expect(r.err).toContain('nats kv add');
    expect(fake.requests.length).toBe(before);
  });
});
