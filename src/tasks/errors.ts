/**
 * The closed set of ways a task store can fail. A caller branches on `code`, never on message text.
 */
import { FiskError } from '../errors/fisk-error.js';
import type { ErrorCategory } from '../errors/fisk-error.js';

export const TASK_ERROR_CODES = [
  /** A task id that is not `^[A-Za-z0-9][A-Za-z0-9_-]*$` or is longer than 128 characters. */
  'invalid_id',
  /** No task with that id in the store. */
  'not_found',
  /** A second completion of a task that already has its result: the first one stands. */
  'completed',
  /** A record that does not match the task record schema (refused on write and on read). */
  'schema',
  /** The backend's configuration is unusable (bad options, missing or unsuitable bucket). */
  'config',
  /** The store could not be reached or did not answer. */
  'unavailable',
  /** The task is not in a state the operation applies to (retrying a task that completed). */
  'state',
] as const;
export type TaskErrorCode = (typeof TASK_ERROR_CODES)[number];

/** Every failure of `tasks` and its backends. */
export class TaskError extends FiskError<TaskErrorCode> {
  constructor(code: TaskErrorCode, message: string, options?: { cause?: unknown }) {
    // only a store that did not answer may answer later; every other code is about the task itself
    super(code, message, { ...options, retryable: code === 'unavailable' });
    this.name = 'TaskError';
  }

  get category(): ErrorCategory {
    switch (this.code) {
      case 'invalid_id':
        return 'usage';
      case 'config':
        return 'configuration';
      case 'state':
        return 'usage';
      case 'not_found':
      case 'completed':
      case 'schema':
      case 'unavailable':
        return 'runtime';
      default: {
        const never: never = this.code;
        return never;
      }
    }
  }
}

/** Whether `err` is a TaskError with `code`. */
export function isTaskError(err: unknown, code?: TaskErrorCode): err is TaskError {
  return err instanceof TaskError && (code === undefined || err.code === code);
}
