/**
 * The JetStream work-queue channel (`expose.agent.jobs`): jobs from an operator-created stream
 * through a durable pull consumer, delivered at least once.
 *
 * A job names its task (its `id`, else the message's stream sequence) and its journal is derived
 * from that. Before running, the task store is asked: a job whose task already has a result is
 * acknowledged without running again; a job whose journal exists resumes it instead of starting
 * over, and a journal that already finished gives its result without a model call. The message is
 * kept in progress while it waits for a slot and while it runs, and acknowledged only after the
 * task's result is stored. Work that did not end by itself (abandoned on drain, crashed, a store
 * briefly unreachable) is handed back for redelivery; the journal keeps what was done.
 */
import { JetStreamApiCodes, JetStreamApiError, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { Consumer, ConsumerInfo, JsMsg } from '@nats-io/jetstream';
import { errorOf, messageOf } from '../agent/outcome.js';
import type { RunOutcome } from '../agent/outcome.js';
import type { NatsConn } from '../conns/nats-connect.js';
import type { RunInput, Runtime } from '../host/index.js';
import type { Message } from '../llm/types.js';
import { isRunStateError, loadRun } from '../runstate/index.js';
import type { FoldedRun, SessionStore } from '../runstate/index.js';
import { isTaskError, openTaskStore, pendingTask, taskBackendNeeds } from '../tasks/index.js';
import type { TaskRecord, TaskResult, TaskStore } from '../tasks/index.js';
import type { Channel, Settlement, Work, WorkIds, WorkResult } from './channel.js';
import { ServeError } from './errors.js';
import { decodeJob, jobBudget, jobRunId, sequenceTaskId } from './job.js';

/** How long one pull waits on the server before asking again. */
const PULL_EXPIRES_MS = 5_000;
/** How long work handed back waits before it is offered again. */
const RETRY_DELAY_MS = 5_000;

/** The commands that create what the channel binds. */
export function jobsStreamAddCommand(stream: string, context?: string): string {
  return `nats stream add ${stream} --subjects 'fisk.jobs.${stream}' --retention work --storage file --discard old --defaults${context === undefined ? '' : ` --context ${context}`}`;
}
export function jobsConsumerAddCommand(stream: string, consumer: string, context?: string): string {
  return `nats consumer add ${stream} ${consumer} --pull --deliver all --ack explicit --wait 30s --max-deliver=-1 --defaults${context === undefined ? '' : ` --context ${context}`}`;
}

export interface JobsChannelOptions {
  /** Borrowed; never closed by the channel. */
  readonly nats: NatsConn;
  readonly stream: string;
  readonly consumer: string;
  readonly workers: number;
  readonly tasks: TaskStore;
  readonly sessions: SessionStore;
  /**
   * Told about messages that can never run and about store trouble, with the ids of the job it
   * concerns; never a prompt or answer.
   */
  readonly warn?: (text: string, ids?: WorkIds) => void;
}

/** What a job channel shows in a banner. */
export interface JobsChannel extends Channel {
  readonly stream: string;
  readonly consumer: string;
  /** The subject `fisk task submit` publishes to. */
  readonly subject: string;
}

const apiCode = (err: unknown): number | undefined => (err instanceof JetStreamApiError ? err.code : undefined);

/** The subject to publish a job on, from the consumer's filter or else the stream's subjects. */
export function submitSubject(stream: string, subjects: readonly string[], filters: readonly string[]): string | undefined {
  const literal = (s: string): boolean => !s.split('.').some((t) => t === '*' || t === '>');
  const concrete = (s: string): string => s.replace(/\.>$/u, '.job').replace(/(^|\.)\*(?=\.|$)/gu, '$1job');
  for (const f of filters) if (f !== '') return literal(f) ? f : concrete(f);
  const first = subjects[0];
  if (first === undefined) return undefined;
  return literal(first) ? first : concrete(first);
}

/** What a channel and `fisk task submit` learn by binding the queue. */
export interface BoundQueue {
  readonly consumerInfo: ConsumerInfo;
  readonly subject: string;
}

/**
 * Checks that the stream and the durable pull consumer exist and can hold a work queue. Throws
 * ServeError `no_endpoint` naming the command that creates what is missing or wrong.
 */
export async function bindQueue(nats: NatsConn, stream: string, consumer: string): Promise<BoundQueue> {
  const ctx = nats.context.name;
  const jsm = await jetstreamManager(nats.connection, nats.jetstream);
  const info = await jsm.streams.info(stream).catch((err: unknown) => {
    if (apiCode(err) === JetStreamApiCodes.StreamNotFound) {
      throw new ServeError('no_endpoint', `expose.agent.jobs.stream: stream ${JSON.stringify(stream)} does not exist; fisk-ai never creates it. Create it with: ${jobsStreamAddCommand(stream, ctx)}`);
    }
    throw new ServeError('no_endpoint', `cannot reach stream ${JSON.stringify(stream)} via NATS context ${JSON.stringify(ctx)}: ${(err as Error).message}`, { cause: err });
  });
  const ci = await jsm.consumers.info(stream, consumer).catch((err: unknown) => {
    if (apiCode(err) === JetStreamApiCodes.ConsumerNotFound) {
      throw new ServeError('no_endpoint', `expose.agent.jobs.consumer: consumer ${JSON.stringify(consumer)} on stream ${JSON.stringify(stream)} does not exist; fisk-ai never creates it. Create it with: ${jobsConsumerAddCommand(stream, consumer, ctx)}`);
    }
    throw new ServeError('no_endpoint', `cannot read consumer ${JSON.stringify(consumer)} on stream ${JSON.stringify(stream)}: ${(err as Error).message}`, { cause: err });
  });
  const problems: string[] = [];
  if (ci.config.deliver_subject !== undefined && ci.config.deliver_subject !== '') problems.push('it is a push consumer; jobs are pulled');
  if (ci.config.ack_policy !== 'explicit') problems.push(`its ack policy is ${String(ci.config.ack_policy)}; jobs need explicit acks`);
  if (ci.config.durable_name === undefined || ci.config.durable_name === '') problems.push('it is not durable');
  if (problems.length > 0) {
    throw new ServeError(
      'no_endpoint',
      `expose.agent.jobs.consumer: consumer ${JSON.stringify(consumer)} cannot hand out jobs: ${problems.join('; ')}. Create a suitable one with: ${jobsConsumerAddCommand(stream, `${consumer}_pull`, ctx)}`,
    );
  }
  const filters = [ci.config.filter_subject ?? '', ...(ci.config.filter_subjects ?? [])];
  const subject = submitSubject(stream, info.config.subjects ?? [], filters);
  if (subject === undefined) throw new ServeError('no_endpoint', `expose.agent.jobs.stream: stream ${JSON.stringify(stream)} has no subjects to publish jobs on; recreate it with: ${jobsStreamAddCommand(stream, ctx)}`);
  return { consumerInfo: ci, subject };
}

/** The text of the last assistant message: the answer of a journal that completed. */
function lastAnswer(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === 'assistant') return m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
  }
  return '';
}

