/**
 * Runs a program in its own process group with stdout and stderr on one socket, so the two
 * streams keep the order the program wrote them in, and kills the whole group on timeout, abort,
 * or when the leader exits leaving children behind holding the output open. A descendant that left
 * the group (`setsid`) is out of a group kill's reach; its hold on the output is cut after a short
 * grace period, so neither the deadline nor an interrupt ever waits on it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { lstat, readdir, rmdir, unlink } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeadTailCapture, OUTPUT_CAP } from './capture.js';
import { OUTPUT_GRACE_MS, awaitOutputEnd } from './held-output.js';
import type { SandboxPolicy } from '../sandbox/policy.js';
import { SpawnRefused, startChild } from '../sandbox/spawn.js';
import { sandboxStartFix } from '../sandbox/start-failure.js';
import type { StartedChild } from '../sandbox/spawn.js';

/** One command to run: binary, argv (never a shell line), environment and limits. */
export interface RunOptions {
  readonly binary: string;
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Kill the group after this long; absent waits as long as the signal allows. */
  readonly timeoutMs?: number;
  readonly signal: AbortSignal;
  /** The output budget (default 64 KiB as head and tail). */
  readonly cap?: number;
  /** Run inside this sandbox; a sandbox that cannot start fails the call, never runs it outside. */
  readonly sandbox?: SandboxPolicy;
}

/**
 * How a run ended. An abort is not here: it rejects with the signal's reason. `heldOpen` says a
 * descendant outside the process group still held the output when reading stopped.
 */
export type RunResult =
  | {
      readonly kind: 'exited';
      readonly exitCode: number;
      readonly signal: string | null;
      readonly output: string;
      readonly truncated: boolean;
      readonly bytes: number;
      readonly heldOpen: boolean;
    }
  | { readonly kind: 'timed_out'; readonly output: string; readonly truncated: boolean; readonly heldOpen: boolean }
  | { readonly kind: 'failed'; readonly message: string };

// A filesystem socket inside a private (0700) directory, deliberately not Linux's abstract
// namespace: anyone on the host can connect to an abstract socket and race to feed a call's output.
let socketDir: string | undefined;
let socketSeq = 0;

function socketPath(): string {
  if (socketDir === undefined) {
    const dir = mkdtempSync(join(tmpdir(), `${SOCKET_DIR_PREFIX}${process.pid}-`));
    socketDir = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    sweepDeadSocketDirs(tmpdir());
  }
  socketSeq += 1;
  return join(socketDir, `${process.pid}-${socketSeq}.sock`);
}

const SOCKET_DIR_PREFIX = 'fisk-out-';
const SOCKET_DIR = new RegExp(`^${SOCKET_DIR_PREFIX}(\\d+)-[A-Za-z0-9]{6}$`, 'u');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes, in the background, the socket directories in `base` of processes that ended without
 * removing theirs (a process killed outright runs no exit hook): `fisk-out-<pid>-*`, owned by this
 * user, whose process is gone, with the sockets left in them. Anything else is left as it is, and
 * what cannot be removed stays (nothing here reports or throws).
 */
export function sweepDeadSocketDirs(base: string): void {
  const uid = process.getuid?.();
  const sweepOne = async (dir: string): Promise<void> => {
    const info = await lstat(dir);
    if (!info.isDirectory() || (uid !== undefined && info.uid !== uid)) return;
    const sockets = (await readdir(dir)).filter((e) => e.endsWith('.sock'));
    await Promise.all(sockets.map((e) => unlink(join(dir, e))));
    // removes the directory only once it is empty: anything but sockets keeps it
    await rmdir(dir);
  };
  void readdir(base)
    .then((names) => {
      for (const name of names) {
        const owner = SOCKET_DIR.exec(name)?.[1];
        if (owner === undefined || Number(owner) === process.pid || alive(Number(owner))) continue;
        sweepOne(join(base, name)).catch(() => undefined);
      }
    })
    .catch(() => undefined);
}

/**
 * A connected socket pair over a private unix socket: `writer` is handed to the child as both
 * stdout and stderr, `reader` stays here. Node offers no anonymous pipe to share between two fds.
 */
