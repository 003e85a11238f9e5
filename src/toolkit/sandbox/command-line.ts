/**
 * The one place a sandboxed child's command line is built. bubblewrap runs the program with the
 * whole filesystem bound read-only, the writable paths bound back writable, the hidden paths
 * covered (an empty read-only tmpfs over a directory, `/dev/null` over a file), a private `/tmp`,
 * `/proc` and `/dev`, new PID, IPC and UTS namespaces, no network unless granted, every capability
 * dropped (so a child running as root cannot unmount what hides a path or remount what is
 * read-only), and killed when fisk dies. `prlimit`, inside, applies the resource limits.
 *
 * Mounts are applied in order and a later one covers an earlier one: `/tmp` first, then the
 * writable binds (shallowest first), then the hidden paths, so a hidden path inside a writable
 * directory stays hidden.
 */
import { realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { SandboxPolicy } from './policy.js';

/** The file descriptor bubblewrap reports the program's status on; the spawn adds a pipe there. */
export const STATUS_FD = 3;

/** A program and its argv, exactly as they would run without a sandbox. */
export interface ChildCommand {
  readonly binary: string;
  readonly argv: readonly string[];
}

/** A sandboxed child that cannot be set up as asked (a writable path that does not exist). */
export class SandboxSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxSetupError';
  }
}

function within(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function kindOf(path: string): 'dir' | 'file' | undefined {
  try {
    return statSync(path).isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined;
  }
}

function depth(path: string): number {
  return path.split(sep).length;
}

/** The writable binds: each must exist, and is bound at its real path (a symlink's target). */
function writableBinds(policy: SandboxPolicy, workDir: string): string[] {
  const wanted = [...(policy.workDirWritable ? [workDir] : []), ...policy.writable];
  const out: string[] = [];
  for (const p of wanted) {
    const r = real(p);
    if (r === undefined)
      throw new SandboxSetupError(
        `the writable path ${JSON.stringify(p)} does not exist; create it or remove it from the sandbox's writable paths`,
      );
    if (!out.includes(r)) out.push(r);
  }
  return out.sort((a, b) => depth(a) - depth(b));
}

/** The hidden mounts: a path that does not exist has nothing to hide; a symlink is hidden at both ends. */
function hideMounts(hide: readonly string[]): string[] {
  const args: string[] = [];
  const done = new Set<string>();
  for (const p of hide) {
    const r = real(p);
    if (r === undefined || done.has(r) || r === '/') continue;
    done.add(r);
    const kind = kindOf(r);
    if (kind === 'dir') args.push('--tmpfs', r, '--remount-ro', r);
    else if (kind === 'file') args.push('--ro-bind', '/dev/null', r);
  }
  return args;
}

/**
 * The directory of a program's project under `tmp`: the nearest directory above the program holding
 * `node_modules`, where a script finds its packages (and links in it point within it), or the
 * program's own directory when there is none.
 */
function projectUnderTmp(programDir: string, tmp: string): string {
  for (let dir = programDir; dir !== tmp && within(dir, tmp); dir = dirname(dir)) {
    if (kindOf(resolve(dir, 'node_modules')) === 'dir') return dir;
  }
  return programDir;
}

/**
 * What must stay visible under the private `/tmp` for the program to start at all: the program's
 * project (its own directory, or the nearest one above it holding `node_modules`) and the working
 * directory, read-only, when they live there and are not writable.
 */
function keptUnderTmp(binary: string, cwd: string, writable: readonly string[]): string[] {
  const needed: string[] = [];
  const tmp = real('/tmp') ?? '/tmp';
  const prog = isAbsolute(binary) || binary.includes('/') ? real(resolve(cwd, binary)) : undefined;
  if (prog !== undefined) needed.push(projectUnderTmp(dirname(prog), tmp));
  const rcwd = real(cwd);
  if (rcwd !== undefined) needed.push(rcwd);
  const args: string[] = [];
  for (const p of new Set(needed)) {
    if (!within(p, tmp) || p === tmp || writable.some((w) => within(p, w))) continue;
    args.push('--ro-bind', p, p);
  }
  return args;
}

function limitArgs(policy: SandboxPolicy): string[] {
  const l = policy.limits;
  const args: string[] = [];
  if (l.addressSpace !== undefined) args.push(`--as=${l.addressSpace}`);
  if (l.cpuSeconds !== undefined) args.push(`--cpu=${l.cpuSeconds}`);
  if (l.openFiles !== undefined) args.push(`--nofile=${l.openFiles}`);
  if (args.length === 0) return [];
  if (policy.prlimit === undefined)
    throw new SandboxSetupError('resource limits are set but prlimit was not found; install util-linux or remove harness.sandbox.limits');
  return [policy.prlimit, ...args, '--'];
}

/** The namespace and privilege flags every sandboxed child gets; the start-up check uses them too. */
export function isolationArgs(network: boolean): string[] {
  return [
    '--die-with-parent',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    ...(network ? [] : ['--unshare-net']),
    '--cap-drop',
    'ALL',
  ];
}

/** A `TMPDIR` under `/tmp` is made again, empty, in the private `/tmp`, so a program that uses it still finds it. */
function tmpdirArgs(tmpdir: string | undefined): string[] {
  if (tmpdir === undefined || !isAbsolute(tmpdir)) return [];
  const p = resolve(tmpdir);
  return p !== '/tmp' && within(p, '/tmp') ? ['--dir', p] : [];
}

/**
 * The command line that runs `cmd` inside the sandbox `policy` describes, from `cwd` (the call's
 * work directory, or the working directory); `tmpdir` is the child's `TMPDIR`. Throws
 * `SandboxSetupError` when a writable path is missing.
 */
export function sandboxedCommand(cmd: ChildCommand, policy: SandboxPolicy, cwd: string, tmpdir?: string): ChildCommand {
  const workDir = resolve(cwd);
  const writable = writableBinds(policy, workDir);
  const argv = [
    ...isolationArgs(policy.network),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    ...tmpdirArgs(tmpdir),
    ...keptUnderTmp(cmd.binary, workDir, writable),
    ...writable.flatMap((w) => ['--bind', w, w]),
    ...hideMounts(policy.hide),
    '--chdir',
    workDir,
    '--json-status-fd',
    String(STATUS_FD),
    '--',
    ...limitArgs(policy),
    cmd.binary,
    ...cmd.argv,
  ];
  return { binary: policy.bwrap, argv };
}
