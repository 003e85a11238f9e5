/**
 * Two real processes on a private nats-server: a child serves tools, this process imports and
 * calls them, and the child is killed in the middle of a call.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aClient, createTransport } from '../../src/a2a/index.js';
import { startNatsServer } from '../../src/agenttest/nats-server.js';
import type { NatsServer } from '../../src/agenttest/nats-server.js';
import { importRemoteTools } from '../../src/remotetools/index.js';
import type { Tool } from '../../src/toolkit/tool.js';
import { eventually } from '../../src/agenttest/eventually.js';

const root = resolve(import.meta.dirname, '..', '..');
let server: NatsServer;
let nc: NatsConnection;
let child: ChildProcess;
let lines: string[] = [];

async function waitForLine(line: string): Promise<void> {
  await eventually(() => lines.includes(line), `the serving process to print ${JSON.stringify(line)}`, {
    timeoutMs: 60_000,
    intervalMs: 20,
    observed: () => lines,
    stopIf: () => (child.exitCode !== null ? `serving process exited with ${child.exitCode}` : undefined),
  });
}

beforeAll(async () => {
  if (!existsSync(join(root, 'dist', 'a2a', 'index.js'))) spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  child = spawn(process.execPath, [join(root, 'test', 'a2a', 'fixtures', 'serve-tools.mjs'), server.url], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout?.on(
    'data',
    (d: Buffer) =>
      (lines = [
        ...lines,
        ...d
          .toString()
          .split('\n')
          .filter((l) => l !== ''),
      ]),
  );
  await waitForLine('ready');
}, 180_000);
afterAll(async () => {
  if (child.exitCode === null) child.kill('SIGKILL');
  await nc.close();
  await server.stop();
});

describe('a serving process killed mid-call', () => {
  it('imports and calls tools across processes, then reports a call the killed peer never answered as one that may have run', async () => {
    const transport = createTransport('nats', { connection: nc });
    const imported = await importRemoteTools(
      transport,
      [{ name: 'victim', alias: 'v', include: { tools: [], tags: [] }, exclude: { tools: [], tags: [] } }],
      {
        localNames: [],
        mode: 'strict',
        identity: 'caller',
        timeoutMs: 3000,
      },
    );
    const tools = new Map<string, Tool>((imported.sources[0]?.tools ?? []).map((t) => [t.name, t]));
    const signal = new AbortController().signal;
    const quick = await tools.get('quick')?.execute('{}', {}, signal);
    expect(quick).toEqual({
      status: 'completed',
      output: `pid ${child.pid}`,
      exec: { command: 'quick', exitCode: 0, truncated: false },
      isError: false,
    });

    const pending = tools.get('slow')?.execute('{}', {}, signal);
    await waitForLine('started slow');
    child.kill('SIGKILL');
    const outcome = await pending;
    expect(outcome).toMatchObject({ status: 'completed', isError: true });
    expect(outcome?.status === 'completed' ? outcome.output : '').toMatch(
      /remote agent "victim" did not answer the call to "slow" within 3 s \(its own limit for a call is 30 s\): the call may or may not have run/,
    );

    // and afterwards nobody answers at all
    await expect(new A2aClient(transport, 'caller').discover('victim', { timeoutMs: 3000 })).rejects.toMatchObject({ code: 'unavailable' });
  });
});