/** What a journal says about a task whose worker stopped between the run and the result. */
function settledByJournal(run: FoldedRun): TaskResult | 'resume' {
  switch (run.status) {
    case 'completed':
      return { state: 'completed', answer: lastAnswer(run.messages) };
    case 'budget':
    case 'max_iterations':
      return { state: 'failed', reason: run.status, message: `the run stopped at its ${run.status === 'budget' ? 'token budget' : 'iteration limit'}` };
    case 'error':
      return { state: 'failed', reason: 'error', message: run.terminal?.message ?? 'the run failed' };
    case 'suspended': {
      const waiting = run.pending?.calls.filter((c) => c.state === 'deferred') ?? [];
      if (waiting.length > 0) return { state: 'failed', reason: 'suspended', message: waitingMessage(run.runId, waiting.map((c) => c.call.name)) };
      return 'resume';
    }
    case 'open':
      return 'resume';
    default: {
      const never: never = run.status;
      return never;
    }
  }
}

function waitingMessage(runId: string, calls: readonly string[]): string {
  return `the run waits on ${calls.join(', ')} to answer; answer with fisk session answer ${runId}, then resume it with fisk run --resume ${runId}`;
}

/** The result to store for a run that ended by itself; `undefined` when it should run again. */
function resultOf(runId: string | undefined, outcome: RunOutcome): TaskResult | 'retry' | 'taken' {
  switch (outcome.status) {
    case 'completed':
      return { state: 'completed', answer: outcome.answer };
    case 'suspended':
      if (outcome.deferred.length > 0) return { state: 'failed', reason: 'suspended', message: waitingMessage(runId ?? '', outcome.deferred.map((d) => d.name)) };
      return 'retry';
    case 'budget':
    case 'max_iterations':
      return { state: 'failed', reason: outcome.status, message: outcome.message };
    case 'error': {
      const code = errorOf(outcome)?.code;
      if (code === 'taken_over') return 'taken';
      if (code === 'journal') return 'retry';
      return { state: 'failed', reason: 'error', message: messageOf(outcome) };
    }
    case 'aborted':
    case 'crashed':
      return 'retry';
    default: {
      const never: never = outcome;
      return never;
    }
  }
}

