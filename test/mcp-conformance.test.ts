/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, on the Node 22 it needs),
 * kept in its own package under test/mcp-conformance (`npm ci --prefix test/mcp-conformance`).
 * Client scenarios run against fisk-ai's MCP client through test/mcp-conformance/client.mjs;
 * the protocol, lifecycle and transport server scenarios run against a real `fisk mcp`.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentDir, ensureBuilt, PID_APP, ROOT, startFiskMcp } from './mcp/support.js';
import type { FiskMcp } from './mcp/support.js';

const run = promisify(execFile);
const PACKAGE = join(ROOT, 'test', 'mcp-conformance');
const NODE22 = join(PACKAGE, 'node_modules', '.bin', 'node');
const SUITE = join(PACKAGE, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const installed = existsSync(NODE22) && existsSync(SUITE);
if (!installed) console.warn('MCP conformance suite skipped: install it with `npm ci --prefix test/mcp-conformance`');

/**
 * The client scenario fisk-ai does not take part in, by design: it advertises no elicitation (a
 * foreign server may not question this agent's operator).
 */
const CLIENT_NOT_OFFERED = new Set(['elicitation-sep1034-client-defaults']);

/** Server scenarios about the protocol itself; the rest exercise resources, prompts, sampling and fixture tools `fisk mcp` does not serve. */
const SERVER_PROTOCOL = [
  'server-initialize',
  'ping',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-error',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

interface Check {
  readonly id: string;
  readonly status: string;
  readonly description?: string;
  readonly errorMessage?: string;
}

function checksUnder(dir: string): Check[] {
  const out: Check[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name === 'checks.json')
      out.push(...(JSON.parse(readFileSync(join(entry.parentPath, entry.name), 'utf8')) as Check[]));
  }
  return out;
}

async function listScenarios(): Promise<string[]> {
  const { stdout } = await run(NODE22, [SUITE, 'list', '--client']);
  return [...stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1] ?? '').filter((s) => s !== '');
}

/** Runs one scenario (one at a time: the timing scenarios need the machine) and returns its checks. */
async function scenario(mode: 'client' | 'server', name: string, target: string): Promise<Check[]> {
  const out = mkdtempSync(join(tmpdir(), 'fisk-conformance-'));
  try {
    const args =
      mode === 'client'
        ? ['client', '--command', `${process.execPath} ${join(PACKAGE, 'client.mjs')}`, '--scenario', name]
        : ['server', '--url', target, '--scenario', name];
    await run(NODE22, [SUITE, ...args, '-o', out], { timeout: 120_000 }).catch(() => undefined);
    return checksUnder(out);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

function failures(checks: readonly Check[]): string[] {
  return checks
    .filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
    .map((c) => `${c.id}: ${c.errorMessage ?? c.description ?? ''}`);
}

describe.skipIf(!installed)('the MCP conformance suite', () => {
  beforeAll(() => ensureBuilt());

  it('passes every client scenario fisk-ai takes part in, authorization included', { timeout: 900_000 }, async () => {
    const names = (await listScenarios()).filter((n) => !CLIENT_NOT_OFFERED.has(n));
    expect(names.filter((n) => n.startsWith('auth/')).length).toBeGreaterThan(15);
    const failed: string[] = [];
    let passed = 0;
    for (const name of names) {
      const checks = await scenario('client', name, '');
      const bad = failures(checks);
      if (checks.length === 0) failed.push(`${name}: no checks were recorded`);
      failed.push(...bad.map((f) => `${name}: ${f}`));
      passed += checks.filter((c) => c.status === 'SUCCESS').length;
    }
    console.info(`MCP conformance, client: ${names.length} scenarios, ${passed} checks passed`);
    expect(failed).toEqual([]);
  });

  describe('against fisk mcp', () => {
    let fisk: FiskMcp;
    let cleanup: () => void;
    beforeAll(async () => {
      const agent = agentDir(`identity: conformance-agent\napplication_path: ${PID_APP}\nexpose:\n  agent:\n    mcp: {}\n`);
      cleanup = () => agent.cleanup();
      fisk = await startFiskMcp(agent.config, agent.dir);
    });
    afterAll(async () => {
      await fisk.kill();
      cleanup();
    });

    it('passes the protocol, lifecycle and transport server scenarios', { timeout: 300_000 }, async () => {
      const failed: string[] = [];
      for (const name of SERVER_PROTOCOL) {
        const checks = await scenario('server', name, fisk.url);
        if (checks.length === 0) failed.push(`${name}: no checks were recorded`);
        failed.push(...failures(checks).map((f) => `${name}: ${f}`));
      }
      expect(failed).toEqual([]);
    });
  });
});
