import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { afterEach } from 'vitest';
import { TRUNCATION_MARKER } from './capture.js';
import { runCaptured, sweepDeadSocketDirs } from './run-captured.js';
import { eventually } from '../../agenttest/eventually.js';
import { runningWithCommandLine } from '../../../test/support/processes.js';

const app = fileURLToPath(new URL('../../../test/fixtures/fisk-app.mjs', import.meta.url));
const env = { PATH: process.env['PATH'] ?? '' };
const signal = new AbortController().signal;

/** Alive means running: a zombie (killed, not yet reaped by whoever adopted it) counts as dead. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function waitDead(pid: number): Promise<boolean> {
  // The kernel reaps an orphan after SIGKILL asynchronously; poll a bounded number of times.
  for (let i = 0; i < 2000 && alive(pid); i++) await new Promise((r) => setImmediate(r));
  return !alive(pid);
}

describe('runCaptured', () => {
  it('keeps stdout and stderr in the order they were written', async () => {
    const r = await runCaptured({ binary: app, argv: ['interleave', '--', '6'], env, signal });
    expect(r).toMatchObject({ kind: 'exited', exitCode: 0, truncated: false });
    if (r.kind !== 'exited') throw new Error('unreachable');
    expect(r.output).toBe('out 0\nerr 1\nout 2\nerr 3\nout 4\nerr 5\n');
  });
  it('reports a non-zero exit as an ordinary result', async () => {
    const r = await runCaptured({ binary: app, argv: ['fail', '--', '7'], env, signal });
    expect(r).toMatchObject({ kind: 'exited', exitCode: 7, output: 'failing on purpose\n' });
  });
  it('holds 1 MiB of output to a 64 KiB head and tail', async () => {
    const r = await runCaptured({ binary: app, argv: ['flood'], env, signal });
    if (r.kind !== 'exited') throw new Error(`unexpected ${r.kind}`);
    expect(r.truncated).toBe(true);
    expect(r.bytes).toBe(1 << 20);
    expect(Buffer.byteLength(r.output)).toBe(64 * 1024 + Buffer.byteLength(TRUNCATION_MARKER));
    expect(r.output.startsWith('00000000 abc')).toBe(true);
    expect(r.output).toContain(TRUNCATION_MARKER);
  });
  it('kills the whole process group on timeout, grandchild included', async () => {
    const r = await runCaptured({ binary: app, argv: ['spawn'], env, signal, timeoutMs: 500 });
    if (r.kind !== 'timed_out') throw new Error(`unexpected ${r.kind}`);
    const pid = Number(/grandchild (\d+)/.exec(r.output)?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(await waitDead(pid)).toBe(true);
  });
  it('does not wait on a grandchild the leader left holding the output', async () => {
    const r = await runCaptured({ binary: app, argv: ['spawn', '--', 'exit'], env, signal });
    if (r.kind !== 'exited') throw new Error(`unexpected ${r.kind}`);
    const pid = Number(/grandchild (\d+)/.exec(r.output)?.[1]);
    expect(await waitDead(pid)).toBe(true);
  });
  it('kills the group and rejects with the reason on abort', async () => {
    const ac = new AbortController();
    // a length of sleep no other test uses, so its command line names this process alone
    const fragment = `${app} sleep -- 61`;
    const running = runCaptured({ binary: app, argv: ['sleep', '--', '61'], env, signal: ac.signal });
    await eventually(() => runningWithCommandLine(fragment).length > 0, 'the sleeping command to start');
    ac.abort(new Error('stopped by the operator'));
    await expect(running).rejects.toThrow('stopped by the operator');
    await eventually(() => runningWithCommandLine(fragment).length === 0, 'the sleeping command to be killed', {
      observed: () => runningWithCommandLine(fragment),
    });
  });
  it('reports a binary that cannot start', async () => {
    const r = await runCaptured({ binary: '/nonexistent/tool', argv: [], env, signal });
    expect(r).toMatchObject({ kind: 'failed' });
    if (r.kind === 'failed') expect(r.message).toMatch(/cannot start \/nonexistent\/tool: .*ENOENT/);
  });

  describe('with a descendant that left the process group holding the output', () => {
    const dirs: string[] = [];
    const detached: number[] = [];
    afterEach(() => {
      for (const pid of detached.splice(0)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    });

    /** A shell line whose detached grandchild (own session) keeps stdout and records its pid. */
    function leaver(then: string): { argv: string[]; pidFile: string } {
      const dir = mkdtempSync(join(tmpdir(), 'fisk-held-'));
      dirs.push(dir);
      const pidFile = join(dir, 'pid');
      const line = `setsid sh -c 'echo $$ > "$0.tmp"; mv "$0.tmp" "$0"; exec sleep 120' "${pidFile}" & while [ ! -s "${pidFile}" ]; do sleep 0.01; done; echo leader wrote this; ${then}`;
      return { argv: ['-c', line], pidFile };
    }

    function remember(pidFile: string): void {
      if (existsSync(pidFile)) detached.push(Number(readFileSync(pidFile, 'utf8').trim()));
    }

    it('returns what the leader wrote, with the fact noted, once the group is gone', async () => {
      const { argv, pidFile } = leaver('exit 3');
      const r = await runCaptured({ binary: '/bin/sh', argv, env, signal });
      remember(pidFile);
      expect(r).toMatchObject({ kind: 'exited', exitCode: 3, heldOpen: true });
      if (r.kind === 'exited') expect(r.output).toBe('leader wrote this\n');
      expect(alive(detached[0] ?? 0)).toBe(true);
    });

    it('still times out at the deadline', async () => {
      const { argv, pidFile } = leaver('sleep 60');
      const r = await runCaptured({ binary: '/bin/sh', argv, env, signal, timeoutMs: 300 });
      remember(pidFile);
      expect(r).toMatchObject({ kind: 'timed_out', heldOpen: true, output: 'leader wrote this\n' });
    });

    it('still rejects at once on abort', async () => {
      const { argv, pidFile } = leaver('exit 0');
      const ac = new AbortController();
      // Aborted as soon as the leader has gone, while only the detached descendant holds the output.
      const running = runCaptured({ binary: '/bin/sh', argv, env, signal: ac.signal });
      const poll = setInterval(() => {
        if (existsSync(pidFile)) {
          clearInterval(poll);
          ac.abort(new Error('interrupted'));
        }
      }, 5);
      await expect(running).rejects.toThrow('interrupted');
      clearInterval(poll);
      remember(pidFile);
    });

    it('reports a clean close as not held open', async () => {
      const r = await runCaptured({ binary: '/bin/sh', argv: ['-c', 'echo fine'], env, signal });
      expect(r).toMatchObject({ kind: 'exited', heldOpen: false, output: 'fine\n' });
    });
  });
});

