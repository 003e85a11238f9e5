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
import type { NatsConn } from '../conns/nats-connect.js';
import { requireRunRuntime } from '../host/index.js';
import type { JournaledRuntime, RunInput } from '../host/index.js';
import { isRunStateError, loadRun } from '../runstate/index.js';
import type { SessionStore } from '../runstate/index.js';
import { isFinalState, openTaskStore, pendingTask, taskBackendNeeds } from '../tasks/index.js';
import type { TaskRecord, TaskStore } from '../tasks/index.js';
import type { Channel, PauseListener, Work, WorkIds } from './channel.js';
import { DependencyPause } from './dependency-pause.js';
import type { Admission, ChannelStatus, DependencyPauseOptions } from './dependency-pause.js';
import { suggestedReplicas } from '../util/replicas.js';
import { ServeError } from './errors.js';
import { JobDesk } from './job-desk.js';
import { settledByJournal } from './job-outcome.js';
import { JobPuller } from './job-puller.js';
import { decodeJob, jobBudget, jobRunId, sequenceTaskId } from './job.js';
import { JobWork } from './job-work.js';

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
   * Whether the channel closes `tasks` (`TaskStore.close`) when it closes: for a store opened for
   * it alone, as `openConfiguredJobs` does. Runs still finishing store their results all the same.
   */
  readonly closeTasks?: boolean;
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
  const replicas = suggestedReplicas(nats.connection);
  const jsm = await jetstreamManager(nats.connection, nats.jetstream);
  const info = await jsm.streams.info(stream).catch((err: unknown) => {
    if (apiCode(err) === JetStreamApiCodes.StreamNotFound) {
      throw new ServeError(
        'no_endpoint',
        `expose.agent.jobs.stream: stream ${JSON.stringify(stream)} does not exist; fisk-ai never creates it. Create it with: ${jobsStreamAddCommand(stream, ctx, replicas)}`,
      );
    }
    throw new ServeError(
      'no_endpoint',
      `cannot reach stream ${JSON.stringify(stream)} via NATS context ${JSON.stringify(ctx)}: ${(err as Error).message}`,
      { cause: err },
    );
  });
  const ci = await jsm.consumers.info(stream, consumer).catch((err: unknown) => {
    if (apiCode(err) === JetStreamApiCodes.ConsumerNotFound) {
      throw new ServeError(
        'no_endpoint',
        `expose.agent.jobs.consumer: consumer ${JSON.stringify(consumer)} on stream ${JSON.stringify(stream)} does not exist; fisk-ai never creates it. Create it with: ${jobsConsumerAddCommand(stream, consumer, ctx, replicas)}`,
      );
    }
    throw new ServeError(
      'no_endpoint',
      `cannot read consumer ${JSON.stringify(consumer)} on stream ${JSON.stringify(stream)}: ${(err as Error).message}`,
      { cause: err },
    );
  });
  const problems: string[] = [];
  if (ci.config.deliver_subject !== undefined && ci.config.deliver_subject !== '') problems.push('it is a push consumer; jobs are pulled');
  if (ci.config.ack_policy !== 'explicit') problems.push(`its ack policy is ${String(ci.config.ack_policy)}; jobs need explicit acks`);
  if (ci.config.durable_name === undefined || ci.config.durable_name === '') problems.push('it is not durable');
  if (problems.length > 0) {
    throw new ServeError(
      'no_endpoint',
      `expose.agent.jobs.consumer: consumer ${JSON.stringify(consumer)} cannot hand out jobs: ${problems.join('; ')}. Create a suitable one with: ${jobsConsumerAddCommand(stream, `${consumer}_pull`, ctx, replicas)}`,
    );
  }
  const filters = [ci.config.filter_subject ?? '', ...(ci.config.filter_subjects ?? [])];
  const subject = submitSubject(stream, info.config.subjects ?? [], filters);
  if (subject === undefined)
    throw new ServeError(
      'no_endpoint',
      `expose.agent.jobs.stream: stream ${JSON.stringify(stream)} has no subjects to publish jobs on; recreate it with: ${jobsStreamAddCommand(stream, ctx, replicas)}`,
    );
  return { consumerInfo: ci, subject };
}

/**
 * Binds the operator's stream and consumer (never creates them) and returns the channel. Throws
 * ServeError `no_endpoint` naming the `nats stream add` or `nats consumer add` command.
 */
