/**
 * One delivery of a job, handed to the server as its work: it records that the job runs, stops it
 * at its timeout, and when the run ends settles the message from what happened (the result stored
 * then the message acknowledged, a retry with a growing delay, a hand-back, or nothing when another
 * worker took the run over).
 */
import type { JsMsg } from '@nats-io/jetstream';
import type { Duration } from '../config/index.js';
import { isRetryableFailure } from '../errors/index.js';
import type { BudgetOverride, RunInput } from '../host/index.js';
import type { Settlement, Work, WorkIds, WorkResult } from './channel.js';
import type { JobDesk } from './job-desk.js';
import { progressedTask } from '../tasks/index.js';
import type { TaskRecord } from '../tasks/index.js';
import { RETRY_DELAY_MS } from './job-desk.js';
import { dependenciesAnswered, dispositionOf, retryDelayMs } from './job-outcome.js';

export interface JobDelivery {
  readonly msg: JsMsg;
  readonly id: string;
  readonly runId: string;
  readonly input: RunInput;
  readonly budget: BudgetOverride | undefined;
  /** Attempts already made before this one. */
  readonly attemptsBefore: number;
  /** A new job's pending record, not yet stored: the task is first stored as this run starts. */
  readonly unrecorded?: TaskRecord;
  /** Whether this delivery probes a paused dependency. */
  readonly probe: boolean;
  readonly timeout: Duration | undefined;
  /** Stops keeping the message in progress. */
  readonly stopKeepAlive: () => void;
}

export class JobWork implements Work {
  readonly label: string;
  readonly ids: WorkIds;
  readonly queuedAt: number;
  readonly attempt: number;
  readonly input: RunInput;
  readonly signal: AbortSignal;
  readonly budget?: BudgetOverride;
  readonly #desk: JobDesk;
  readonly #job: JobDelivery;
  readonly #limit = new AbortController();
  #timedOut: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** Whether the task was recorded running as the run started. */
  #marking: Promise<boolean> = Promise.resolve(true);
  /** A new job's first record, as it was to be stored when its run started. */
  #first: TaskRecord | undefined;
  #ended = false;

  constructor(desk: JobDesk, job: JobDelivery) {
    this.#desk = desk;
    this.#job = job;
    this.label = `job ${job.id}`;
    this.ids = { job: job.id, session: job.runId };
    this.queuedAt = Math.floor(job.msg.info.timestampNanos / 1e6);
    this.attempt = job.attemptsBefore + 1;
    this.input = job.input;
    this.signal = this.#limit.signal;
    if (job.budget !== undefined) this.budget = job.budget;
  }

