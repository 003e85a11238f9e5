/**
 * The closed set of ways a run store or a journal can fail. A caller branches on `code`, never on
 * message text.
 */
import { FiskError } from '../errors/fisk-error.js';
import type { ErrorCategory } from '../errors/fisk-error.js';
export const RUN_STATE_ERROR_CODES = [
  /** A run id that is not `^[A-Za-z0-9][A-Za-z0-9_-]*$` or is longer than 128 characters. */
  'invalid_run_id',
  /** No run with that id in the store. */
  'not_found',
  /** Creating a run whose id is already taken (including a concurrent creator). */
  'exists',
  /** Another process, or another writer, holds the run. */
  'locked',
  /** A journal that cannot be read back as a valid run: bad line, bad order, bad shape. */
  'corrupt',
  /** An append that skips ahead of the last stored sequence. */
  'gap',
  /** A journal written by a different format version. */
  'version',
  /** A record that does not match its JSON Schema. */
  'schema',
  /** The backend's configuration is unusable (bad options, wrong stream settings, bad state dir). */
  'config',
  /** The store could not be reached or did not answer. */
  'unavailable',
  /** The configuration changed since the run was written and the resume is refused. */
  'fingerprint',
  /** A deferred call cannot be answered (unknown call, already answered, not deferred). */
  'answer',
  /** The run cannot be resumed or continued in its state: it completed, or a deferred call is unanswered. */
  'not_resumable',
] as const;
export type RunStateErrorCode = (typeof RUN_STATE_ERROR_CODES)[number];

/**
 * Every failure of `runstate` and its backends. Failures the model should reason about never take
 * this path; this is for the harness and the operator.
 */
export class RunStateError extends FiskError<RunStateErrorCode> {
  constructor(code: RunStateErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, { ...options, retryable: code === 'unavailable' });
    this.name = 'RunStateError';
  }

  /** A bad run id is the caller's argument, a bad backend block the operator's file; the rest happen at run time. */
  get category(): ErrorCategory {
    if (this.code === 'invalid_run_id') return 'usage';
    if (this.code === 'config') return 'configuration';
    return 'runtime';
  }
}

/** Whether `err` is a `RunStateError`, optionally with the given code. */
export function isRunStateError(err: unknown, code?: RunStateErrorCode): err is RunStateError {
  return err instanceof RunStateError && (code === undefined || err.code === code);
}
