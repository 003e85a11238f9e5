/**
 * Failures of a model call. Every provider maps its SDK's errors onto this one class with a closed
 * `code`, so the agent loop decides what to do (give up, tell the operator to wait, stop quietly)
 * from the class of failure and never from message text.
 */
import { FiskError } from '../errors/fisk-error.js';
import type { ErrorCategory } from '../errors/fisk-error.js';

/** The closed set of model-call failure classes. */
export const LLM_ERROR_CODES = [
  'timeout', // the per-call timeout elapsed before the provider answered
  'aborted', // the caller's signal cancelled the call
  'rate_limited', // HTTP 429 after the SDK's retries
  'overloaded', // HTTP 529 or 503 after the SDK's retries
  'bad_request', // HTTP 400, 404, 413 or 422: the request itself is wrong
  'auth', // HTTP 401 or 403: the credential is missing, wrong or lacks permission
  'server', // any other HTTP status from the provider
  'network', // no HTTP answer at all: connection refused, reset, DNS
  'decode', // an answer arrived that this build could not understand
] as const;
export type LlmErrorCode = (typeof LLM_ERROR_CODES)[number];

/** Options for {@link LlmError}. */
export interface LlmErrorOptions {
  readonly cause?: unknown;
  /** The HTTP status, when the provider answered with one. */
  readonly status?: number;
  /** The provider's request id, for a support ticket. */
  readonly requestId?: string;
  /** What the operator can change to avoid the failure, naming the config key. */
  readonly hint?: string;
}

/**
 * A model call that failed. `message` already carries the hint when there is one, so printing the
 * error is enough; `hint` is kept apart for surfaces that lay it out separately.
 */
export class LlmError extends FiskError<LlmErrorCode> {
  readonly category: ErrorCategory = 'runtime';
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly hint: string | undefined;

  constructor(code: LlmErrorCode, message: string, options: LlmErrorOptions = {}) {
    super(code, options.hint === undefined ? message : `${message}; ${options.hint}`, {
      cause: options.cause,
      retryable: isRetryable(code),
    });
    this.name = 'LlmError';
    this.status = options.status;
    this.requestId = options.requestId;
    this.hint = options.hint;
  }
}

/** Whether a failure class is transient: the same request may succeed later. */
export function isRetryable(code: LlmErrorCode): boolean {
  switch (code) {
    case 'timeout':
    case 'rate_limited':
    case 'overloaded':
    case 'server':
    case 'network':
      return true;
    case 'aborted':
    case 'bad_request':
    case 'auth':
    case 'decode':
      return false;
    default: {
      const never: never = code;
      return never;
    }
  }
}

/** Maps an HTTP status from a provider onto the closed code set. */
export function codeForStatus(status: number): LlmErrorCode {
  if (status === 429) return 'rate_limited';
  if (status === 529 || status === 503) return 'overloaded';
  if (status === 401 || status === 403) return 'auth';
  if (status === 400 || status === 404 || status === 413 || status === 422) return 'bad_request';
  return 'server';
}
