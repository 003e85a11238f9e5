import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, MAIN, ROOT } from './support.js';

let elsewhere: string;
beforeAll(() => {
  ensureBuilt();
  elsewhere = mkdtempSync(join(tmpdir(), 'fisk-pipe-'));
}, 240_000);
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

/** Runs fisk with a stdout (and with `both`, a stderr) whose reader is gone before the first byte is written. */
async function withClosedStdout(args: readonly string[], both = false): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], {
    cwd: elsewhere,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.destroy();
  if (both) child.stderr.destroy();
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  return { code, stderr };
}

describe('a reader that closes the pipe early', () => {
  it('ends fisk info quietly with status 0', async () => {
    const r = await withClosedStdout(['info', '--config', join(ROOT, 'docs/examples/openvox.yaml')]);
    expect(r.stderr).not.toMatch(/EPIPE|Error|at /);
    expect(r.code).toBe(0);
  });

  it('ends fisk --help quietly with status 0', async () => {
    const r = await withClosedStdout(['--help']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('keeps the status of a command that failed: fisk bogus 2>&1 | head -1 still exits 2', async () => {
    const r = await withClosedStdout(['bogus'], true);
    expect(r.code).toBe(2);
    const missing = await withClosedStdout(['info', '--config', join(elsewhere, 'missing.yaml')], true);
    expect(missing.code).toBe(3);
  });
});
