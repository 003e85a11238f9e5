/** Watching the processes a test starts: whether one is still running, and the pids a fixture logs. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { eventually } from '../../src/agenttest/eventually.js';

/** Waits until a condition holds, polling; the MCP tests' helper, shared. */
export { until } from '../../src/mcp/server/test-support.js';

/** Whether a process with this pid is still running. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The pids logged to `file` so far, one a line, as the fisk-app fixture writes them under
 * FIXTURE_PIDLOG: whole lines only, since a line being written is not a pid yet.
 */
export function loggedPids(file: string): number[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(0, -1).map(Number) : [];
}

/** Waits until `file` holds at least `n` pids (for up to 10 s) and returns those it holds. */
export async function awaitLoggedPids(file: string, n: number): Promise<number[]> {
  return eventually(
    () => {
      const pids = loggedPids(file);
      return pids.length >= n && pids;
    },
    `${n} pids logged to ${file}`,
    { timeoutMs: 10_000, observed: () => loggedPids(file) },
  );
}

/**
 * The pids of running processes (zombies left out) whose command line contains `fragment`, read
 * from /proc: a way to see that a program is gone even when it never got to log its pid.
 */
export function runningWithCommandLine(fragment: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (!cmdline.includes(fragment)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z') out.push(Number(entry));
    } catch {
      // gone between the listing and the read
    }
  }
  return out;
}

/** Whether the process with this pid is running (a zombie, already ended and waiting to be reaped, is not). */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
