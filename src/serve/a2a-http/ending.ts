/**
 * How a served run's end reads on its A2A task: the state it ends in, and the words with it.
 * What goes to the caller says what happened and what to do, never where this host keeps files.
 */
import { TaskState } from '@a2a-js/sdk';
import type { RunOutcome } from '../../agent/outcome.js';
import { isRunStateError } from '../../runstate/index.js';
import { withoutPaths } from '../../util/server-paths.js';
import type { WorkResult } from '../channel.js';

export interface TaskEnding {
  readonly state: TaskState;
  /** The status message; undefined for a completion, whose answer is its artifact. */
  readonly text: string | undefined;
}

export interface EndingContext {
  readonly identity: string;
  readonly sessionId: string;
  /** The caller cancelled the task. */
  readonly cancelled: boolean;
  /** The server is draining (its work not started is refused, its questions given up). */
  readonly draining: boolean;
}

const failed = (text: string): TaskEnding => ({ state: TaskState.TASK_STATE_FAILED, text });

function outcomeEnding(outcome: RunOutcome, ctx: EndingContext): TaskEnding {
  switch (outcome.status) {
    case 'completed':
      return { state: TaskState.TASK_STATE_COMPLETED, text: undefined };
    case 'aborted':
      return ctx.cancelled
        ? { state: TaskState.TASK_STATE_CANCELED, text: 'cancelled by the caller; the run stopped where it was' }
        : failed(`agent ${ctx.identity} was stopped before the task finished (session ${ctx.sessionId}); send the task again`);
    case 'suspended': {
      const why = ctx.draining ? `agent ${ctx.identity} is shutting down, so the run stopped: ` : 'the run stopped: ';
      return failed(`${why}${withoutPaths(outcome.message)} (session ${ctx.sessionId}); send the task again`);
    }
    case 'budget':
    case 'max_iterations':
      return failed(`the run stopped at a limit: ${withoutPaths(outcome.message)}`);
    case 'error':
    case 'crashed':
      return failed(`the run failed: ${withoutPaths(outcome.message)}`);
    default: {
      const never: never = outcome;
      return never;
    }
  }
}

/** The task's last state for how its work ended. */
export function taskEnding(result: WorkResult, ctx: EndingContext): TaskEnding {
  switch (result.kind) {
    case 'ran':
      return outcomeEnding(result.outcome, ctx);
    case 'abandoned':
      if (ctx.cancelled) return { state: TaskState.TASK_STATE_CANCELED, text: 'cancelled by the caller before the run started' };
      return failed(`agent ${ctx.identity} is shutting down and did not start this task; send it again`);
    case 'refused':
      if (isRunStateError(result.error, 'exists')) {
        return {
          state: TaskState.TASK_STATE_REJECTED,
          text: `agent ${ctx.identity} already ran a task for this message (session ${ctx.sessionId}); send a new message`,
        };
      }
      return { state: TaskState.TASK_STATE_REJECTED, text: withoutPaths(result.error.message) };
    case 'crashed':
      return failed(`the run failed: ${withoutPaths(result.error.message)}`);
    default: {
      const never: never = result;
      return never;
    }
  }
}
