/**
 * `fisk run` loads the OpenTelemetry SDK and its exporters only when telemetry exports. The
 * compiled CLI runs with a module hook that writes down every module Node loads (the bundle would
 * hide the package names in its chunks), once with telemetry off and once with it on.
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
import { startOtlpReceiver } from '../../src/agenttest/otlp-receiver.js';
import type { OtlpReceiver } from '../../src/agenttest/otlp-receiver.js';
import { ensureBuilt, ROOT } from './support.js';

const COMPILED = join(ROOT, 'dist', 'cli', 'main.js');
/** The SDK and exporter packages; the small API package is loaded either way. */
const SDK = /\/node_modules\/@opentelemetry\/(sdk-|exporter-|otlp-)/;

let fake: FakeModelServer;
let receiver: OtlpReceiver;
let dir: string;
let register: string;

beforeAll(async () => {
  ensureBuilt();
  fake = await startFakeModelServer();
  receiver = await startOtlpReceiver();
  dir = mkdtempSync(join(tmpdir(), 'fisk-telemetry-load-'));
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';\n` +
      `export async function load(url, context, next) {\n` +
      `  if (process.env.LOADED_LOG) appendFileSync(process.env.LOADED_LOG, url + '\\n');\n` +
      `  return next(url, context);\n}\n`,
  );
  register = join(dir, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
}, 180_000);

afterAll(async () => {
  await fake.close();
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `fisk run` once with `telemetry` appended to its configuration; returns what it loaded. */
async function loadedBy(name: string, telemetry: string): Promise<{ code: number | null; stderr: string; loaded: string[] }> {
  const config = join(dir, `${name}.yaml`);
  writeFileSync(config, `identity: loader\nsystem_prompt: You answer.\nllm:\n  model: claude-fake-1\n${telemetry}`);
  const log = join(dir, `${name}.log`);
  writeFileSync(log, '');
  fake.reply(anthropicText('done'));
  const child = spawn(
    process.execPath,
    ['--import', register, COMPILED, 'run', '--config', config, '--base-url', fake.url, '--api-key', 'k', 'go'],
    {
      cwd: dir,
      env: { PATH: process.env['PATH'], HOME: dir, NO_COLOR: '1', LOADED_LOG: log },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return {
    code,
    stderr,
    loaded: readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l !== ''),
  };
}

describe('fisk run and the OpenTelemetry SDK', () => {
  it('does not load the SDK or any exporter while telemetry is off', async () => {
    const r = await loadedBy('off', '');
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    expect(r.loaded.some((u) => u.includes('/dist/agent/'))).toBe(true);
    expect(r.loaded.filter((u) => SDK.test(u))).toEqual([]);
  }, 60_000);

  it('loads them when telemetry exports', async () => {
    const r = await loadedBy('on', `telemetry:\n  enabled: true\n  endpoint: ${receiver.url}\n`);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/telemetry: \d+ of \d+ spans delivered/);
    expect(r.loaded.filter((u) => SDK.test(u)).length).toBeGreaterThan(0);
  }, 60_000);
});
