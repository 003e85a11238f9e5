/**
 * What `fisk task` does once a subcommand runs: opens the configured task store (and, to submit,
 * the work queue), prints, and maps each ending to an exit status.
 */
import { resolve } from 'node:path';
import { oneLine, stripControl } from '../../agent/sanitize.js';
import { parseConfigForMode, parseGoDuration } from '../../config/index.js';
import type { Config } from '../../config/index.js';
import { connectNats } from '../../conns/nats-connect.js';
import type { NatsConn } from '../../conns/nats-connect.js';
import { newRunId } from '../../runstate/index.js';
import { encodeJob, jobRunId } from '../../serve/index.js';
import type { Job } from '../../serve/index.js';
import { TaskError, checkTaskId, isFinalState, openTaskStore, pendingTask, taskBackendNeeds } from '../../tasks/index.js';
import { TASK_STATES } from '../../tasks/index.js';
import type { TaskRecord, TaskState, TaskStore } from '../../tasks/index.js';
import { CliError, ExitWith, UsageError } from '../errors.js';
import { EXIT, exitFor } from '../exit-codes.js';
import type { ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';
import { println } from '../io.js';
import { processInterrupt } from '../process.js';
import { publishJob, queueSubject, untilDeadline } from './task-publish.js';

export interface TaskActionFlags {
  readonly config: string;
  readonly stateDir?: string;
}

export interface SubmitFlags {
  readonly id?: string;
  readonly maxTokens?: string;
  readonly maxIterations?: string;
  readonly wait?: boolean;
  readonly timeout?: string;
}

/** How often `--wait` reads the task. */
const POLL_MS = 250;

function clean(text: string): string {
  return stripControl(text);
}

export function truncate(text: string, max: number): string {
  const c = oneLine(stripControl(text));
  const chars = [...c];
  return chars.length <= max ? c : `${chars.slice(0, max).join('')}...`;
}

function asCliError(err: unknown): unknown {
  if (err instanceof TaskError && err.code !== 'completed') return new CliError(err.message, exitFor(err), { cause: err });
  return err;
}

export interface Opened {
  readonly config: Config;
  readonly store: TaskStore;
  readonly nats: NatsConn | undefined;
  close(): Promise<void>;
}

/** Reads the configuration and opens its task store, connecting to NATS when the store or `withNats` needs it. */
async function openStore(io: Io, flags: TaskActionFlags, withNats: boolean): Promise<Opened> {
  const config = parseConfigForMode({ path: resolve(io.cwd, flags.config) }, 'session');
  if (withNats && (config.expose.jobs === undefined || config.expose.jobs.stream === '')) {
    throw new CliError(`${config.source} sets no work queue: add expose.agent.jobs with its stream (and consumer)`, EXIT.config);
  }
  let nats: NatsConn | undefined;
  const needsNats = withNats || taskBackendNeeds(config.tasks.backend).includes('nats');
  if (needsNats) {
    if (config.natsContext === undefined) {
      throw new CliError(
        `nats_context is required in ${config.source}: ${withNats ? 'jobs are published to JetStream' : `tasks.backend ${config.tasks.backend} keeps tasks in JetStream`}`,
        EXIT.config,
      );
    }
    // --wait can outlive a NATS outage: the client keeps reconnecting rather than closing for good
    nats = await connectNats(config.natsContext, { env: io.env, name: 'fisk-ai task', keepReconnecting: true });
  }
  const close = async (): Promise<void> => {
    if (nats !== undefined && !nats.connection.isClosed()) await nats.connection.close();
  };
  try {
    const open = (): ReturnType<typeof openTaskStore> =>
      openTaskStore(config.tasks, {
        env: io.env,
        cwd: config.baseDir,
        ...(flags.stateDir === undefined ? {} : { stateDir: resolve(io.cwd, flags.stateDir) }),
        ...(nats === undefined ? {} : { nats }),
      });
    // a submission rides out a leader election from its first step: binding the task bucket
    // times out while the bucket's leader is being elected, just as a publish does
    const store = withNats ? await untilDeadline('binding the task store', open) : await open();
    return { config, store, nats, close };
  } catch (err) {
    await close();
    throw asCliError(err);
  }
}

export async function withStore<T>(io: Io, flags: TaskActionFlags, withNats: boolean, fn: (o: Opened) => Promise<T>): Promise<T> {
  const opened = await openStore(io, flags, withNats);
  try {
    return await fn(opened);
  } catch (err) {
    throw asCliError(err);
  } finally {
    await opened.close();
  }
}

const shortTime = (iso: string): string => iso.replace('T', ' ').replace(/\.\d+Z$/u, 'Z');

/** Who holds a running task and since when; empty for any other. */
function heldBy(t: TaskRecord): string {
  return t.state === 'running' && t.worker !== undefined && t.started !== undefined
    ? `${oneLine(stripControl(t.worker))} since ${shortTime(t.started)}`
    : '';
}

/** The `ls` table. */
export function formatTaskTable(rows: readonly TaskRecord[]): string[] {
  const cells = rows.map((t) => [t.id, t.state, String(t.attempts ?? 0), shortTime(t.created), heldBy(t), truncate(t.prompt, 60)]);
  const head = ['ID', 'STATE', 'ATTEMPTS', 'CREATED', 'RUNNING ON', 'PROMPT'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: readonly string[]): string => c.map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i] ?? 0))).join('  ');
  return [line(head), ...cells.map(line)];
}

