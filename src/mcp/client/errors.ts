/** Why tools could not be imported from an MCP server. */
import { FiskError } from '../../errors/fisk-error.js';
import type { ErrorCategory } from '../../errors/fisk-error.js';

export const MCP_CLIENT_ERROR_CODES = [
  'connect', // the transport could not be set up or the handshake failed
  'timeout', // the server did not finish starting within its startup_timeout
  'list', // tools/list failed or answered something that is not a tool list
  'descriptor', // a tool the server lists cannot be sent to a model API
  'collision', // two imported tools claim one name
  'closed', // the sessions were closed before the call
  'not_callable', // a tool found by lenient discovery was asked to run
  'login', // an OAuth server needs a person to log in (fisk mcp login NAME) before it can be used
] as const;
export type McpClientErrorCode = (typeof MCP_CLIENT_ERROR_CODES)[number];

/** A failure importing from an MCP server; the message names the server (and the tool, when there is one). */
export class McpClientError extends FiskError<McpClientErrorCode> {
  /** The configured `mcp_clients` name. */
  readonly server: string;

  constructor(code: McpClientErrorCode, server: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'McpClientError';
    this.server = server;
  }

  get category(): ErrorCategory {
    switch (this.code) {
      case 'connect':
      case 'timeout':
      case 'list':
      case 'descriptor':
      case 'closed':
      case 'login':
        return 'runtime';
      case 'collision':
        return 'configuration';
      case 'not_callable':
        return 'internal';
      default: {
        const never: never = this.code;
        return never;
      }
    }
  }
}
