/**
 * No MCP server outlives fisk: each stdio server runs in a process group of its own and the whole
 * group is ended (input closed, SIGTERM, SIGKILL) when the runtime closes, when the server's
 * start fails or times out, and after `fisk info` has listed it, even a server that ignores its
 * closed input and SIGTERM and has started a helper of its own.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../src/agenttest/fake-model-server.js';
import { discoverMcpTools, openMcpSessions } from '../../src/mcp/client/index.js';
import { entry } from '../../src/mcp/client/test-support.js';
import { ensureBuilt, runFisk } from '../cli/support.js';
import { running, until } from '../support/processes.js';

const HOSTILE = fileURLToPath(new URL('../fixtures/hostile-mcp-server.mjs', import.meta.url));
const opts = { env: process.env, credentialEnvNames: [] };

let dir = '';
let fake: FakeModelServer;
beforeAll(async () => {
  ensureBuilt();
  fake = await startFakeModelServer();
}, 180_000);
afterAll(() => fake.close());
afterEach(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
  dir = '';
});

function tempDir(): string {
  dir = mkdtempSync(join(tmpdir(), 'fisk-mcp-procs-'));
  return dir;
}

/** The server's and its grandchild's pids, once the server has written them. */
async function pidsIn(file: string): Promise<number[]> {
  await until(() => existsSync(file), `the server to write ${file}`);
  const pids = readFileSync(file, 'utf8').trim().split(' ').map(Number);
  expect(pids).toHaveLength(2);
  for (const pid of pids) expect(running(pid)).toBe(true);
  return pids;
}

describe('a stdio MCP server that never answers initialize', () => {
  it('is ended with its helper when its start times out', async () => {
    const pidFile = join(tempDir(), 'hang.pid');
    const hanging = entry({ name: 'stuck', args: [HOSTILE, 'hang', pidFile], startupTimeout: { text: '1s', ms: 1_000 } });
    const pids = pidsIn(pidFile);
    await expect(openMcpSessions([hanging], opts)).rejects.toThrow(
      /MCP server "stuck" .* did not finish starting within 1s; raise mcp_clients\[0\]\.startup_timeout/,
    );
    // by the time the failure is reported, the group is gone: nothing is left to wait for
    for (const pid of await pids) expect(running(pid)).toBe(false);
  });

  it('is ended with its helper after a lenient listing, and the other servers are still listed', async () => {
    const pidFile = join(tempDir(), 'hang.pid');
    const hanging = entry({ name: 'stuck', args: [HOSTILE, 'hang', pidFile], startupTimeout: { text: '1s', ms: 1_000 } });
    const fine = entry({ name: 'fine', args: [HOSTILE, 'snoop'] });
    const pids = pidsIn(pidFile);
    const found = await discoverMcpTools([hanging, fine], opts);
    expect(found.warnings.map((w) => w.message).join('\n')).toMatch(/MCP server "stuck" .* did not finish starting within 1s/);
    expect(found.sources.flatMap((s) => s.tools.map((t) => t.name))).toContain('own_environ');
    for (const pid of await pids) expect(running(pid)).toBe(false);
  });

  it('leaves no process behind after a failed fisk run and after fisk info', async () => {
    const cwd = tempDir();
    const pidFile = join(cwd, 'hang.pid');
    writeFileSync(
      join(cwd, 'agent.yaml'),
      `identity: stuck
system_prompt: You use tools.
llm: {model: claude-fake-1}
mcp_clients:
  - name: fine
    command: ${process.execPath}
    args: [${HOSTILE}, snoop, ${join(cwd, 'fine.pid')}]
  - name: stuck
    command: ${process.execPath}
    args: [${HOSTILE}, hang, ${pidFile}]
    startup_timeout: 1s
`,
    );
    const run = await runFisk(['run', '--base-url', fake.url, '--api-key', 'k', 'hello'], cwd);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/MCP server "stuck" .* did not finish starting within 1s/);
    expect(fake.requests).toHaveLength(0);
    const afterRun = readFileSync(pidFile, 'utf8').trim().split(' ').map(Number);
    const fineAfterRun = Number(readFileSync(join(cwd, 'fine.pid'), 'utf8'));
    for (const pid of [...afterRun, fineAfterRun]) expect(running(pid)).toBe(false);

    rmSync(pidFile);
    const info = await runFisk(['info'], cwd);
    expect(info.code).toBe(0);
    expect(info.stderr).toMatch(/warning: .*MCP server "stuck" .* did not finish starting within 1s/);
    expect(info.stdout).toContain('own_environ');
    const afterInfo = readFileSync(pidFile, 'utf8').trim().split(' ').map(Number);
    const fineAfterInfo = Number(readFileSync(join(cwd, 'fine.pid'), 'utf8'));
    for (const pid of [...afterInfo, fineAfterInfo]) expect(running(pid)).toBe(false);
  }, 60_000);
});

describe('a working stdio server that ignores its closed input and SIGTERM', () => {
  it('is killed with its helper when the sessions close', async () => {
    const pidFile = join(tempDir(), 'stubborn.pid');
    const stubborn = entry({ name: 'stubborn', args: [HOSTILE, 'snoop', pidFile], env: { HOSTILE_STUBBORN: '1' } });
    const sessions = await openMcpSessions([stubborn], opts);
    const pids = await pidsIn(pidFile);
    expect(sessions.sources()[0]?.tools.map((t) => t.name)).toContain('own_environ');
    await sessions.close();
    for (const pid of pids) expect(running(pid)).toBe(false);
  });
});