/** The `show` lines. */
export function formatTask(t: TaskRecord): string[] {
  const out = [`Task:     ${t.id}`, `State:    ${t.state}`, `Run:      ${t.run_id}`, `Created:  ${t.created}`];
  if (t.finished !== undefined) out.push(`Finished: ${t.finished}`);
  if (t.attempts !== undefined) out.push(`Attempts: ${t.attempts}`);
  if (t.worker !== undefined)
    out.push(
      `${t.state === 'running' ? 'Worker:  ' : 'Last ran:'} ${oneLine(stripControl(t.worker))}${t.started === undefined ? '' : ` since ${t.started}`}`,
    );
  if (t.reason !== undefined) out.push(`Reason:   ${t.reason}`);
  if (t.message !== undefined) out.push(`Message:  ${truncate(t.message, 400)}`);
  if (t.failures !== undefined && t.failures.length > 0) {
    out.push('', 'Failed attempts:');
    for (const f of t.failures)
      out.push(
        `  ${f.attempt}  ${f.at}${f.worker === undefined ? '' : `  ${oneLine(stripControl(f.worker))}`}  ${truncate(f.message, 200)}`,
      );
  }
  out.push('', 'Prompt:', clean(t.prompt));
  if (t.answer !== undefined) out.push('', 'Answer:', clean(t.answer));
  return out;
}

/** `--state`, checked against the closed set before anything is opened. */
export function stateFilter(value: string | undefined): TaskState | undefined {
  if (value === undefined) return undefined;
  const found = TASK_STATES.find((s) => s === value);
  if (found === undefined)
    throw new UsageError(`--state ${JSON.stringify(value)} is not a task state; use one of ${TASK_STATES.join(', ')}`);
  return found;
}

export async function listTasks(flags: TaskActionFlags, io: Io, opts: { readonly state?: string } = {}): Promise<void> {
  const state = stateFilter(opts.state);
  const all = await withStore(io, flags, false, (o) => o.store.list());
  const rows = state === undefined ? all : all.filter((t) => t.state === state);
  if (rows.length === 0) {
    // a note, not a row: a script reading the table sees none
    println(io.err, state === undefined ? 'No tasks' : `No ${state} tasks`);
    return;
  }
  for (const line of formatTaskTable(rows)) println(io.out, line);
}

export async function showTask(flags: TaskActionFlags, id: string, io: Io): Promise<void> {
  const task = await withStore(io, flags, false, async (o) => {
    const t = await o.store.get(id);
    if (t === undefined) throw new TaskError('not_found', `no task ${JSON.stringify(id)} in ${o.store.location}`);
    return t;
  });
  for (const line of formatTask(task)) println(io.out, line);
}

