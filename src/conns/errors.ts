/** The closed set of ways building a connection can fail. */
import { FiskError } from '../errors/fisk-error.js';
import type { ErrorCategory } from '../errors/fisk-error.js';
export const CONN_ERROR_CODES = ['context_not_found', 'context_invalid', 'unreachable'] as const;
export type ConnErrorCode = (typeof CONN_ERROR_CODES)[number];

/**
 * A connection that could not be built. Messages name the context and its file, never a
 * credential.
 */
export class ConnError extends FiskError<ConnErrorCode> {
  constructor(code: ConnErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, { ...options, retryable: code === 'unreachable' });
    this.name = 'ConnError';
  }

  /** A context that is missing or malformed is the operator's to fix; an unreachable server is a run-time failure. */
  get category(): ErrorCategory {
    return this.code === 'unreachable' ? 'runtime' : 'configuration';
  }
}
