// Wall and CPU time of a child process, and the spread of a series of them, for the benchmarks that
// time whole commands. CPU time (user + system) covers the child and every process it waited for;
// it comes from the kernel's account of this process's waited-for children (/proc/self/stat), so it
// is null off Linux. On a busy machine it is the steadier figure: wall time includes waiting for a core.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

/** USER_HZ, the unit of the kernel's CPU accounting, is 100 on every Linux architecture Node runs on. */
export const TICK_MS = 10;

/** CPU milliseconds of the children this process has waited for, or null off Linux. */
export function childCpuMs() {
  if (!existsSync('/proc/self/stat')) return null;
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // the fields after the command name (which may hold spaces) start at the state, field 3
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) * TICK_MS; // cutime, cstime
}

/**
 * Runs `node <args>` to completion and returns its wall and CPU milliseconds (cpu null off Linux).
 * Throws with the child's stderr when it fails.
 */
export function timeNode(args, { cwd, env = process.env } = {}) {
  const cpuBefore = childCpuMs();
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 16 << 20 });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr.toString().slice(0, 500)}`);
  const cpuAfter = childCpuMs();
  return { wall, cpu: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore, stdout: r.stdout.toString() };
}

/** Median, 10th and 90th percentiles, min and max, rounded to 0.1. */
export function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))];
  const r = (x) => Math.round(x * 10) / 10;
  return { median: r(q(0.5)), p10: r(q(0.1)), p90: r(q(0.9)), min: r(s[0]), max: r(s[s.length - 1]) };
}

/** How busy the machine was: the figures to read a wall time against. */
export function machine() {
  return { load_average: loadavg().map((x) => Math.round(x * 100) / 100), cores: availableParallelism() };
}
