/** What a run returns. */
import type { Message, StopReason } from '../llm/types.js';
import type { RunCounters } from './counters.js';
import type { RunError } from './errors.js';
import type { RunStatus } from './status.js';

/** A tool call that will be answered later, which is why the run suspended. */
export interface DeferredCall {
  readonly toolUseId: string;
  readonly name: string;
  readonly reason: string;
}

/**
 * The outcome of `runAgent`. A budget or iteration stop is an outcome, never an exception; so is a
 * crash, whose `error` carries no stack.
 */
export interface RunOutcome {
  readonly status: RunStatus;
  /** The final answer; empty unless the run completed. */
  readonly answer: string;
  /** Why the model stopped on its last call, unknown reasons passed through raw. */
  readonly stopReason: StopReason | undefined;
  /** For every status but completed and suspended: what stopped the run, naming the key to change. */
  readonly message: string;
  readonly error: RunError | undefined;
  readonly counters: RunCounters;
  /** The model the provider reported, else the configured one. */
  readonly model: string;
  readonly durationMs: number;
  /** The iteration the next turn would use (for a resume). */
  readonly nextIteration: number;
  readonly deferred: readonly DeferredCall[];
  /** The conversation as it stands, for a host that continues it. */
  readonly messages: readonly Message[];
}
