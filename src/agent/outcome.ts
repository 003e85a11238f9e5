/** What a run returns: one shape per way a run can end, discriminated on `status`. */
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

/** What every outcome carries, however the run ended. */
export interface OutcomeCommon {
  /** Why the model stopped on its last call, unknown reasons passed through raw. */
  readonly stopReason: StopReason | undefined;
  readonly counters: RunCounters;
  /** The model the provider reported, else the configured one. */
  readonly model: string;
  readonly durationMs: number;
  /** The iteration the next turn would use (for a resume or a follow-up). */
  readonly nextIteration: number;
  /** The conversation as it stands, for a host that continues it. */
  readonly messages: readonly Message[];
}

/** The model answered. */
export interface CompletedOutcome extends OutcomeCommon {
  readonly status: 'completed';
  readonly answer: string;
}

/** The run stopped at a boundary and can be resumed: by request, or because calls will answer later. */
export interface SuspendedOutcome extends OutcomeCommon {
  readonly status: 'suspended';
  readonly message: string;
  /** The calls that will answer later; empty for a suspend the operator asked for. */
  readonly deferred: readonly DeferredCall[];
}

/** The run stopped at a limit or was cancelled; `message` names the key to change or what happened. */
export interface StoppedOutcome extends OutcomeCommon {
  readonly status: 'budget' | 'max_iterations' | 'aborted';
  readonly message: string;
}

/** The run failed. A crash's error carries no stack: an outcome may cross to a remote peer. */
export interface FailedOutcome extends OutcomeCommon {
  readonly status: 'error' | 'crashed';
  readonly message: string;
  readonly error: RunError;
}

/**
 * The outcome of `runAgent`. A budget or iteration stop is an outcome, never an exception; so is
 * a crash.
 */
export type RunOutcome = CompletedOutcome | SuspendedOutcome | StoppedOutcome | FailedOutcome;

/** The answer of a completed run, else the empty string. */
export function answerOf(outcome: RunOutcome): string {
  return outcome.status === 'completed' ? outcome.answer : '';
}

/** What stopped a run that did not complete; the empty string for a completed one. */
export function messageOf(outcome: RunOutcome): string {
  return outcome.status === 'completed' ? '' : outcome.message;
}

/** Compile-time check that the statuses above are exactly the run statuses. */
const _everyStatus: Record<RunOutcome['status'], true> = {
  completed: true,
  suspended: true,
  budget: true,
  max_iterations: true,
  aborted: true,
  error: true,
  crashed: true,
};
const _noExtra: Record<RunStatus, RunOutcome['status']> = {
  completed: 'completed',
  suspended: 'suspended',
  budget: 'budget',
  max_iterations: 'max_iterations',
  aborted: 'aborted',
  error: 'error',
  crashed: 'crashed',
};
void _everyStatus;
void _noExtra;

/** The failure of a run that ended `error` or `crashed`, else `undefined`. */
export function errorOf(outcome: RunOutcome): RunError | undefined {
  return outcome.status === 'error' || outcome.status === 'crashed' ? outcome.error : undefined;
}

/** The calls a suspended run waits on; empty for every other outcome. */
export function deferredOf(outcome: RunOutcome): readonly DeferredCall[] {
  return outcome.status === 'suspended' ? outcome.deferred : [];
}