export function openJobsChannel(opts: JobsChannelOptions): Promise<JobsChannel> {
  return JetStreamJobsChannel.open(opts);
}

/** The work-queue channel: pulls a job when a worker is free and hands it over as work. */
export class JetStreamJobsChannel implements JobsChannel {
  readonly name = 'jobs';
  readonly workers: number;
  readonly stream: string;
  readonly consumer: string;
  readonly subject: string;
  readonly worker: string;
  readonly #opts: JobsChannelOptions;
  readonly #desk: JobDesk;
  readonly #puller: JobPuller;
  readonly #closing: AbortController;
  #listener: PauseListener | undefined;

  private constructor(opts: JobsChannelOptions, bound: BoundQueue, consumer: Consumer) {
    const { nats, stream } = opts;
    const warn = opts.warn ?? ((): void => undefined);
    this.#opts = opts;
    this.workers = opts.workers;
    this.stream = stream;
    this.consumer = opts.consumer;
    this.subject = bound.subject;
    this.worker = opts.worker ?? defaultWorkerId();
    this.#closing = new AbortController();
    // the server logs a pause once and reports itself not ready; without a server, the warning says it
    const pause = new DependencyPause({
      ...opts.pause,
      onPause: (reason) => (this.#listener === undefined ? warn(`jobs: pulling paused after ${reason}`) : this.#listener.paused(reason)),
      onResume: (ms) =>
        this.#listener === undefined ? warn(`jobs: pulling resumed after a pause of ${Math.round(ms / 1000)} s`) : this.#listener.resumed(),
    });
    this.#desk = new JobDesk({
      tasks: opts.tasks,
      pause,
      worker: this.worker,
      maxDeliver: Math.max(1, opts.maxDeliver ?? DEFAULT_MAX_DELIVER),
      ackWaitMs: Math.max(1_000, Math.floor((bound.consumerInfo.config.ack_wait ?? 30e9) / 1e6)),
      warn,
    });
    this.#puller = new JobPuller({
      nats,
      stream,
      consumerName: opts.consumer,
      consumer,
      unreachableAfterMs: opts.unreachableAfterMs ?? UNREACHABLE_AFTER_MS,
      closing: this.#closing.signal,
      recreate: {
        stream: jobsStreamAddCommand(stream, nats.context.name, suggestedReplicas(nats.connection)),
        consumer: jobsConsumerAddCommand(stream, opts.consumer, nats.context.name, suggestedReplicas(nats.connection)),
      },
      handBack: (m) => this.#desk.handBack(m, 0),
    });
  }

  /** See `openJobsChannel`. */
  static async open(opts: JobsChannelOptions): Promise<JetStreamJobsChannel> {
    const bound = await bindQueue(opts.nats, opts.stream, opts.consumer);
    const js = jetstream(opts.nats.connection, opts.nats.jetstream);
    const consumer = await js.consumers.get(opts.stream, opts.consumer);
    return new JetStreamJobsChannel(opts, bound, consumer);
  }

  status(): ChannelStatus {
    return this.#desk.pause.status;
  }

  watchPause(listener: PauseListener): void {
    this.#listener = listener;
  }

  async next(signal: AbortSignal): Promise<Work | undefined> {
    for (;;) {
      const admission = await this.#desk.pause.admit(signal);
      if (admission === undefined) return undefined;
      const msg = await this.#puller.next(signal);
      if (msg === null) {
        this.#desk.pause.released(admission.probe);
        return undefined;
      }
      const work = await this.#workFor(msg, admission);
      if (work !== undefined) return work;
    }
  }

  async close(): Promise<void> {
    // intake stops here; a message fetched for a pull nobody waits on any more is handed back
    this.#closing.abort(new Error('closed'));
    this.#desk.pause.close();
    if (this.#opts.closeTasks === true) await this.#opts.tasks.close?.();
  }

  /**
   * Decides what a pulled message is: not a job (dropped), already answered or settled by its
   * journal (acknowledged), too old or tried too often (buried), or work to run or resume.
   */
  async #workFor(msg: JsMsg, admission: Admission): Promise<Work | undefined> {
    const { probe } = admission;
    const desk = this.#desk;
    const stopKeepAlive = desk.keepAlive(msg);
    let handed = false;
    try {
      let job;
      try {
        job = decodeJob(msg.data);
      } catch (err) {
        desk.warn(`jobs: message ${msg.info.streamSequence} on ${this.stream} is not a job and was dropped: it ${(err as Error).message}`);
        msg.term();
        desk.pause.released(probe);
        return undefined;
      }
      const id = job.id ?? sequenceTaskId(this.stream, msg.info.streamSequence);
      const runId = jobRunId(this.stream, id);
      const asked = pendingTask(id, runId, job.prompt, new Date(), job.budget);
      // A job seen for the first time is recorded when its run starts, and then as running: one
      // record written instead of a pending one and then its running successor. A new job settled
      // without a run gets its pending record first, for its outcome to be stored on.
      let stored: TaskRecord | undefined;
      try {
        stored = await desk.tasks.get(id);
      } catch (err) {
        desk.storeTrouble(msg, id, 'the task store', err, probe);
        return undefined;
      }
      const recorded = async (): Promise<boolean> => {
        if (stored !== undefined) return true;
        try {
          stored = await desk.tasks.ask(asked);
          return true;
        } catch (err) {
          desk.storeTrouble(msg, id, 'the task store', err, probe);
          return false;
        }
      };
      const task = stored ?? asked;
      if (isFinalState(task.state)) {
        // already answered: a resubmission or a redelivery after the result was stored
        await msg.ackAck().catch(() => false);
        desk.pause.released(probe);
        return undefined;
      }
      const { maxAge } = this.#opts;
      const ageMs = Date.now() - Math.floor(msg.info.timestampNanos / 1e6);
      if (maxAge !== undefined && ageMs > maxAge.ms) {
        if (!(await recorded())) return undefined;
        await desk.bury(
          msg,
          id,
          'max_age',
          `the job was ${Math.round(ageMs / 1000)} s old when it was pulled, older than expose.agent.jobs.max_age (${maxAge.text})`,
        );
        desk.pause.released(probe);
        return undefined;
      }
      const done = task.attempts ?? 0;
      if (done >= desk.maxDeliver) {
        await desk.bury(
          msg,
          id,
          'max_deliver',
          `tried ${done} times without a result (expose.agent.jobs.max_deliver is ${desk.maxDeliver}); the last attempt ended with its worker`,
        );
        desk.pause.released(probe);
        return undefined;
      }
      let input: RunInput = { prompt: job.prompt, checkpoint: { runId } };
      try {
        const settled = settledByJournal(await loadRun(this.#opts.sessions, runId));
        if (settled !== 'resume') {
          if (!(await recorded())) return undefined;
          await desk.finish(msg, id, settled);
          desk.pause.released(probe);
          return undefined;
        }
        input = { resume: runId };
      } catch (err) {
        if (!isRunStateError(err, 'not_found')) {
          if (isRunStateError(err, 'corrupt')) {
            if (!(await recorded())) return undefined;
            await desk.finish(msg, id, {
              state: 'failed',
              reason: 'refused',
              message: `the journal ${runId} cannot be read: ${err.message}`,
            });
            desk.pause.released(probe);
            return undefined;
          }
          desk.storeTrouble(msg, id, 'the session store', err, probe);
          return undefined;
        }
      }
      const work = new JobWork(desk, {
        msg,
        id,
        runId,
        input,
        budget: jobBudget(job),
        attemptsBefore: done,
        ...(stored === undefined ? { unrecorded: asked } : {}),
        probe,
        timeout: this.#opts.timeout,
        stopKeepAlive,
      });
      handed = true;
      return work;
    } finally {
      if (!handed) stopKeepAlive();
    }
  }
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
  given: JournaledRuntime,
  opts: { readonly cwd: string; readonly stateDir?: string; readonly warn?: (text: string, ids?: WorkIds) => void },
): Promise<ConfiguredJobs> {
  // a caller the type checker did not see may still pass a runtime of another mode, or one unjournaled
  const runtime = requireRunRuntime(given, 'taking jobs', true);
  const config = runtime.config;
  const jobs = config.expose.jobs;
  if (jobs === undefined) throw new ServeError('no_endpoint', 'expose.agent.jobs is not set');
  if (config.natsContext === undefined)
    throw new ServeError('no_endpoint', 'nats_context is required to take jobs from a JetStream work queue');
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
    closeTasks: true,
    sessions: runtime.sessions,
    ...(opts.warn === undefined ? {} : { warn: opts.warn }),
  });
  return { channel, tasks };
}
