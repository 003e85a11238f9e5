/**
 * A stdio MCP server with `sandbox` on runs inside bubblewrap: the reference filesystem server,
 * told it may use a directory, still cannot write there when the sandbox does not make it
 * writable, cannot read a hidden file, and writes where its own `writable` key allows.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMcpSessions } from '../../src/mcp/client/index.js';
import type { McpSessionSet } from '../../src/mcp/client/index.js';
import { entry, FILESYSTEM } from '../../src/mcp/client/test-support.js';
import { checkSandbox } from '../../src/toolkit/sandbox/check.js';
import type { SandboxSettings } from '../../src/toolkit/sandbox/policy.js';
import type { Outcome } from '../../src/toolkit/tool.js';

const signal = new AbortController().signal;
let root: string;
let shared: string;
let writable: string;
let settings: SandboxSettings;

beforeAll(() => {
  // under /var/tmp, not /tmp: a sandboxed child has a private /tmp of its own
  root = mkdtempSync('/var/tmp/fisk-mcp-sandbox-');
  shared = join(root, 'shared');
  writable = join(root, 'writable');
  mkdirSync(shared);
  mkdirSync(writable);
  writeFileSync(join(shared, 'readme.txt'), 'visible\n');
  writeFileSync(join(shared, 'secret.txt'), 'hidden-secret-value\n');
  settings = {
    enabled: false,
    ...checkSandbox({ PATH: process.env['PATH'] }, 'mcp_clients[0].sandbox', false),
    network: false,
    writable: undefined,
    hide: [join(shared, 'secret.txt')],
    limits: { addressSpace: undefined, cpuSeconds: undefined, openFiles: undefined },
    grants: [],
  };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function text(o: Outcome): string {
  if (o.status !== 'completed') throw new Error(`unexpected ${o.status}`);
  return o.output;
}

async function call(set: McpSessionSet, name: string, input: Record<string, unknown>): Promise<string> {
  const tool = set.sources()[0]?.tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return text(await tool.execute(JSON.stringify(input), {}, signal));
}

describe('a sandboxed stdio MCP server', () => {
  it('reads what it may, writes only where its own writable key allows, and sees nothing hidden', async () => {
    const server = entry({
      name: 'fs',
      args: [FILESYSTEM, shared, writable],
      sandbox: { enabled: true, network: false, writable: [writable] },
    });
    const set = await openMcpSessions([server], { env: process.env, credentialEnvNames: [], sandbox: settings });
    try {
      // what fisk info and the run's fingerprint see of it
      expect(set.sources()[0]?.tools[0]?.capabilities.sandbox).toEqual({
        network: false,
        writable: [writable],
        hide: [join(shared, 'secret.txt')],
        grants: [],
      });
      expect(await call(set, 'read_text_file', { path: join(shared, 'readme.txt') })).toMatch(/visible/);
      expect(await call(set, 'read_text_file', { path: join(shared, 'secret.txt') })).not.toMatch(/hidden-secret-value/);
      expect(await call(set, 'write_file', { path: join(shared, 'escaped.txt'), content: 'x' })).toMatch(/read-only file system|EROFS/i);
      expect(existsSync(join(shared, 'escaped.txt'))).toBe(false);
      await call(set, 'write_file', { path: join(writable, 'kept.txt'), content: 'kept' });
      expect(existsSync(join(writable, 'kept.txt'))).toBe(true);
    } finally {
      await set.close();
    }
  });

  it('never starts outside a sandbox when none was opened for it', async () => {
    const server = entry({ name: 'fs', args: [FILESYSTEM, shared], sandbox: { enabled: true, network: false, writable: undefined } });
    await expect(openMcpSessions([server], { env: process.env, credentialEnvNames: [] })).rejects.toThrow(
      /mcp_clients\[0\]\.sandbox is on but this runtime opened no sandbox/,
    );
  });

  it('fails to start, naming what bubblewrap said, when its sandbox cannot be set up', async () => {
    const server = entry({
      name: 'fs',
      args: [FILESYSTEM, shared],
      sandbox: { enabled: true, network: false, writable: [`/proc/${process.pid}`] },
    });
    await expect(openMcpSessions([server], { env: process.env, credentialEnvNames: [], sandbox: settings })).rejects.toThrow(
      /bwrap: Can't mkdir/,
    );
  });
});