function positive(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a whole number of at least 1, not ${JSON.stringify(value)}`);
  return n;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The exit status of a task that has its result. */
function exitOf(t: TaskRecord): ExitCode {
  if (t.state === 'completed') return EXIT.ok;
  if (t.reason === 'budget') return EXIT.budget;
  if (t.reason === 'max_iterations') return EXIT.maxIterations;
  return EXIT.error;
}

export async function submitTask(flags: TaskActionFlags, words: readonly string[], opts: SubmitFlags, io: Io): Promise<void> {
  // every flag is checked before anything is read or connected
  const maxTokens = positive(opts.maxTokens, '--max-tokens');
  const maxIterations = positive(opts.maxIterations, '--max-iterations');
  let timeoutMs: number | undefined;
  if (opts.timeout !== undefined) {
    if (opts.wait !== true) throw new UsageError('--timeout applies only with --wait; add --wait or remove --timeout');
    try {
      timeoutMs = parseGoDuration(opts.timeout);
    } catch {
      throw new UsageError(`--timeout ${JSON.stringify(opts.timeout)} is not a duration; use a form like 90s, 10m or 1h`);
    }
    if (!(timeoutMs > 0)) throw new UsageError('--timeout must be longer than zero');
  }
  if (opts.id !== undefined) {
    try {
      checkTaskId(opts.id);
    } catch (err) {
      throw new UsageError(`--id: ${(err as Error).message}`);
    }
  }
  let prompt = words.join(' ');
  if (prompt.trim() === '' && process.stdin.isTTY !== true) prompt = await readStdin();
  if (prompt.trim() === '') throw new UsageError('submit needs a prompt: pass it as arguments or pipe it on standard input');
  const id = opts.id ?? newRunId();
  const job: Job = {
    prompt,
    id,
    ...(maxTokens === undefined && maxIterations === undefined
      ? {}
      : {
          budget: {
            ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
            ...(maxIterations === undefined ? {} : { max_iterations: maxIterations }),
          },
        }),
  };
  let data: Uint8Array;
  try {
    data = encodeJob(job);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }

  await withStore(io, flags, true, async ({ config, store, nats }) => {
    const jobs = config.expose.jobs as NonNullable<Config['expose']['jobs']>;
    const conn = nats as NatsConn;
    const { subject } = await queueSubject(config, conn);
    // the task is recorded as asked before the job is queued, so `fisk task show` finds it at once
    const asked = await untilDeadline('recording the task', () =>
      store.ask(pendingTask(id, jobRunId(jobs.stream, id), prompt, new Date(), job.budget)),
    );
    if (isFinalState(asked.state)) {
      // a job id that already has its result is not queued again
      if (opts.wait === true) return report(asked, id, io);
      println(io.out, id);
      println(io.err, `job ${id} already has its result (${asked.state}); nothing was queued: fisk task show ${id}`);
      return;
    }
    // the stream's duplicate window drops a second publish of the same id outright
    const ack = await publishJob(conn, subject, data, id);
    if (opts.wait !== true) {
      println(io.out, id);
      println(
        io.err,
        `submitted job ${id} to ${jobs.stream}${ack.duplicate ? ' (already queued with this id)' : ''}; follow it with: fisk task show ${id}`,
      );
      return;
    }
    println(io.err, `submitted job ${id} to ${jobs.stream}; waiting for its result (Ctrl-C stops waiting, the job still runs)`);
    const result = await waitForResult(store, id, timeoutMs, (line) => println(io.err, line));
    if (result === 'interrupted') {
      println(io.err, `stopped waiting; the job still runs: fisk task show ${id}`);
      throw new ExitWith(EXIT.aborted);
    }
    if (result === 'timeout') {
      println(io.err, `no result for job ${id} within ${opts.timeout ?? ''}; it may still run: fisk task show ${id}`);
      throw new ExitWith(EXIT.error);
    }
    report(result, id, io);
  });
}

/** Prints a result: the answer on stdout, or the failure on stderr with its exit status. */
export function report(result: TaskRecord, id: string, io: Io): void {
  if (result.state === 'completed') {
    println(io.out, clean(result.answer ?? ''));
    return;
  }
  println(io.err, `job ${id} ${result.reason ?? 'failed'}: ${truncate(result.message ?? '', 400)}`);
  throw new ExitWith(exitOf(result));
}

/**
 * Reads the task until it has its result, the timeout passes or Ctrl-C is pressed. A store that
 * does not answer for a while (NATS away, a bucket between leaders) is waited out, since the job
 * goes on without this command: `tell` hears once when the task cannot be read and once when it
 * can again. Any other failure to read it ends the wait.
 */
export async function waitForResult(
  store: TaskStore,
  id: string,
  timeoutMs: number | undefined,
  tell: (line: string) => void = (): void => undefined,
): Promise<TaskRecord | 'timeout' | 'interrupted'> {
  let stop: 'timeout' | 'interrupted' | undefined;
  let wake: (() => void) | undefined;
  const off = processInterrupt(() => {
    stop = 'interrupted';
    wake?.();
  });
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => ((stop = 'timeout'), wake?.()), timeoutMs);
  let unreadable = false;
  try {
    for (;;) {
      let task: TaskRecord | undefined;
      try {
        task = await store.get(id);
        if (unreadable) tell(`reading job ${id}'s task again; still waiting for its result`);
        unreadable = false;
      } catch (err) {
        if (!(err instanceof TaskError) || err.code !== 'unavailable') throw err;
        if (!unreadable) tell(`${err.message}; still waiting, since the job runs on without this command (Ctrl-C stops waiting)`);
        unreadable = true;
      }
      if (task !== undefined && isFinalState(task.state)) return task;
      if (stop !== undefined) return stop;
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, POLL_MS);
      });
      if (stop !== undefined) return stop;
    }
  } finally {
    off();
    if (timer !== undefined) clearTimeout(timer);
  }
}