describe('sweepDeadSocketDirs', () => {
  it('removes the socket directories of processes that are gone, and nothing else', async () => {
    const base = mkdtempSync(join(tmpdir(), 'fisk-sweep-'));
    try {
      const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
      const gone = Number(child.stdout);
      const dead = join(base, `fisk-out-${gone}-abc123`);
      const live = join(base, `fisk-out-${process.pid}-def456`);
      const parent = join(base, `fisk-out-${process.ppid}-ghi789`);
      const older = join(base, 'fisk-out-jkl012');
      const kept = join(base, `fisk-out-${gone}-mno345`);
      for (const d of [dead, live, parent, older, kept]) mkdirSync(d, { mode: 0o700 });
      writeFileSync(join(dead, `${gone}-1.sock`), '');
      // something other than a socket in a dead process's directory: not this sweep's to remove
      writeFileSync(join(kept, 'notes.txt'), 'x');
      sweepDeadSocketDirs(base);
      await eventually(() => !existsSync(dead), 'the dead process directory to go', { intervalMs: 10 });
      expect(readdirSync(base).sort()).toEqual(
        [`fisk-out-${process.pid}-def456`, `fisk-out-${process.ppid}-ghi789`, 'fisk-out-jkl012', `fisk-out-${gone}-mno345`].sort(),
      );
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
