import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer } from '../../src/agenttest/nats-server.js';
import type { NatsServer } from '../../src/agenttest/nats-server.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { runCli } from '../../src/cli/program.js';
import { captureIo } from '../../src/cli/test-io.js';
import type { CapturedIo } from '../../src/cli/test-io.js';
import { openMemoryStore } from '../../src/memory/index.js';
import type { Store } from '../../src/memory/index.js';

const BACKENDS = ['file', 'jetstream'] as const;

let server: NatsServer;
let nc: NatsConnection;
let dir: string;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  await new Kvm(nc).create('agent-memory');
  dir = mkdtempSync(join(tmpdir(), 'fisk-memory-cli-'));
  mkdirSync(join(dir, 'xdg', 'nats', 'context'), { recursive: true });
  writeFileSync(join(dir, 'xdg', 'nats', 'context', 'local.json'), JSON.stringify({ url: server.url }));
});
afterAll(async () => {
  await nc.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

function memoryBlock(backend: (typeof BACKENDS)[number]): string {
  return backend === 'file' ? '    backend: file\n' : '    backend: jetstream\n    options: {bucket: agent-memory}\n';
}

function setUp(backend: (typeof BACKENDS)[number]): { config: string; store: () => Promise<Store> } {
  const config = join(dir, `${backend}.yaml`);
  writeFileSync(
    config,
    `identity: keeper-${backend}\nnats_context: local\nsystem_prompt: You remember.\nharness:\n  memory:\n    enabled: true\n${memoryBlock(backend)}`,
  );
  const options = backend === 'file' ? '{}' : '{"bucket":"agent-memory"}';
  return { config, store: () => openMemoryStore({ backend, options }, { identity: `keeper-${backend}`, baseDir: dir, nats: nc }) };
}

async function fisk(args: readonly string[]): Promise<{ code: number; io: CapturedIo }> {
  const io = captureIo({ HOME: dir, XDG_CONFIG_HOME: join(dir, 'xdg') }, dir);
  return { code: await runCli(args, io), io };
}

describe.each(BACKENDS)('fisk memory over the %s backend', (backend) => {
  it('lists, shows and removes what the agent remembers', async () => {
    const { config, store } = setUp(backend);
    const s = await store();
    await s.create('deploy.window', 'When deploys may run', 'Tuesdays after 10:00.\u001b[2J');
    await s.create('owner', 'Who owns the service', 'Team Blue.');

    const ls = await fisk(['memory', 'ls', '--config', config]);
    expect(ls.code).toBe(EXIT.ok);
    expect(ls.io.stdout()).toBe('deploy.window  When deploys may run\nowner          Who owns the service\n');

    const show = await fisk(['memory', '--config', config, 'show', 'deploy.window']);
    expect(show.code).toBe(EXIT.ok);
    expect(show.io.stdout()).toBe('# When deploys may run\n\nTuesdays after 10:00.\n');

    const rm = await fisk(['memory', 'rm', 'owner', '--config', config]);
    expect(rm.code).toBe(EXIT.ok);
    expect(rm.io.stderr()).toContain('removed owner');
    expect((await s.list()).map((i) => i.key)).toEqual(['deploy.window']);

    const again = await fisk(['memory', 'rm', 'owner', '--config', config]);
    expect(again.code).toBe(EXIT.error);
    expect(again.io.stderr()).toContain('no memory "owner"');

    const missing = await fisk(['memory', 'show', 'nothing.here', '--config', config]);
    expect(missing.code).not.toBe(EXIT.ok);
    expect(missing.io.stdout()).toBe('');
  });
});

describe('fisk memory with an empty store', () => {
  it('says nothing is remembered, on stderr', async () => {
    const config = join(dir, 'empty.yaml');
    writeFileSync(config, 'identity: blank\nsystem_prompt: x\nharness:\n  memory:\n    enabled: true\n');
    const r = await fisk(['memory', 'ls', '--config', config]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.io.stdout()).toBe('');
    expect(r.io.stderr()).toContain('blank remembers nothing yet');
    // looking creates nothing: the directory appears when the agent first remembers
    expect(existsSync(join(dir, 'memory', 'blank'))).toBe(false);
    const show = await fisk(['memory', 'show', 'anything', '--config', config]);
    expect(show.code).not.toBe(EXIT.ok);
    expect(existsSync(join(dir, 'memory', 'blank'))).toBe(false);
  });
});
