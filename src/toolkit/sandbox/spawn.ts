/**
 * The spawn every child of fisk goes through: application commands, the `--fisk-introspect` run
 * and stdio MCP servers. Each child starts in a process group of its own; with a policy it starts
 * inside bubblewrap, whose status pipe says afterwards whether the program ever ran, so a sandbox
 * that failed to set up is told apart from a program that failed.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess, IOType } from 'node:child_process';
import type { Readable, Stream } from 'node:stream';
import { SandboxSetupError, STATUS_FD, sandboxedCommand } from './command-line.js';
import type { SandboxPolicy } from './policy.js';

/** How long the status is waited for after the sandbox exited; its pipe closes as the namespace ends. */
const STATUS_WAIT_MS = 1_000;

type Stdio = IOType | Stream;

/** One child to start: the program and argv (never a shell line), environment and standard streams. */
export interface ChildSpec {
  readonly binary: string;
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Standard input, output and error. */
  readonly stdio: readonly [Stdio, Stdio, Stdio];
  /** Run inside this sandbox; absent runs the program directly. */
  readonly sandbox?: SandboxPolicy;
}

/** A started child, and for a sandboxed one how to learn whether the program itself ran. */
export interface StartedChild {
  readonly child: ChildProcess;
  /** True for a child started inside a sandbox. */
  readonly sandboxed: boolean;
  /**
   * After the child exited: `ran` when the program started inside the sandbox (always, unsandboxed),
   * `failed` when the sandbox could not be set up and the program never ran.
   */
  settled(): Promise<'ran' | 'failed'>;
}

/** A child that could not be started at all, with the reason in words. */
export class SpawnRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SpawnRefused';
  }
}

function readStatus(stream: Readable): { text: () => string; ended: Promise<void> } {
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    if (text.length < 4096) text += chunk;
  });
  stream.on('error', () => undefined);
  const ended = new Promise<void>((resolve) => {
    stream.once('close', () => resolve());
    stream.once('end', () => resolve());
  });
  return { text: () => text, ended };
}

async function withinMs(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * Starts `spec` in a new process group (and session), sandboxed when it carries a policy. Throws
 * `SpawnRefused` when a sandbox cannot be set up as asked; never starts the program unsandboxed.
 * Errors of `spawn` itself (a missing program) arrive as the child's `error` event, as with `spawn`.
 */
export function startChild(spec: ChildSpec): StartedChild {
  const cwd = spec.cwd ?? process.cwd();
  if (spec.sandbox === undefined) {
    const child = spawn(spec.binary, [...spec.argv], {
      stdio: [...spec.stdio],
      detached: true,
      env: { ...spec.env },
      ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
    });
    return { child, sandboxed: false, settled: () => Promise.resolve('ran') };
  }
  let command;
  try {
    command = sandboxedCommand({ binary: spec.binary, argv: spec.argv }, spec.sandbox, cwd, spec.env['TMPDIR']);
  } catch (err) {
    if (err instanceof SandboxSetupError) throw new SpawnRefused(`the sandbox cannot start: ${err.message}`);
    throw err;
  }
  const stdio: Stdio[] = [...spec.stdio];
  while (stdio.length < STATUS_FD) stdio.push('ignore');
  stdio.push('pipe');
  // detached: a new process group, so a kill reaches bubblewrap and everything inside it
  const child = spawn(command.binary, [...command.argv], { stdio, detached: true, env: { ...spec.env }, cwd });
  const statusStream = child.stdio[STATUS_FD] as Readable | null | undefined;
  const status = statusStream === null || statusStream === undefined ? undefined : readStatus(statusStream);
  return {
    child,
    sandboxed: true,
    async settled() {
      if (status === undefined) return 'failed';
      await withinMs(status.ended, STATUS_WAIT_MS);
      statusStream?.destroy();
      // bubblewrap writes the exit code only of a program it started; a failed setup never gets there
      return /"exit-code"\s*:/.test(status.text()) ? 'ran' : 'failed';
    },
  };
}
