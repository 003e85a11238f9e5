/** The closed set of ways an a2a exchange can fail as a harness failure (never as a tool result). */
import { FiskError } from '../errors/fisk-error.js';
import type { ErrorCategory } from '../errors/fisk-error.js';

export const A2A_ERROR_CODES = [
  'oversize', // a body over the 768 KiB cap, refused before decoding
  'malformed', // not a JSON object
  'invalid', // fails the schema of its protocol id
  'unknown_protocol', // a protocol id this build does not know
  'unexpected_protocol', // a known protocol arriving where another was expected
  'unavailable', // the request reached nobody: no responders, or it could not be sent
  'lost', // the request went out and no reply came back in time (the peer may have acted on it)
  'rejected', // the peer answered with a transport error (micro error header)
  'sequence', // a reply set with a gap or out of order
  'identity', // an identity or request id that cannot key a subject
  'registry', // a transport registration or lookup that cannot work
  'closed', // the transport or service was closed
] as const;
export type A2aErrorCode = (typeof A2A_ERROR_CODES)[number];

/** An a2a failure. `status` carries the micro error code when the peer sent one. */
export class A2aError extends FiskError<A2aErrorCode> {
  readonly status: number | undefined;

  constructor(code: A2aErrorCode, message: string, options?: { cause?: unknown; status?: number }) {
    // nobody answering may change; every other code is about what was sent or received
    super(code, message, { ...(options?.cause === undefined ? {} : { cause: options.cause }), retryable: code === 'unavailable' });
    this.name = 'A2aError';
    this.status = options?.status;
  }

  get category(): ErrorCategory {
    switch (this.code) {
      case 'identity':
        return 'configuration';
      case 'registry':
        return 'internal';
      case 'oversize':
      case 'malformed':
      case 'invalid':
      case 'unknown_protocol':
      case 'unexpected_protocol':
      case 'unavailable':
      case 'lost':
      case 'rejected':
      case 'sequence':
      case 'closed':
        return 'runtime';
      default: {
        const never: never = this.code;
        return never;
      }
    }
  }
}