  runContext(): void {
    const { id, timeout } = this.#job;
    const { tasks, worker } = this.#desk;
    const running = { state: 'running', worker, attempts: this.attempt } as const;
    const unrecorded = this.#job.unrecorded;
    // a new job's task is stored running at once; one stored meanwhile (or before) is updated
    const first = unrecorded === undefined ? undefined : progressedTask(unrecorded, running);
    this.#first = first;
    const marked =
      first === undefined
        ? tasks.progress(id, running)
        : tasks.ask(first).then((stored) => (stored === first ? stored : tasks.progress(id, running)));
    this.#marking = marked.then(
      () => true,
      (err: unknown) => {
        this.#desk.warn(`jobs: task ${id}: the task store did not record that it runs: ${(err as Error).message}`, this.ids);
        return false;
      },
    );
    if (timeout !== undefined) {
      this.#timer = setTimeout(() => {
        this.#timedOut = `the job ran longer than expose.agent.jobs.timeout (${timeout.text}) and was stopped; its journal keeps what was done: fisk task retry ${id}`;
        this.#limit.abort(new Error('timeout'));
      }, timeout.ms);
      this.#timer.unref();
    }
  }

  async done(result: WorkResult): Promise<Settlement> {
    if (this.#ended) return { outcome: 'returned', reason: 'already settled' };
    this.#ended = true;
    const { msg, id, runId, probe } = this.#job;
    const { pause } = this.#desk;
    this.#job.stopKeepAlive();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    await this.#marking;
    const disposition = dispositionOf(runId, result, this.#timedOut);
    if (dependenciesAnswered(disposition)) pause.succeeded();
    switch (disposition.kind) {
      case 'handback':
        pause.released(probe);
        await this.#desk.tasks.progress(id, { state: 'pending', attempts: this.#job.attemptsBefore }).catch(() => undefined);
        this.#desk.handBack(msg, 0);
        return {
          outcome: 'returned',
          reason:
            result.kind === 'abandoned'
              ? 'handed back to the queue unstarted'
              : 'stopped before it ended, handed back to the queue to resume from its journal',
        };
      case 'elsewhere':
        pause.released(probe);
        this.#desk.handBack(msg, RETRY_DELAY_MS);
        return { outcome: 'returned', reason: `held elsewhere, handed back to the queue: ${disposition.reason}` };
      case 'taken':
        // another worker claimed the run (this delivery outlived its ack wait) and holds the
        // job now; acknowledging here would let the job go if that worker died, so the
        // message is left to the worker that holds it, or to its ack wait
        pause.released(probe);
        return { outcome: 'taken_over', reason: 'another worker took the run over and stores its result' };
      case 'retry':
        return this.#retry(disposition.reason);
      case 'result':
        try {
          await this.#recorded();
          await this.#desk.finish(msg, id, disposition.result);
        } catch (err) {
          if (isRetryableFailure(err)) pause.failed(`the task store: ${(err as Error).message}`, false);
          this.#desk.handBack(msg, RETRY_DELAY_MS);
          return {
            outcome: 'retried',
            reason: `the result could not be stored, handed back to the queue (its journal keeps the work): ${(err as Error).message}`,
          };
        }
        return disposition.result.state === 'completed'
          ? { outcome: 'completed' }
          : { outcome: disposition.result.state, reason: `${disposition.result.reason}: ${disposition.result.message}` };
      default: {
        const never: never = disposition;
        return never;
      }
    }
  }

  /**
   * Stores a new job's record now when storing it as its run started failed, so that the outcome
   * has a record to go on instead of failing for want of one. Throws what the store throws.
   */
  async #recorded(): Promise<void> {
    if (this.#first !== undefined && !(await this.#marking)) await this.#desk.tasks.ask(this.#first);
  }

  /** A failure worth retrying: counted unless the worker is paused (the outage is not the job's). */
  async #retry(reason: string): Promise<Settlement> {
    const { msg, id, probe } = this.#job;
    const { pause, tasks, worker, maxDeliver } = this.#desk;
    const attempt = this.attempt;
    const counted = !probe && !pause.paused;
    pause.failed(reason, probe);
    // what follows says so when the store still fails
    await this.#recorded().catch(() => undefined);
    if (counted && attempt >= maxDeliver) {
      await tasks.progress(id, { state: 'pending', failure: { attempt, worker, message: reason } }).catch(() => undefined);
      const why = `gave up after ${attempt} attempts (expose.agent.jobs.max_deliver); the last: ${reason}`;
      await this.#desk.bury(msg, id, 'max_deliver', why);
      return { outcome: 'dead', reason: why };
    }
    const delay = counted ? retryDelayMs(attempt) : RETRY_DELAY_MS;
    try {
      await tasks.progress(
        id,
        counted ? { state: 'pending', failure: { attempt, worker, message: reason } } : { state: 'pending', attempts: attempt - 1 },
      );
    } catch (err) {
      this.#desk.warn(`jobs: task ${id}: the task store did not record the failed attempt: ${(err as Error).message}`, this.ids);
    }
    this.#desk.handBack(msg, delay);
    return {
      outcome: 'retried',
      reason: `attempt ${attempt} failed and is tried again in ${Math.round(delay / 1000)} s${counted ? '' : ' (not counted: pulling is paused)'}: ${reason}`,
    };
  }
}
