/**
 * Runs `<binary> --fisk-introspect` once and decodes the application model. The document must
 * decode whole, so output past 16 MiB is refused rather than cut. A descendant that left the
 * process group and holds the output open is waited for only a short grace period; the deadline
 * and an abort always win. Everything the application wrote that reaches a message is cleaned of
 * terminal sequences first.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { INTROSPECT_FLAG } from '@fisk-ai/app';
import { oneLine } from '../../util/terminal-text.js';
import { ToolkitError } from '../errors.js';
import { OUTPUT_GRACE_MS, awaitOutputEnd } from './held-output.js';
import { readApplicationModel } from './model.js';
import type { SandboxPolicy } from '../sandbox/policy.js';
import { SpawnRefused, startChild } from '../sandbox/spawn.js';
import type { StartedChild } from '../sandbox/spawn.js';
import { sandboxStartFix } from '../sandbox/start-failure.js';
import type { ApplicationModel } from './model.js';

/** The largest introspection document accepted: 16 MiB. */
export const INTROSPECT_MAX_BYTES = 16 * 1024 * 1024;
/** The introspection deadline when the caller gives none: 30 s. */
export const INTROSPECT_DEFAULT_TIMEOUT_MS = 30_000;

/** What introspection needs: the binary, its environment, and optionally a deadline and a signal. */
export interface IntrospectOptions {
  readonly binary: string;
  /** The subprocess environment (already stripped of credentials). */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Run inside this sandbox (nothing writable); one that cannot start fails the introspection. */
  readonly sandbox?: SandboxPolicy;
}

function fail(binary: string, why: string, cause?: unknown): ToolkitError {
  return new ToolkitError(
    'introspect',
    `cannot introspect application_path ${JSON.stringify(binary)}: ${oneLine(why)}`,
    cause === undefined ? undefined : { cause },
  );
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Longest excerpt of an application's stderr quoted in a message. */
const GIST_MAX_CHARS = 400;
/** A line stating an error the way runtimes and programs print one: `TypeError: …`, `Error [CODE]: …`, `panic: …`, `error: …`. */
const ERROR_STATEMENT = /^(?:[A-Za-z_.]*(?:Error|Exception)\b|panic:|fatal:|error:|Error:)/;
/** Lines that say nothing on their own: stack frames, a runtime's version trailer, lone brackets and carets. */
const NOISE_LINE = /^(?:\s+at\s|\s*File ".*", line \d|Node\.js v\d|[\s{}()[\]^~,;]*$)/;

/**
 * What a failed application said, in a line or two: the first line that states an error (an uncaught
 * exception's `Error [ERR_MODULE_NOT_FOUND]: Cannot find package …`, Python's last traceback line,
 * Go's `panic:`), else the last three lines that are not stack frames or trailers.
 */
export function stderrGist(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '');
  const statement = lines.find((l) => ERROR_STATEMENT.test(l));
  const gist =
    statement ??
    lines
      .filter((l) => !NOISE_LINE.test(l))
      .slice(-3)
      .map((l) => l.trim())
      .join(' / ');
  return gist.length > GIST_MAX_CHARS ? `${gist.slice(0, GIST_MAX_CHARS - 1)}…` : gist;
}

