/**
 * What the jobs channel and each job's work settle a message through: storing a task's result
 * before its message is acknowledged, handing a message back, burying a job that can never run.
 */
import type { JsMsg } from '@nats-io/jetstream';
import { isRetryableFailure } from '../errors/index.js';
import { isTaskError } from '../tasks/index.js';
import type { TaskResult, TaskStore } from '../tasks/index.js';
import type { WorkIds } from './channel.js';
import type { DependencyPause } from './dependency-pause.js';

/** How long work handed back without counting an attempt waits before it is offered again. */
export const RETRY_DELAY_MS = 5_000;

export class JobDesk {
  readonly tasks: TaskStore;
  readonly pause: DependencyPause;
  /** Names this worker in the task records of the jobs it runs. */
  readonly worker: string;
  /** Attempts before a job is stored `dead`. */
  readonly maxDeliver: number;
  readonly #warn: (text: string, ids?: WorkIds) => void;
  readonly #ackWaitMs: number;

  constructor(options: {
    readonly tasks: TaskStore;
    readonly pause: DependencyPause;
    readonly worker: string;
    readonly maxDeliver: number;
    readonly ackWaitMs: number;
    readonly warn: (text: string, ids?: WorkIds) => void;
  }) {
    this.tasks = options.tasks;
    this.pause = options.pause;
    this.worker = options.worker;
    this.maxDeliver = options.maxDeliver;
    this.#ackWaitMs = options.ackWaitMs;
    this.#warn = options.warn;
  }

  warn(text: string, ids?: WorkIds): void {
    this.#warn(text, ids);
  }

  /** Keeps a message from being redelivered while this worker still holds it; returns the stop. */
  keepAlive(msg: JsMsg): () => void {
    const timer = setInterval(() => msg.working(), Math.max(250, Math.floor(this.#ackWaitMs / 3)));
    timer.unref();
    return () => clearInterval(timer);
  }

  handBack(msg: JsMsg, delayMs: number): void {
    try {
      msg.nak(delayMs);
    } catch {
      // the connection is gone: the ack wait hands the message back instead
    }
  }

  /** Stores the result (a second result is not an error: the first stands), then acknowledges. */
  async finish(msg: JsMsg, id: string, result: TaskResult): Promise<void> {
    try {
      await this.tasks.complete(id, result);
    } catch (err) {
      if (!isTaskError(err, 'completed')) throw err;
    }
    await msg.ackAck().catch(() => false);
  }

  /** A store failed before the run: the job goes back uncounted, and the failure may pause pulling. */
  storeTrouble(msg: JsMsg, id: string, what: string, err: unknown, probe: boolean): void {
    this.warn(`jobs: task ${id}: ${what} failed, the job is handed back: ${(err as Error).message}`, { job: id });
    if (isRetryableFailure(err)) this.pause.failed(`${what}: ${(err as Error).message}`, probe);
    else this.pause.released(probe);
    this.handBack(msg, RETRY_DELAY_MS);
  }

  /** Gives a job up for good: `dead` with the reason and every failed attempt kept. */
  async bury(msg: JsMsg, id: string, reason: 'max_deliver' | 'max_age', message: string): Promise<void> {
    this.warn(`jobs: task ${id} is dead: ${message}`, { job: id });
    try {
      await this.finish(msg, id, { state: 'dead', reason, message });
    } catch (err) {
      this.warn(`jobs: task ${id}: the task store failed storing it dead, the job is handed back: ${(err as Error).message}`, { job: id });
      this.handBack(msg, RETRY_DELAY_MS);
    }
  }
}
