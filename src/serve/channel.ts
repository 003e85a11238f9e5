/**
 * What a served agent takes work from. A channel says nothing of its transport: what it can do
 * is what it fills in on the work it hands over. One that can put a question to a person
 * supplies a prompter; one that cannot leaves it out, and the server substitutes one that
 * declines every gated call.
 */
import type { RunOutcome } from '../agent/outcome.js';
import type { BudgetOverride, RunHandle, RunInput } from '../host/index.js';
import type { ServedOutcome } from '../telemetry/index.js';
import type { Prompter } from '../toolkit/tool.js';

/** How a piece of work ended, as the server saw it. */
export type WorkResult =
  /** The run started and ended; `outcome` says how (completed, suspended, stopped, failed). */
  | { readonly kind: 'ran'; readonly runId: string | undefined; readonly outcome: RunOutcome }
  /** The work's own signal, or the server's drain, ended it while it waited for a slot. */
  | { readonly kind: 'abandoned' }
  /** The run could not start (a resume the gate refused, a prompt the PII guard rejected, …). */
  | { readonly kind: 'refused'; readonly error: Error }
  /** Something failed outside the run itself; the channel decides whether the work is retried. */
  | { readonly kind: 'crashed'; readonly error: Error };

/**
 * What the channel did with a piece of work once it ended, for the log and the metrics: how it
 * settled and, for anything but a completion, why, in words an operator reads.
 */
export interface Settlement {
  readonly outcome: ServedOutcome;
  readonly reason?: string;
}

/** The ids an operator finds a piece of work by: the job (task) id, the session (journal) id. */
export interface WorkIds {
  readonly job?: string;
  readonly session?: string;
}

/**
 * Told by a channel when it stops pulling because a dependency keeps failing, and when it pulls
 * again. The server logs each change once, counts pauses and reports itself not ready meanwhile.
 */
export interface PauseListener {
  paused(reason: string): void;
  resumed(): void;
}

/** One unit of work a channel hands the server. */
export interface Work {
  /** Names the work in logs and the startup banner: the channel and its own id. */
  readonly label: string;
  /** The job and session ids of the work, as far as the channel knows them before it runs. */
  readonly ids?: WorkIds;
  /** When the sender queued the work (ms since the epoch), for the queue lag metric. */
  readonly queuedAt?: number;
  /** Which attempt this is, counting from 1 (a redelivered job is 2 or more). */
  readonly attempt?: number;
  /**
   * What to run. A new prompt carries `checkpoint.runId` derived by the channel from its own
   * inputs (never a caller's bytes), so a redelivery or a follow-up finds the same journal.
   */
  readonly input: RunInput;
  /** Asks a person; absent when the channel cannot. */
  readonly prompter?: Prompter;
  /** Lowers the configured limits for this run; never raises them. */
  readonly budget?: BudgetOverride;
  /** Aborted when whoever sent the work gives up on it before it starts (or while it runs). */
  readonly signal?: AbortSignal;
  /** Aborted when the sender asks the run to stop at its next boundary, resumable. */
  readonly park?: AbortSignal;
  /** Emit the model's text as `text_fragment` events as it is generated. */
  readonly stream?: boolean;
  /** The agents the work came through (a delegated prompt's chain), outermost first, without this one. */
  readonly hops?: readonly string[];
  /**
   * Called once, after the slot is taken and immediately before the run: the only sign the
   * channel gets that its work started. Receives the handle so the channel can stream events.
   */
  runContext?(handle: RunHandle): void;
  /**
   * Called exactly once, whatever happened, on a context that is not the run's, so a cancelled
   * run still records what happened. The server waits for it before releasing the slot. A channel
   * that decides more than the run did (stored, retried, handed back) says so in the settlement
   * it returns; otherwise the server derives one from the result.
   */
  done(result: WorkResult): Promise<Settlement | void>;
}

/** A source of work. */
export interface Channel {
  /** Shown in the startup banner and in logs. */
  readonly name: string;
  /** How many runs from this channel may run at once (the channel's `workers` key). */
  readonly workers: number;
  /**
   * The next piece of work, or `undefined` once the channel is closed and has nothing more.
   * `signal` aborts when the server drains; the channel then returns `undefined`.
   */
  next(signal: AbortSignal): Promise<Work | undefined>;
  /**
   * Stops intake in the order this channel needs so nothing is acknowledged that will not run.
   * Idempotent. Work already handed over still finishes and calls `done`.
   */
  close(): Promise<void>;
  /**
   * Resolves once everything the channel owes its senders has gone out (the terminal reply of
   * each finished piece of work). The server waits for it after the runs in flight have ended and
   * before it reports itself stopped, so a process exiting then loses no answer.
   */
  settled?(): Promise<void>;
  /**
   * Registers the server's listener for pauses in pulling; a channel that never pauses leaves
   * this out. Called once, before the first `next`.
   */
  watchPause?(listener: PauseListener): void;
}
