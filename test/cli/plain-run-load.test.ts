/**
 * `fisk run` with a plain configuration (no application, no NATS context, no MCP, no knowledge,
 * no telemetry, no terminal) loads nothing for the capabilities it does not use: no a2a, serving,
 * NATS, MCP, knowledge, memory backend, telemetry exporter or terminal view. The compiled CLI
 * runs under a module hook that writes down every module Node loads (the bundle would hide the
 * package names in its chunks); the bundled program is watched for the chunks it reads.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicText } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../src/agenttest/fake-model-server.js';
import { ensureBuilt, MAIN, ROOT } from './support.js';

const COMPILED = join(ROOT, 'dist', 'cli', 'main.js');

/** What must stay unloaded for a plain run, each as the module URLs that would show it. */
const UNUSED: ReadonlyArray<readonly [string, RegExp]> = [
  ['the NATS client', /\/node_modules\/@nats-io\//],
  ['the MCP SDK', /\/node_modules\/@modelcontextprotocol\//],
  ['SQLite and the knowledge store', /\/node_modules\/(better-sqlite3|sqlite-vec)\/|\/dist\/knowledge\//],
  ['the OpenTelemetry SDK and exporters', /\/node_modules\/@opentelemetry\/(sdk-|exporter-|otlp-)/],
  ['the terminal view', /\/node_modules\/(ink|react)\/|\/dist\/tui\/(?!select\.js)/],
  ['the MCP server and client', /\/dist\/mcp\//],
  // the run is consumed as the handle startRun returns: no a2a exchange, in process or not
  ['the a2a protocol, its schema checks and its transports', /\/dist\/a2a\/|\/node_modules\/ajv\//],
  ['serving, delegation and the hosted run', /\/dist\/serve\//],
  ['remote tools', /\/dist\/remotetools\//],
  ['the web server', /\/dist\/web\//],
  ['the task store', /\/dist\/tasks\//],
  ['the memory store', /\/dist\/memory\/(?!sanitize\.js)/],
  ['the connections to NATS', /\/dist\/conns\/(nats-connect|transient|connection-watch)\.js/],
];

let fake: FakeModelServer;
let dir: string;
let register: string;

beforeAll(async () => {
  ensureBuilt();
  fake = await startFakeModelServer();
  dir = mkdtempSync(join(tmpdir(), 'fisk-plain-load-'));
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';\n` +
      `export async function load(url, context, next) {\n` +
      `  appendFileSync(process.env.LOADED_LOG, url + '\\n');\n` +
      `  return next(url, context);\n}\n`,
  );
  register = join(dir, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  writeFileSync(
    join(dir, 'require-hook.cjs'),
    `const M = require('node:module');\nconst fs = require('node:fs');\nconst load = M._load;\nM._load = function (request, parent, ...rest) {\n  try { fs.appendFileSync(process.env.LOADED_LOG, M._resolveFilename(request, parent) + '\\n'); } catch {}\n  return load.call(this, request, parent, ...rest);\n};\n`,
  );
  writeFileSync(join(dir, 'agent.yaml'), 'identity: plain\nsystem_prompt: You answer.\nllm:\n  model: claude-fake-1\n');
}, 180_000);

afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `fisk run` once under `preload`; returns its exit code, stdout and what it loaded. */
async function loadedBy(
  name: string,
  preload: readonly string[],
  program: string,
): Promise<{ code: number | null; stdout: string; stderr: string; loaded: string[] }> {
  const log = join(dir, `${name}.log`);
  writeFileSync(log, '');
  fake.reply(anthropicText('plain answer'));
  const child = spawn(process.execPath, [...preload, program, 'run', '--no-tui', '--base-url', fake.url, '--api-key', 'k', 'go'], {
    cwd: dir,
    env: { PATH: process.env['PATH'], HOME: dir, NO_COLOR: '1', LOADED_LOG: log },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return {
    code,
    stdout,
    stderr,
    loaded: readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l !== ''),
  };
}

describe('fisk run with a plain configuration', () => {
  it('loads no module of a capability the configuration does not use', async () => {
    const r = await loadedBy('compiled', ['--import', register], COMPILED);
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('plain answer');
    // the hook saw the run: the agent loop and the model client were loaded
    expect(r.loaded.some((u) => u.includes('/dist/agent/run-agent.js'))).toBe(true);
    expect(r.loaded.some((u) => u.includes('/node_modules/@anthropic-ai/sdk/'))).toBe(true);
    for (const [what, pattern] of UNUSED) expect({ what, loaded: r.loaded.filter((u) => pattern.test(u)) }).toEqual({ what, loaded: [] });
  }, 60_000);

  it('in the bundled program, reads no chunk of a2a, serving, the NATS client, the MCP SDK or the terminal view', async () => {
    const r = await loadedBy('bundled', ['--require', join(dir, 'require-hook.cjs')], MAIN);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('plain answer');
    const chunks = r.loaded.filter((f) => f.includes('/dist/bin/'));
    expect(chunks.length).toBeGreaterThan(1);
    expect(
      chunks.filter((f) =>
        /\/chunks\/(transport-node|internal_mod|jetstream|kv|services|mcp|tui|vendor-ink|slack|knowledge|a2a|remote-run|remotetools|serve|server|2020)[-.]/.test(
          f,
        ),
      ),
    ).toEqual([]);
    expect(r.loaded.filter((f) => /better-sqlite3|@modelcontextprotocol|@nats-io|validators\.generated/.test(f))).toEqual([]);
  }, 60_000);
});
