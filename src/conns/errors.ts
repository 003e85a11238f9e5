/** The closed set of ways building a connection can fail. */
export const CONN_ERROR_CODES = ['context_not_found', 'context_invalid', 'unreachable'] as const;
export type ConnErrorCode = (typeof CONN_ERROR_CODES)[number];

/**
 * A connection that could not be built. Messages name the context and its file, never a
 * credential.
 */
export class ConnError extends Error {
  constructor(
    readonly code: ConnErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ConnError';
  }
}