/** A refusal another attempt may get past (the run is held elsewhere, a store was unreachable). */
function transientRefusal(error: Error): boolean {
  if (isRunStateError(error)) return error.code === 'locked' || error.code === 'unavailable' || error.code === 'exists';
  return isTaskError(error, 'unavailable');
}

/**
 * Binds the operator's stream and consumer (never creates them) and returns the channel. Throws
 * ServeError `no_endpoint` naming the `nats stream add` or `nats consumer add` command.
 */
export async function openJobsChannel(opts: JobsChannelOptions): Promise<JobsChannel> {
  const { nats, stream, tasks, sessions } = opts;
  const warn = opts.warn ?? ((): void => undefined);
  const bound = await bindQueue(nats, stream, opts.consumer);
  const ackWaitMs = Math.max(1_000, Math.floor((bound.consumerInfo.config.ack_wait ?? 30e9) / 1e6));
  const js = jetstream(nats.connection, nats.jetstream);
  const consumer: Consumer = await js.consumers.get(stream, opts.consumer);
  const closing = new AbortController();
  let pending: Promise<JsMsg | null> | undefined;

  /** Keeps a message from being redelivered while this worker still holds it. */
  const keepAlive = (msg: JsMsg): (() => void) => {
    const timer = setInterval(() => msg.working(), Math.max(250, Math.floor(ackWaitMs / 3)));
    timer.unref();
    return () => clearInterval(timer);
  };

  const handBack = (msg: JsMsg, delayMs: number): void => {
    try {
      msg.nak(delayMs);
    } catch {
      // the connection is gone: the ack wait hands the message back instead
    }
  };

  /** Stores a result once; a second result is not an error (the first stands). */
  const store = async (id: string, result: TaskResult): Promise<void> => {
    try {
      await tasks.complete(id, result);
    } catch (err) {
      if (!isTaskError(err, 'completed')) throw err;
    }
  };

  const finish = async (msg: JsMsg, id: string, result: TaskResult): Promise<void> => {
    await store(id, result);
    await msg.ackAck().catch(() => false);
  };

  /** Waits for the next message, or null on close. Transient trouble is retried, not raised. */
  const pull = async (signal: AbortSignal): Promise<JsMsg | null> => {
    let quiet = 250;
    for (;;) {
      if (signal.aborted || closing.signal.aborted) return null;
      if (nats.connection.isClosed()) throw new Error(`the NATS connection to context ${nats.context.name} closed`);
      pending ??= consumer.next({ expires: PULL_EXPIRES_MS });
      const mine = pending;
      let on = (): void => undefined;
      const stop = new Promise<'stop'>((resolve) => {
        on = (): void => resolve('stop');
        signal.addEventListener('abort', on, { once: true });
        closing.signal.addEventListener('abort', on, { once: true });
      });
      let got: JsMsg | null | 'stop';
      try {
        got = await Promise.race([mine, stop]);
      } catch (err) {
        pending = undefined;
        const code = apiCode(err);
        if (code === JetStreamApiCodes.ConsumerNotFound || code === JetStreamApiCodes.StreamNotFound) {
          throw new Error(`the jobs consumer ${opts.consumer} on stream ${stream} is gone; recreate it with: ${jobsConsumerAddCommand(stream, opts.consumer, nats.context.name)}`, { cause: err });
        }
        await new Promise((r) => setTimeout(r, quiet).unref());
        quiet = Math.min(quiet * 2, 5_000);
        continue;
      } finally {
        signal.removeEventListener('abort', on);
        closing.signal.removeEventListener('abort', on);
      }
      if (got === 'stop') {
        // a message that arrives for the abandoned pull goes straight back to the queue
        void mine.then((m) => (m === null ? undefined : handBack(m, 0))).catch(() => undefined);
        pending = undefined;
        return null;
      }
      pending = undefined;
      if (got !== null) return got;
      quiet = 250;
    }
  };

  const workFor = async (msg: JsMsg): Promise<Work | undefined> => {
    const stopKeepAlive = keepAlive(msg);
    let handed = false;
    try {
      let job;
      try {
        job = decodeJob(msg.data);
      } catch (err) {
        warn(`jobs: message ${msg.info.streamSequence} on ${stream} is not a job and was dropped: it ${(err as Error).message}`);
        msg.term();
        return undefined;
      }
      const id = job.id ?? sequenceTaskId(stream, msg.info.streamSequence);
      const runId = jobRunId(stream, id);
      let task: TaskRecord;
      try {
        task = await tasks.ask(pendingTask(id, runId, job.prompt));
      } catch (err) {
        warn(`jobs: task ${id}: the task store failed, the job is handed back: ${(err as Error).message}`, { job: id });
        handBack(msg, RETRY_DELAY_MS);
        return undefined;
      }
      if (task.state !== 'pending') {
        // already answered: a resubmission or a redelivery after the result was stored
        await msg.ackAck().catch(() => false);
        return undefined;
      }
      let input: RunInput = { prompt: job.prompt, checkpoint: { runId } };
      try {
        const stored = await loadRun(sessions, runId);
        const settled = settledByJournal(stored);
        if (settled !== 'resume') {
          await finish(msg, id, settled);
          return undefined;
        }
        input = { resume: runId };
      } catch (err) {
        if (!isRunStateError(err) || err.code !== 'not_found') {
          if (isRunStateError(err) && err.code === 'corrupt') {
            await finish(msg, id, { state: 'failed', reason: 'refused', message: `the journal ${runId} cannot be read: ${err.message}` });
            return undefined;
          }
          warn(`jobs: task ${id}: the session store failed, the job is handed back: ${(err as Error).message}`, { job: id, session: runId });
          handBack(msg, RETRY_DELAY_MS);
          return undefined;
        }
      }
      const budget = jobBudget(job);
      let ended = false;
      const work: Work = {
        label: `job ${id}`,
        ids: { job: id, session: runId },
        queuedAt: Math.floor(msg.info.timestampNanos / 1e6),
        attempt: msg.info.deliveryCount,
        input,
        ...(budget === undefined ? {} : { budget }),
        async done(result: WorkResult): Promise<Settlement> {
          if (ended) return { outcome: 'returned', reason: 'already settled' };
          ended = true;
          stopKeepAlive();
          switch (result.kind) {
            case 'abandoned':
              handBack(msg, 0);
              return { outcome: 'returned', reason: 'handed back to the queue unstarted' };
            case 'crashed':
              handBack(msg, RETRY_DELAY_MS);
              return { outcome: 'retried', reason: `crashed, handed back to the queue: ${result.error.message}` };
            case 'refused':
              if (transientRefusal(result.error)) {
                handBack(msg, RETRY_DELAY_MS);
                return { outcome: 'retried', reason: `refused for now, handed back to the queue: ${result.error.message}` };
              }
              await finish(msg, id, { state: 'failed', reason: 'refused', message: result.error.message });
              return { outcome: 'failed', reason: `refused: ${result.error.message}` };
            case 'ran': {
              const r = resultOf(result.runId ?? runId, result.outcome);
              if (r === 'retry') {
                handBack(msg, 0);
                return { outcome: result.outcome.status === 'crashed' || result.outcome.status === 'error' ? 'retried' : 'returned', reason: `${result.outcome.status}, handed back to the queue to resume from its journal${messageOf(result.outcome) === '' ? '' : `: ${messageOf(result.outcome)}`}` };
              }
              if (r === 'taken') {
                // another worker holds the run now and stores its result
                await msg.ackAck().catch(() => false);
                return { outcome: 'taken_over', reason: 'another worker took the run over and stores its result' };
              }
              try {
                await finish(msg, id, r);
              } catch (err) {
                handBack(msg, RETRY_DELAY_MS);
                return { outcome: 'retried', reason: `the result could not be stored, handed back to the queue (its journal keeps the work): ${(err as Error).message}` };
              }
              return r.state === 'completed' ? { outcome: 'completed' } : { outcome: 'failed', reason: `${r.reason}: ${r.message}` };
            }
            default: {
              const never: never = result;
              return never;
            }
          }
        },
      };
      handed = true;
      return work;
    } finally {
      if (!handed) stopKeepAlive();
    }
  };

  return {
    name: 'jobs',
    workers: opts.workers,
    stream,
    consumer: opts.consumer,
    subject: bound.subject,
    async next(signal) {
      for (;;) {
        const msg = await pull(signal);
        if (msg === null) return undefined;
        const work = await workFor(msg);
        if (work !== undefined) return work;
      }
    },
    close() {
      // intake stops here; a message fetched for a pull nobody waits on any more is handed back
      closing.abort(new Error('closed'));
      return Promise.resolve();
    },
  };
}

