/** Failures of starting a served agent that no lower module owns. */
import { FiskError } from '../errors/fisk-error.js';
import type { ErrorCategory } from '../errors/fisk-error.js';

export const SERVE_ERROR_CODES = [
  'no_endpoint', // the configuration enables nothing this build can serve
  'no_tools', // nothing is left to lend after filtering and gating
  'health', // the health endpoint cannot listen where expose.agent.health says
  'a2a_http', // the A2A HTTP endpoint cannot listen, or its bearer token is not in the environment
] as const;
export type ServeErrorCode = (typeof SERVE_ERROR_CODES)[number];

/** A serving failure with a closed code; the message names the key or flag to change. */
export class ServeError extends FiskError<ServeErrorCode> {
  constructor(code: ServeErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'ServeError';
  }

  get category(): ErrorCategory {
    switch (this.code) {
      case 'no_endpoint':
      case 'no_tools':
      case 'health':
      case 'a2a_http':
        return 'configuration';
      default: {
        const never: never = this.code;
        return never;
      }
    }
  }
}
