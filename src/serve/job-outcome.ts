/**
 * What the jobs channel does with a job once its run ended, decided in one place: store a result
 * (completed, or failed for good), hand it back to be tried again later (a failure worth
 * retrying: a model service or a store that timed out or was unavailable, as the failure said
 * where it was raised), or hand it back at once without counting an attempt (work that did not
 * end by itself).
 */
import { errorOf, messageOf } from '../agent/outcome.js';
import type { RunOutcome } from '../agent/outcome.js';
import { isRetryableFailure } from '../errors/index.js';
import type { Message } from '../llm/types.js';
import { isRunStateError } from '../runstate/index.js';
import type { FoldedRun } from '../runstate/index.js';
import type { TaskResult } from '../tasks/index.js';
import type { WorkResult } from './channel.js';

/** What to do with a job whose run ended. */
export type JobDisposition =
  /** Store this result and acknowledge the job. */
  | { readonly kind: 'result'; readonly result: TaskResult }
  /** A failure worth trying again: count the attempt, hand the job back with a growing delay. */
  | { readonly kind: 'retry'; readonly reason: string }
  /** Someone else holds the run (another worker claimed it): hand the job back later, uncounted. */
  | { readonly kind: 'elsewhere'; readonly reason: string }
  /** The work did not end by itself (drain, cancel): hand the job back now, uncounted. */
  | { readonly kind: 'handback' }
  /** Another worker took the run over and stores its result: leave the message to it. */
  | { readonly kind: 'taken' };

/** The delay before attempt `attempt + 1` of a job whose attempt `attempt` failed. */
export function retryDelayMs(attempt: number): number {
  return Math.min(60_000, 1_000 * 2 ** Math.max(0, attempt - 1));
}

/** The text of the last assistant message: the answer of a journal that completed. */
function lastAnswer(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === 'assistant') return m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
  }
  return '';
}

export function waitingMessage(runId: string, calls: readonly string[]): string {
  return `the run waits on ${calls.join(', ')} to answer; answer with fisk session answer ${runId}, then resume it with fisk run --resume ${runId}`;
}

/**
 * What a journal says about a task still without a result: a completed journal gives its answer,
 * one waiting on a deferred call cannot go on. Any other ending is resumed: the channel stores a
 * failure before it acknowledges, so a journal that ended short with the task unanswered was
 * handed back to be tried again, or reopened by `fisk task retry`.
 */
export function settledByJournal(run: FoldedRun): TaskResult | 'resume' {
  switch (run.status) {
    case 'completed':
      return { state: 'completed', answer: lastAnswer(run.messages) };
    case 'suspended': {
      const waiting = run.pending?.calls.filter((c) => c.state === 'deferred') ?? [];
      if (waiting.length > 0)
        return {
          state: 'failed',
          reason: 'suspended',
          message: waitingMessage(
            run.runId,
            waiting.map((c) => c.call.name),
          ),
        };
      return 'resume';
    }
    case 'budget':
    case 'max_iterations':
    case 'error':
    case 'open':
      return 'resume';
    default: {
      const never: never = run.status;
      return never;
    }
  }
}

function ofOutcome(runId: string, outcome: RunOutcome, timedOut: string | undefined): JobDisposition {
  switch (outcome.status) {
    case 'completed':
      return { kind: 'result', result: { state: 'completed', answer: outcome.answer } };
    case 'suspended':
      if (outcome.deferred.length > 0)
        return {
          kind: 'result',
          result: {
            state: 'failed',
            reason: 'suspended',
            message: waitingMessage(
              runId,
              outcome.deferred.map((d) => d.name),
            ),
          },
        };
      return { kind: 'handback' };
    case 'budget':
    case 'max_iterations':
      return { kind: 'result', result: { state: 'failed', reason: outcome.status, message: outcome.message } };
    case 'aborted':
      // the job's own time limit cancelled it, or the operator's second interrupt did
      if (timedOut !== undefined) return { kind: 'result', result: { state: 'failed', reason: 'timeout', message: timedOut } };
      return { kind: 'handback' };
    case 'error': {
      const error = errorOf(outcome);
      if (error?.code === 'taken_over') return { kind: 'taken' };
      if (error?.retryable === true) return { kind: 'retry', reason: messageOf(outcome) };
      return { kind: 'result', result: { state: 'failed', reason: 'error', message: messageOf(outcome) } };
    }
    case 'crashed':
      // a bug, not the job: retried, and `max_deliver` stops a job that crashes every worker
      return { kind: 'retry', reason: messageOf(outcome) };
    default: {
      const never: never = outcome;
      return never;
    }
  }
}

/** Decides what a job's run ending means. `timedOut` is the message when the job's time limit cancelled it. */
export function dispositionOf(runId: string, result: WorkResult, timedOut: string | undefined): JobDisposition {
  switch (result.kind) {
    case 'abandoned':
      return { kind: 'handback' };
    case 'crashed':
      return { kind: 'retry', reason: result.error.message };
    case 'refused': {
      const e = result.error;
      if (isRunStateError(e) && (e.code === 'locked' || e.code === 'exists')) return { kind: 'elsewhere', reason: e.message };
      if (isRetryableFailure(e)) return { kind: 'retry', reason: e.message };
      return { kind: 'result', result: { state: 'failed', reason: 'refused', message: e.message } };
    }
    case 'ran':
      return ofOutcome(result.runId ?? runId, result.outcome, timedOut);
    default: {
      const never: never = result;
      return never;
    }
  }
}

/** Whether a disposition says the model service and the stores answered (so an outage is over). */
export function dependenciesAnswered(d: JobDisposition): boolean {
  return d.kind === 'result' || d.kind === 'taken';
}