/** Runs the introspection and returns the decoded, checked model. Throws `ToolkitError` (`introspect`). */
export async function introspect(opts: IntrospectOptions): Promise<ApplicationModel> {
  opts.signal?.throwIfAborted();
  const timeoutMs = opts.timeoutMs ?? INTROSPECT_DEFAULT_TIMEOUT_MS;
  let started: StartedChild;
  try {
    started = startChild({
      binary: opts.binary,
      argv: [INTROSPECT_FLAG],
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(opts.sandbox === undefined ? {} : { sandbox: opts.sandbox }),
    });
  } catch (err) {
    if (err instanceof SpawnRefused) throw fail(opts.binary, err.message, err);
    throw err;
  }
  const child = started.child as ChildProcessWithoutNullStreams;
  const chunks: Buffer[] = [];
  let size = 0;
  let stderr = '';
  let problem: string | undefined;
  // Ends the wait for the output when the deadline passes or the signal aborts, whatever holds it.
  const cut = new AbortController();
  const stop = (why: string, final = false): void => {
    problem ??= why;
    killGroup(child.pid);
    if (final) cut.abort();
  };
  child.stdout.on('data', (c: Buffer) => {
    size += c.length;
    if (size > INTROSPECT_MAX_BYTES)
      stop(
        `its output exceeds ${INTROSPECT_MAX_BYTES / (1024 * 1024)} MiB; the document must decode whole, so it is refused rather than cut`,
      );
    else chunks.push(c);
  });
  child.stderr.on('data', (c: Buffer) => {
    if (stderr.length < 4096) stderr += c.toString('utf8');
  });
  const timer = setTimeout(() => stop(`it did not answer within ${timeoutMs / 1000}s`, true), timeoutMs);
  const onAbort = (): void => stop('aborted', true);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const outcome = await new Promise<{ code: number | null } | { error: Error }>((resolve) => {
    child.once('error', (error) => resolve({ error }));
    child.once('exit', (code) => resolve({ code }));
  });
  // The group ends with its leader; a descendant that left it may still hold stdout or stderr.
  killGroup(child.pid);
  const end = await awaitOutputEnd([child.stdout, child.stderr], OUTPUT_GRACE_MS, cut.signal);
  clearTimeout(timer);
  opts.signal?.removeEventListener('abort', onAbort);
  if (opts.signal?.aborted === true) throw opts.signal.reason;
  if ('error' in outcome)
    throw fail(opts.binary, `it cannot be started (${outcome.error.message}); check the path and that it is executable`, outcome.error);
  if (problem !== undefined) throw fail(opts.binary, problem);
  if ((await started.settled()) === 'failed') {
    throw fail(
      opts.binary,
      `the sandbox could not start it, so it did not run (${stderrGist(stderr) || `bubblewrap exited with status ${outcome.code ?? 'unknown'}`}); ${sandboxStartFix(opts.binary)}`,
    );
  }
  if (outcome.code !== 0) {
    const gist = stderrGist(stderr);
    const said = gist === '' ? '' : `: ${gist}`;
    throw fail(opts.binary, `it exited with status ${outcome.code ?? 'unknown'}${said}; is it a fisk application?`);
  }
  let decoded: unknown;
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    // decoding never recurses, however deep the text nests; the model reader bounds what it keeps
    decoded = JSON.parse(text);
  } catch (err) {
    const held =
      end === 'held_open'
        ? `; its output was still held open ${OUTPUT_GRACE_MS} ms after it exited, by a descendant that left its process group, and was cut there`
        : '';
    throw fail(opts.binary, `its answer is not JSON (${(err as Error).message})${held}; is it a fisk application?`, err);
  }
  try {
    return readApplicationModel(decoded);
  } catch (err) {
    throw fail(opts.binary, (err as Error).message, err);
  }
}

/** What an introspection started ahead of time was started with: the binary, its environment and its deadline. */
export interface IntrospectionParams {
  readonly binary: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** The sandbox it runs in; an introspection started ahead of time never has one. */
  readonly sandbox?: SandboxPolicy;
}

/**
 * An introspection started before the code that needs its answer has loaded, so the application's
 * start overlaps ours. It is used only by a loader that would run exactly the same command: the
 * same binary, environment, deadline and working directory. Anything else discards it, which kills
 * the application if it still runs. Nothing of it outlives the process.
 */
export interface PendingIntrospection {
  /** Whether introspecting with `params` from the current working directory would run exactly this. */
  matches(params: IntrospectionParams): boolean;
  /**
   * The answer, as `introspect` would give it: the same model or the same error. A `signal` aborts
   * it as `introspect`'s own would. It can be claimed once, and not after it was discarded.
   */
  claim(signal?: AbortSignal): Promise<ApplicationModel>;
  /** Kills the application if it still runs and waits until it has gone; nothing once claimed. */
  discard(): Promise<void>;
}

function sameEnv(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && a[k] === b[k]);
}

/** Starts `<binary> --fisk-introspect` now and returns the handle its answer is claimed or discarded through. */
export function startIntrospection(params: IntrospectionParams): PendingIntrospection {
  const started = {
    binary: params.binary,
    env: { ...params.env },
    timeoutMs: params.timeoutMs,
    cwd: process.cwd(),
    sandbox: params.sandbox,
  };
  const control = new AbortController();
  const answer = introspect({
    binary: started.binary,
    env: started.env,
    timeoutMs: started.timeoutMs,
    signal: control.signal,
    ...(started.sandbox === undefined ? {} : { sandbox: started.sandbox }),
  });
  // settled quietly until claimed: an unclaimed failure is nobody's error
  const settled = answer.then(
    () => undefined,
    () => undefined,
  );
  let state: 'pending' | 'claimed' | 'discarded' = 'pending';
  return {
    matches(p) {
      return (
        state === 'pending' &&
        // a sandboxed introspection is never started ahead of the checked configuration
        p.sandbox === undefined &&
        started.sandbox === undefined &&
        p.binary === started.binary &&
        p.timeoutMs === started.timeoutMs &&
        process.cwd() === started.cwd &&
        sameEnv(p.env, started.env)
      );
    },
    async claim(signal) {
      if (state !== 'pending') throw new Error(`an introspection ${state} before cannot be claimed`);
      state = 'claimed';
      if (signal === undefined) return answer;
      const onAbort = (): void => control.abort(signal.reason);
      if (signal.aborted) {
        // as introspect itself: an aborted signal wins, whatever the application answered
        onAbort();
        await settled;
        throw signal.reason;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        return await answer;
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
    async discard() {
      if (state === 'claimed') return;
      state = 'discarded';
      control.abort(new Error('introspection discarded'));
      await settled;
    },
  };
}
