// What the sandbox costs a tool call, against the built library: the same trivial command (`/bin/true`)
// run through the tool's runner (process group, one output socket, head+tail capture) without a
// sandbox and inside bubblewrap with the default policy (read-only root, the work directory writable,
// the credential homes hidden, private /tmp, /proc and /dev, new PID, IPC, UTS and network
// namespaces), and once more with resource limits through prlimit. Also the start-up check a
// runtime makes once. Prints one JSON document; off Linux, or without bwrap, it says why instead.
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCaptured } from '../../dist/toolkit/fisk/run-captured.js';
import { checkSandbox } from '../../dist/toolkit/sandbox/check.js';
import { toolPolicy } from '../../dist/toolkit/sandbox/policy.js';
import { machine, stats } from '../lib/process-time.mjs';

const RUNS = 40;
/** What a sandboxed trivial call may take, wall: below what a person notices in a tool call. */
const GOAL_MS = 50;
const WARMUP = 5;
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;

/** The start-up check a runtime makes once, timed: it finds bwrap and prlimit and runs a program in every namespace. */
function available() {
  const t = process.hrtime.bigint();
  try {
    const programs = checkSandbox(process.env, 'harness.sandbox.enabled', true);
    return { programs, checkMs: ms(t) };
  } catch (err) {
    return { error: err.message };
  }
}

async function measure(policy, work) {
  const signal = new AbortController().signal;
  const walls = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const t = process.hrtime.bigint();
    const r = await runCaptured({
      binary: '/bin/true',
      argv: [],
      env: { PATH: process.env.PATH ?? '' },
      cwd: work,
      signal,
      ...(policy === undefined ? {} : { sandbox: policy }),
    });
    const wall = ms(t);
    if (r.kind !== 'exited' || r.exitCode !== 0) throw new Error(`the command did not run: ${JSON.stringify(r)}`);
    if (i < WARMUP) continue;
    walls.push(wall);
  }
  return { wall_ms: stats(walls) };
}

const found = available();
if (found.error !== undefined) {
  process.stdout.write(`${JSON.stringify({ skipped: found.error })}\n`);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'fisk-bench-sandbox-'));
  const work = join(dir, 'work');
  mkdirSync(work);
  try {
    const home = homedir();
    const settings = {
      enabled: true,
      ...found.programs,
      network: false,
      writable: undefined,
      hide: ['.ssh', '.aws', '.azure', '.config/gcloud', '.kube', '.docker', '.gnupg', '.netrc'].map((p) => join(home, p)),
      limits: { addressSpace: undefined, cpuSeconds: undefined, openFiles: undefined },
      grants: [],
    };
    const bare = await measure(undefined, work);
    const boxed = await measure(toolPolicy(settings, 'bench'), work);
    const limited = await measure(
      toolPolicy({ ...settings, limits: { addressSpace: 4 * 1024 ** 3, cpuSeconds: 60, openFiles: 1024 } }, 'bench'),
      work,
    );
    process.stdout.write(
      `${JSON.stringify({
        command: '/bin/true',
        goal_ms: GOAL_MS,
        runs: RUNS,
        ...machine(),
        unsandboxed: bare,
        sandboxed: boxed,
        sandboxed_with_limits: limited,
        added_ms: {
          sandbox: Number((boxed.wall_ms.median - bare.wall_ms.median).toFixed(2)),
          sandbox_and_limits: Number((limited.wall_ms.median - bare.wall_ms.median).toFixed(2)),
        },
        ratio: { sandbox: Number((boxed.wall_ms.median / bare.wall_ms.median).toFixed(2)) },
        start_up_check_ms: Number(found.checkMs.toFixed(2)),
      })}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
