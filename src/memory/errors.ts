/**
 * The one error class of the memory module. `code` is a closed vocabulary, so callers branch on
 * it rather than on message text; the message names what to change.
 */
import { FiskError } from '../errors/fisk-error.js';
import type { ErrorCategory } from '../errors/fisk-error.js';

export const MEMORY_ERROR_CODES = [
  'invalid_key', // the key breaks the key rules; nothing was touched
  'invalid_description', // empty or too long after normalization
  'too_large', // content or serialized entry over the limit
  'full', // the store already holds the maximum number of entries
  'exists', // create of a key that is already there
  'stale', // update without a current read of the key (or someone wrote it since)
  'not_found', // read of a key that holds nothing
  'unsafe_entry', // the stored entry is a symlink or not a regular file
  'unknown_backend', // harness.memory.backend names no registered backend
  'backend_mismatch', // an injected store reports a different backend than the configuration names
  'missing_dependency', // the backend needs something the host did not pass (a NATS connection)
  'bucket_missing', // the JetStream bucket does not exist
  'bucket_unsuitable', // the bucket has a TTL or too small a value size
  'unavailable', // the backing store could not be reached in time
  'invalid_snapshot', // a scope snapshot from a journal is malformed
  'invalid_argument', // a tool argument of the wrong type
  'io', // any other failure of the backing store
] as const;
export type MemoryErrorCode = (typeof MEMORY_ERROR_CODES)[number];

/** A memory failure with a closed code. */
export class MemoryError extends FiskError<MemoryErrorCode> {
  /** The key concerned, when the failure is about one memory. */
  readonly key: string | undefined;

  constructor(code: MemoryErrorCode, message: string, options?: { cause?: unknown; key?: string }) {
    super(code, message, { ...(options?.cause === undefined ? {} : { cause: options.cause }), retryable: code === 'unavailable' });
    this.name = 'MemoryError';
    this.key = options?.key;
  }

  /** A backend the configuration cannot get is the operator's file to fix; the rest happen at run time. */
  get category(): ErrorCategory {
    switch (this.code) {
      case 'unknown_backend':
      case 'backend_mismatch':
      case 'missing_dependency':
      case 'bucket_missing':
      case 'bucket_unsuitable':
        return 'configuration';
      default:
        return 'runtime';
    }
  }
}

/** Whether `err` is a MemoryError with the given code. */
export function isMemoryError(err: unknown, code?: MemoryErrorCode): err is MemoryError {
  return err instanceof MemoryError && (code === undefined || err.code === code);
}
