/** Why serving over MCP could not start or stopped. */
import { FiskError } from '../../errors/fisk-error.js';
import type { ErrorCategory } from '../../errors/fisk-error.js';
export const MCP_SERVE_ERROR_CODES = [
  'collision', // two served tools claim one name
  'no_tools', // nothing is left to serve after filtering
  'listen', // the address could not be bound
  'address', // the port or address given is unusable
  'auth', // off loopback without a token, or a token that is empty
] as const;
export type McpServeErrorCode = (typeof MCP_SERVE_ERROR_CODES)[number];

/** A failure of the MCP server itself, with a closed code; the message names what to change. */
export class McpServeError extends FiskError<McpServeErrorCode> {
  constructor(code: McpServeErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'McpServeError';
  }

  get category(): ErrorCategory {
    switch (this.code) {
      case 'collision':
      case 'no_tools':
      case 'auth':
        return 'configuration';
      case 'address':
        return 'usage';
      case 'listen':
        return 'runtime';
      default: {
        const never: never = this.code;
        return never;
      }
    }
  }
}