async function socketPair(): Promise<{ reader: Socket; writer: Socket }> {
  const path = socketPath();
  const server = createServer();
  const accepted = new Promise<Socket>((resolve, reject) => {
    server.once('connection', resolve);
    server.once('error', reject);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, resolve);
  });
  const writer = connect(path);
  await new Promise<void>((resolve, reject) => {
    writer.once('connect', resolve);
    writer.once('error', reject);
  });
  const reader = await accepted;
  server.close();
  return { reader, writer };
}

/**
 * One connected pair made ahead of time, so a call's critical path skips the listen, connect and
 * accept round trips. Unreferenced while it waits, so an idle spare never keeps a process alive.
 */
let spare: Promise<{ reader: Socket; writer: Socket }> | undefined;

function prepareSpare(): void {
  if (spare !== undefined) return;
  const made = socketPair().then((pair) => {
    pair.reader.unref();
    pair.writer.unref();
    return pair;
  });
  // A failure here is reported by the call that would have used the spare, when it makes its own.
  made.catch(() => undefined);
  spare = made;
}

async function takePair(): Promise<{ reader: Socket; writer: Socket }> {
  const ready = spare;
  spare = undefined;
  if (ready !== undefined) {
    try {
      const pair = await ready;
      pair.reader.ref();
      return pair;
    } catch {
      // fall through to a fresh pair, whose failure is the one reported
    }
  }
  return socketPair();
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Runs one command to completion under the rules above. Rejects only on abort. */
export async function runCaptured(opts: RunOptions): Promise<RunResult> {
  opts.signal.throwIfAborted();
  const { reader, writer } = await takePair();
  const capture = new HeadTailCapture(opts.cap ?? OUTPUT_CAP);
  reader.on('data', (chunk: Buffer) => capture.write(chunk));
  // Registered now so an error before the end is handled; the end itself is awaited below.
  reader.on('error', () => undefined);

  let started: StartedChild;
  try {
    // a new process group, so a kill reaches every descendant
    started = startChild({
      binary: opts.binary,
      argv: opts.argv,
      env: opts.env,
      stdio: ['ignore', writer, writer],
      ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
      ...(opts.sandbox === undefined ? {} : { sandbox: opts.sandbox }),
    });
  } catch (err) {
    writer.destroy();
    reader.destroy();
    if (err instanceof SpawnRefused) return { kind: 'failed', message: err.message };
    return { kind: 'failed', message: `cannot start ${opts.binary}: ${(err as Error).message}` };
  } finally {
    // The child holds its own copies; ours must close or the reader never sees the end.
    writer.destroy();
  }
  const child = started.child;
  const pid = child.pid;
  // Made while the command runs, ready for the next call.
  prepareSpare();
  let timedOut = false;
  let aborted = false;
  const onAbort = (): void => {
    aborted = true;
    killGroup(pid);
  };
  opts.signal.addEventListener('abort', onAbort, { once: true });
  // An abort while the socket was being set up fired before the listener existed.
  if (opts.signal.aborted) onAbort();
  const timer =
    opts.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          killGroup(pid);
        }, opts.timeoutMs);

  const exited = new Promise<{ code: number | null; sig: string | null } | { error: Error }>((resolve) => {
    child.once('error', (error) => resolve({ error }));
    child.once('exit', (code, sig) => resolve({ code, sig }));
  });
  const ended = await exited;
  // Descendants left behind would hold the output socket open; the call's lifetime is theirs too.
  killGroup(pid);
  if ('error' in ended) reader.destroy();
  const end = await awaitOutputEnd([reader], OUTPUT_GRACE_MS, opts.signal);
  const heldOpen = end === 'held_open';
  if (timer !== undefined) clearTimeout(timer);
  opts.signal.removeEventListener('abort', onAbort);

  if (aborted) throw opts.signal.reason;
  if ('error' in ended) return { kind: 'failed', message: `cannot start ${opts.binary}: ${ended.error.message}` };
  if (timedOut) return { kind: 'timed_out', output: capture.text(), truncated: capture.truncated, heldOpen };
  if ((await started.settled()) === 'failed') {
    const said = capture.text().trim() || `bubblewrap exited with status ${ended.code ?? 'unknown'}`;
    return {
      kind: 'failed',
      message: `the sandbox could not start ${opts.binary}, so it did not run: ${said}; ${sandboxStartFix(opts.binary)}`,
    };
  }
  return {
    kind: 'exited',
    exitCode: ended.code ?? -1,
    signal: ended.sig,
    output: capture.text(),
    truncated: capture.truncated,
    bytes: capture.total,
    heldOpen,
  };
}