/** What `openConfiguredJobs` hands back: the channel and the task store it writes. */
export interface ConfiguredJobs {
  readonly channel: JobsChannel;
  readonly tasks: TaskStore;
}

/**
 * The jobs channel `expose.agent.jobs` describes, on the runtime's NATS connection, session store
 * and the configured task store (`tasks`). Throws ServeError or TaskError naming what to create
 * or change; nothing is provisioned.
 */
export async function openConfiguredJobs(
  runtime: Runtime,
  opts: { readonly cwd: string; readonly stateDir?: string; readonly warn?: (text: string, ids?: WorkIds) => void },
): Promise<ConfiguredJobs> {
  const config = runtime.config;
  const jobs = config.expose.jobs;
  if (jobs === undefined) throw new ServeError('no_endpoint', 'expose.agent.jobs is not set');
  if (config.natsContext === undefined) throw new ServeError('no_endpoint', 'nats_context is required to take jobs from a JetStream work queue');
  if (runtime.sessions === undefined) throw new ServeError('no_endpoint', 'jobs are journaled: open the runtime with its session store');
  const nats = await runtime.connections.connection(config.natsContext);
  const tasks = await openTaskStore(config.tasks, {
    env: runtime.env,
    cwd: opts.cwd,
    ...(opts.stateDir === undefined ? {} : { stateDir: opts.stateDir }),
    ...(taskBackendNeeds(config.tasks.backend).includes('nats') ? { nats } : {}),
  });
  const channel = await openJobsChannel({
    nats,
    stream: jobs.stream,
    consumer: jobs.consumer === '' ? config.identity : jobs.consumer,
    workers: jobs.workers,
    tasks,
    sessions: runtime.sessions,
    ...(opts.warn === undefined ? {} : { warn: opts.warn }),
  });
  return { channel, tasks };
}
