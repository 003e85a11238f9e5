/**
 * The stdio transport for MCP servers, written here rather than taken from the SDK because the
 * SDK's starts the server in fisk's own process group and stops only the process it started. A
 * server is a program someone else wrote: it may ignore a closed input and SIGTERM, and it may
 * start helpers of its own. So each server runs in a process group of its own, and ending it
 * signals the whole group: input closed, then SIGTERM, then SIGKILL, each after a grace period,
 * and a group whose leader has already exited is still ended, so no helper outlives fisk. Groups
 * still running when this process exits are killed on the way out.
 */
import type { ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { SandboxPolicy } from '../../toolkit/sandbox/policy.js';
import { startChild } from '../../toolkit/sandbox/spawn.js';

/** How long each step of ending a server waits before the next, harder one. */
export const STOP_GRACE_MS = 2_000;
/** How often a group is looked at while waiting for it to empty. */
const POLL_MS = 20;

/** What starting one server takes. */
export interface GroupStdioParams {
  readonly command: string;
  readonly args: readonly string[];
  /** The whole environment the server gets (nothing is added). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Run the server inside this sandbox; one that cannot be set up fails the start. */
  readonly sandbox?: SandboxPolicy;
}

/** Process groups started here and not yet seen empty; killed if this process exits first. */
const liveGroups = new Set<number>();
let reaperInstalled = false;

function installReaper(): void {
  if (reaperInstalled) return;
  reaperInstalled = true;
  // 'exit' handlers run on process.exit() too (a second Ctrl-C, an error exit): only synchronous work is possible
  process.on('exit', () => {
    for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
  });
}

/** Sends `signal` to every process of the group; false when the group has no process left. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

async function groupGone(pgid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (signalGroup(pgid, 0)) {
    if (Date.now() >= deadline) return false;
    // not unref'd: while a group is being ended, that wait is what keeps this process alive
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function within(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** A stdio MCP transport whose server runs, and is ended, as a process group of its own. */
export class GroupStdioTransport implements Transport {
  readonly #params: GroupStdioParams;
  readonly #readBuffer = new ReadBuffer();
  readonly #stderr = new PassThrough();
  #child: ChildProcess | undefined;
  #closing: Promise<void> | undefined;

  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(params: GroupStdioParams) {
    this.#params = params;
  }

  /** The server's standard error, readable before `start` so nothing it writes early is lost. */
  get stderr(): PassThrough {
    return this.#stderr;
  }

  /** How the server process ended ("exited with status 3", "was ended by SIGKILL"); undefined while it runs. */
  get ended(): string | undefined {
    const child = this.#child;
    if (child === undefined || (child.exitCode === null && child.signalCode === null)) return undefined;
    return child.signalCode !== null ? `was ended by ${child.signalCode}` : `exited with status ${child.exitCode ?? 0}`;
  }

  /** The server's pid, which is also its process group's id; undefined before start. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  start(): Promise<void> {
    if (this.#child !== undefined) throw new Error('the MCP server was already started');
    installReaper();
    return new Promise((resolve, reject) => {
      // a new process group (and session): signals reach every process the server starts, and a
      // terminal's Ctrl-C reaches none of them, since ending the server is fisk's to do
      const child = startChild({
        binary: this.#params.command,
        argv: this.#params.args,
        env: this.#params.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        ...(this.#params.cwd === undefined ? {} : { cwd: this.#params.cwd }),
        ...(this.#params.sandbox === undefined ? {} : { sandbox: this.#params.sandbox }),
      }).child;
      this.#child = child;
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) liveGroups.add(child.pid);
        resolve();
      });
      child.once('close', () => {
        // the server ended on its own: anything it left in its group is ended too
        if (this.#closing === undefined) void this.#endGroup(child);
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => {
        try {
          this.#readBuffer.append(chunk);
          this.#drain();
        } catch (error) {
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
          void this.close();
        }
      });
      child.stderr?.pipe(this.#stderr);
    });
  }

  #drain(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#readBuffer.readMessage();
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (stdin === undefined || stdin === null || this.#closing !== undefined || !stdin.writable) {
      return Promise.reject(new Error('the MCP server is not running'));
    }
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /**
   * Ends a server that failed to start: its group is signalled at once, with no wait for it to
   * notice its closed input, since it has already shown it does not answer. Then as `close`.
   */
  terminate(): Promise<void> {
    const child = this.#child;
    this.#closing ??= child === undefined ? Promise.resolve() : this.#endGroup(child);
    return this.#closing.finally(() => this.#readBuffer.clear());
  }

  /** Ends the server and everything in its process group. Idempotent; resolves once they are gone. */
  close(): Promise<void> {
    const child = this.#child;
    this.#closing ??= child === undefined ? Promise.resolve() : this.#stop(child);
    return this.#closing.finally(() => this.#readBuffer.clear());
  }

  async #stop(child: ChildProcess): Promise<void> {
    // a server that exits when its input closes is let go that way first
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    await within(exited(child), STOP_GRACE_MS);
    await this.#endGroup(child);
  }

  /** TERM, then KILL, to whatever is left of the group (the server itself included) once it has had its chance. */
  async #endGroup(child: ChildProcess): Promise<void> {
    const pgid = child.pid;
    if (pgid === undefined) return;
    if (signalGroup(pgid, 0)) {
      signalGroup(pgid, 'SIGTERM');
      if (!(await groupGone(pgid, STOP_GRACE_MS))) {
        signalGroup(pgid, 'SIGKILL');
        await groupGone(pgid, STOP_GRACE_MS);
      }
    }
    liveGroups.delete(pgid);
  }
}
