/**
 * The JetStream work-queue channel (`expose.agent.jobs`): jobs from an operator-created stream
 * through a durable pull consumer, delivered at least once.
 *
 * A job names its task (its `id`, else the message's stream sequence) and its journal is derived
 * from that. Before running, the task store is asked: a job whose task already has a result is
 * acknowledged without running again; a job whose journal exists resumes it instead of starting
 * over, and a journal that already finished gives its result without a model call. The message is
 * kept in progress while it waits for a slot and while it runs, and acknowledged only after the
 * task's result is stored. A failure worth retrying (the failure says so where it was raised)
 * hands the job back with a growing delay and records the attempt; past `max_deliver` attempts
 * the job is stored `dead`. Work that did not end by itself (abandoned on drain, cancelled) is
 * handed back uncounted; the journal keeps what was done.
 */
import { JetStreamApiCodes, JetStreamApiError, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { Consumer, ConsumerInfo, JsMsg } from '@nats-io/jetstream';
import { hostname } from 'node:os';
import type { Duration } from '../config/index.js';
import { isRetryableFailure } from '../errors/index.js';
import type { NatsConn } from '../conns/nats-connect.js';
import type { RunInput, Runtime } from '../host/index.js';
import { isRunStateError, loadRun } from '../runstate/index.js';
import type { SessionStore } from '../runstate/index.js';
import { isFinalState, isTaskError, openTaskStore, pendingTask, taskBackendNeeds } from '../tasks/index.js';
import type { TaskRecord, TaskResult, TaskStore } from '../tasks/index.js';
import type { Channel, PauseListener, Settlement, Work, WorkIds, WorkResult } from './channel.js';
import { DependencyPause } from './dependency-pause.js';
import type { Admission, ChannelStatus, DependencyPauseOptions } from './dependency-pause.js';
import { suggestedReplicas } from '../util/replicas.js';
import { ServeError } from './errors.js';
import { dependenciesAnswered, dispositionOf, retryDelayMs, settledByJournal } from './job-outcome.js';
import { JobPuller } from './job-puller.js';
import { decodeJob, jobBudget, jobRunId, sequenceTaskId } from './job.js';

/** How long work handed back without counting an attempt waits before it is offered again. */
const RETRY_DELAY_MS = 5_000;
/** Attempts a job gets before it is stored `dead` (`expose.agent.jobs.max_deliver`). */
export const DEFAULT_MAX_DELIVER = 5;
/** Pulls failing without a break for this long stop the worker. */
const UNREACHABLE_AFTER_MS = 60_000;

/** This process as a worker: its host and process id. */
export function defaultWorkerId(): string {
  return `${hostname()}:${process.pid}`;
}

/** The commands that create what the channel binds. */
export function jobsStreamAddCommand(stream: string, context?: string, replicas = 1): string {
  return `nats stream add ${stream} --subjects 'fisk.jobs.${stream}' --retention work --storage file --discard old --replicas ${replicas} --defaults${context === undefined ? '' : ` --context ${context}`}`;
}
export function jobsConsumerAddCommand(stream: string, consumer: string, context?: string, replicas = 1): string {
  return `nats consumer add ${stream} ${consumer} --pull --deliver all --ack explicit --wait 30s --max-deliver=-1 --replicas ${replicas} --defaults${context === undefined ? '' : ` --context ${context}`}`;
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
  /** Names this worker in the task records of the jobs it runs (default host:pid). */
  readonly worker?: string;
  /** Attempts before a job is stored `dead` (default 5). */
  readonly maxDeliver?: number;
  /** How long one attempt may run before it is stopped and stored `failed` (`timeout`). */
  readonly timeout?: Duration;
  /** A job older than this when pulled is stored `dead` (`max_age`). */
  readonly maxAge?: Duration;
  /** When pulls failing without a break stop the worker (ms, default 60 s). */
  readonly unreachableAfterMs?: number;
  /** How pulling pauses while the model service or a store fails. */
  readonly pause?: Omit<DependencyPauseOptions, 'warn'>;
}

/** What a job channel shows in a banner. */
export interface JobsChannel extends Channel {
  readonly stream: string;
  readonly consumer: string;
  /** The subject `fisk task submit` publishes to. */
  readonly subject: string;
  /** The worker id written into the records of the jobs this channel runs. */
  readonly worker: string;
  /** Whether the channel pulls now, or is paused by a failing dependency, or closed. */
  status(): ChannelStatus;
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
  const r = suggestedReplicas(nats.connection);
  const jsm = await jetstreamManager(nats.connection, nats.jetstream);
  const info = await jsm.streams.info(stream).catch((err: unknown) => {
    if (apiCode(err) === JetStreamApiCodes.StreamNotFound) {
      throw new ServeError('no_endpoint', `expose.agent.jobs.stream: stream ${JSON.stringify(stream)} does not exist; fisk-ai never creates it. Create it with: ${jobsStreamAddCommand(stream, ctx, r)}`);
    }
    throw new ServeError('no_endpoint', `cannot reach stream ${JSON.stringify(stream)} via NATS context ${JSON.stringify(ctx)}: ${(err as Error).message}`, { cause: err });
  });
  const ci = await jsm.consumers.info(stream, consumer).catch((err: unknown) => {
    if (apiCode(err) === JetStreamApiCodes.ConsumerNotFound) {
      throw new ServeError('no_endpoint', `expose.agent.jobs.consumer: consumer ${JSON.stringify(consumer)} on stream ${JSON.stringify(stream)} does not exist; fisk-ai never creates it. Create it with: ${jobsConsumerAddCommand(stream, consumer, ctx, r)}`);
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
      `expose.agent.jobs.consumer: consumer ${JSON.stringify(consumer)} cannot hand out jobs: ${problems.join('; ')}. Create a suitable one with: ${jobsConsumerAddCommand(stream, `${consumer}_pull`, ctx, r)}`,
    );
  }
  const filters = [ci.config.filter_subject ?? '', ...(ci.config.filter_subjects ?? [])];
  const subject = submitSubject(stream, info.config.subjects ?? [], filters);
  if (subject === undefined) throw new ServeError('no_endpoint', `expose.agent.jobs.stream: stream ${JSON.stringify(stream)} has no subjects to publish jobs on; recreate it with: ${jobsStreamAddCommand(stream, ctx, r)}`);
  return { consumerInfo: ci, subject };
}

/**
 * Binds the operator's stream and consumer (never creates them) and returns the channel. Throws
 * ServeError `no_endpoint` naming the `nats stream add` or `nats consumer add` command.
 */
export async function openJobsChannel(opts: JobsChannelOptions): Promise<JobsChannel> {
  const { nats, stream, tasks, sessions } = opts;
  const warn = opts.warn ?? ((): void => undefined);
  const worker = opts.worker ?? defaultWorkerId();
  const maxDeliver = Math.max(1, opts.maxDeliver ?? DEFAULT_MAX_DELIVER);
  const bound = await bindQueue(nats, stream, opts.consumer);
  const ackWaitMs = Math.max(1_000, Math.floor((bound.consumerInfo.config.ack_wait ?? 30e9) / 1e6));
  const js = jetstream(nats.connection, nats.jetstream);
  const consumer: Consumer = await js.consumers.get(stream, opts.consumer);
  const closing = new AbortController();
  // the server logs a pause once and reports itself not ready; without a server, the warning says it
  let listener: PauseListener | undefined;
  const pause = new DependencyPause({
    ...opts.pause,
    onPause: (reason) => (listener === undefined ? warn(`jobs: pulling paused after ${reason}`) : listener.paused(reason)),
    onResume: (ms) => (listener === undefined ? warn(`jobs: pulling resumed after a pause of ${Math.round(ms / 1000)} s`) : listener.resumed()),
  });

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

  const puller = new JobPuller({
    nats,
    stream,
    consumerName: opts.consumer,
    consumer,
    unreachableAfterMs: opts.unreachableAfterMs ?? UNREACHABLE_AFTER_MS,
    closing: closing.signal,
    recreate: { stream: jobsStreamAddCommand(stream, nats.context.name, suggestedReplicas(nats.connection)), consumer: jobsConsumerAddCommand(stream, opts.consumer, nats.context.name, suggestedReplicas(nats.connection)) },
    handBack: (m) => handBack(m, 0),
  });

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

  /** A store failed before the run: the job goes back uncounted, and the failure may pause pulling. */
  const storeTrouble = (msg: JsMsg, id: string, what: string, err: unknown, probe: boolean): void => {
    warn(`jobs: task ${id}: ${what} failed, the job is handed back: ${(err as Error).message}`, { job: id });
    if (isRetryableFailure(err)) pause.failed(`${what}: ${(err as Error).message}`, probe);
    else pause.released(probe);
    handBack(msg, RETRY_DELAY_MS);
  };

  /** Gives a job up for good: `dead` with the reason and every failed attempt kept. */
  const bury = async (msg: JsMsg, id: string, reason: 'max_deliver' | 'max_age', message: string): Promise<void> => {
    warn(`jobs: task ${id} is dead: ${message}`, { job: id });
    try {
      await finish(msg, id, { state: 'dead', reason, message });
    } catch (err) {
      warn(`jobs: task ${id}: the task store failed storing it dead, the job is handed back: ${(err as Error).message}`, { job: id });
      handBack(msg, RETRY_DELAY_MS);
    }
  };

  const workFor = async (msg: JsMsg, admission: Admission): Promise<Work | undefined> => {
    const { probe } = admission;
    const stopKeepAlive = keepAlive(msg);
    let handed = false;
    try {
      let job;
      try {
        job = decodeJob(msg.data);
      } catch (err) {
        warn(`jobs: message ${msg.info.streamSequence} on ${stream} is not a job and was dropped: it ${(err as Error).message}`);
        msg.term();
        pause.released(probe);
        return undefined;
      }
      const id = job.id ?? sequenceTaskId(stream, msg.info.streamSequence);
      const runId = jobRunId(stream, id);
      let task: TaskRecord;
      try {
        task = await tasks.ask(pendingTask(id, runId, job.prompt, new Date(), job.budget));
      } catch (err) {
        storeTrouble(msg, id, 'the task store', err, probe);
        return undefined;
      }
      if (isFinalState(task.state)) {
        // already answered: a resubmission or a redelivery after the result was stored
        await msg.ackAck().catch(() => false);
        pause.released(probe);
        return undefined;
      }
      const ageMs = Date.now() - Math.floor(msg.info.timestampNanos / 1e6);
      if (opts.maxAge !== undefined && ageMs > opts.maxAge.ms) {
        await bury(msg, id, 'max_age', `the job was ${Math.round(ageMs / 1000)} s old when it was pulled, older than expose.agent.jobs.max_age (${opts.maxAge.text})`);
        pause.released(probe);
        return undefined;
      }
      const done = task.attempts ?? 0;
      if (done >= maxDeliver) {
        await bury(msg, id, 'max_deliver', `tried ${done} times without a result (expose.agent.jobs.max_deliver is ${maxDeliver}); the last attempt ended with its worker`);
        pause.released(probe);
        return undefined;
      }
      let input: RunInput = { prompt: job.prompt, checkpoint: { runId } };
      try {
        const settled = settledByJournal(await loadRun(sessions, runId));
        if (settled !== 'resume') {
          await finish(msg, id, settled);
          pause.released(probe);
          return undefined;
        }
        input = { resume: runId };
      } catch (err) {
        if (!isRunStateError(err, 'not_found')) {
          if (isRunStateError(err, 'corrupt')) {
            await finish(msg, id, { state: 'failed', reason: 'refused', message: `the journal ${runId} cannot be read: ${err.message}` });
            pause.released(probe);
            return undefined;
          }
          storeTrouble(msg, id, 'the session store', err, probe);
          return undefined;
        }
      }
      const attempt = done + 1;
      const budget = jobBudget(job);
      const timeout = opts.timeout;
      const limit = new AbortController();
      let timedOut: string | undefined;
      let timer: NodeJS.Timeout | undefined;
      let marking: Promise<unknown> = Promise.resolve();
      let ended = false;

      /** A failure worth retrying: counted unless the worker is paused (the outage is not the job's). */
      const retry = async (reason: string): Promise<Settlement> => {
        const counted = !probe && !pause.paused;
        pause.failed(reason, probe);
        if (counted && attempt >= maxDeliver) {
          await tasks.progress(id, { state: 'pending', failure: { attempt, worker, message: reason } }).catch(() => undefined);
          const why = `gave up after ${attempt} attempts (expose.agent.jobs.max_deliver); the last: ${reason}`;
          await bury(msg, id, 'max_deliver', why);
          return { outcome: 'dead', reason: why };
        }
        const delay = counted ? retryDelayMs(attempt) : RETRY_DELAY_MS;
        try {
          await tasks.progress(id, counted ? { state: 'pending', failure: { attempt, worker, message: reason } } : { state: 'pending', attempts: attempt - 1 });
        } catch (err) {
          warn(`jobs: task ${id}: the task store did not record the failed attempt: ${(err as Error).message}`, ids);
        }
        handBack(msg, delay);
        return { outcome: 'retried', reason: `attempt ${attempt} failed and is tried again in ${Math.round(delay / 1000)} s${counted ? '' : ' (not counted: pulling is paused)'}: ${reason}` };
      };

      const ids: WorkIds = { job: id, session: runId };
      const work: Work = {
        label: `job ${id}`,
        ids,
        queuedAt: Math.floor(msg.info.timestampNanos / 1e6),
        attempt,
        input,
        signal: limit.signal,
        ...(budget === undefined ? {} : { budget }),
        runContext() {
          marking = tasks.progress(id, { state: 'running', worker, attempts: attempt }).catch((err: unknown) => {
            warn(`jobs: task ${id}: the task store did not record that it runs: ${(err as Error).message}`, ids);
          });
          if (timeout !== undefined) {
            timer = setTimeout(() => {
              timedOut = `the job ran longer than expose.agent.jobs.timeout (${timeout.text}) and was stopped; its journal keeps what was done: fisk task retry ${id}`;
              limit.abort(new Error('timeout'));
            }, timeout.ms);
            timer.unref();
          }
        },
        async done(result: WorkResult): Promise<Settlement> {
          if (ended) return { outcome: 'returned', reason: 'already settled' };
          ended = true;
          stopKeepAlive();
          if (timer !== undefined) clearTimeout(timer);
          await marking;
          const d = dispositionOf(runId, result, timedOut);
          if (dependenciesAnswered(d)) pause.succeeded();
          switch (d.kind) {
            case 'handback':
              pause.released(probe);
              await tasks.progress(id, { state: 'pending', attempts: done }).catch(() => undefined);
              handBack(msg, 0);
              return { outcome: 'returned', reason: result.kind === 'abandoned' ? 'handed back to the queue unstarted' : 'stopped before it ended, handed back to the queue to resume from its journal' };
            case 'elsewhere':
              pause.released(probe);
              handBack(msg, RETRY_DELAY_MS);
              return { outcome: 'returned', reason: `held elsewhere, handed back to the queue: ${d.reason}` };
            case 'taken':
              // another worker claimed the run (this delivery outlived its ack wait) and holds the
              // job now; acknowledging here would let the job go if that worker died, so the
              // message is left to the worker that holds it, or to its ack wait
              pause.released(probe);
              return { outcome: 'taken_over', reason: 'another worker took the run over and stores its result' };
            case 'retry':
              return retry(d.reason);
            case 'result':
              try {
                await finish(msg, id, d.result);
              } catch (err) {
                if (isRetryableFailure(err)) pause.failed(`the task store: ${(err as Error).message}`, false);
                handBack(msg, RETRY_DELAY_MS);
                return { outcome: 'retried', reason: `the result could not be stored, handed back to the queue (its journal keeps the work): ${(err as Error).message}` };
              }
              return d.result.state === 'completed' ? { outcome: 'completed' } : { outcome: d.result.state, reason: `${d.result.reason}: ${d.result.message}` };
            default: {
              const never: never = d;
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
    worker,
    status: () => pause.status,
    watchPause(l) {
      listener = l;
    },
    async next(signal) {
      for (;;) {
        const admission = await pause.admit(signal);
        if (admission === undefined) return undefined;
        const msg = await puller.next(signal);
        if (msg === null) {
          pause.released(admission.probe);
          return undefined;
        }
        const work = await workFor(msg, admission);
        if (work !== undefined) return work;
      }
    },
    close() {
      // intake stops here; a message fetched for a pull nobody waits on any more is handed back
      closing.abort(new Error('closed'));
      pause.close();
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
    maxDeliver: jobs.maxDeliver,
    ...(jobs.timeout === undefined ? {} : { timeout: jobs.timeout }),
    ...(jobs.maxAge === undefined ? {} : { maxAge: jobs.maxAge }),
    tasks,
    sessions: runtime.sessions,
    ...(opts.warn === undefined ? {} : { warn: opts.warn }),
  });
  return { channel, tasks };
}
