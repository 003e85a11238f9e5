/** The closed set of ways importing remote tools can fail. */
import { FiskError } from '../errors/fisk-error.js';
import type { ErrorCategory } from '../errors/fisk-error.js';

export const REMOTE_TOOLS_ERROR_CODES = [
  'host_failed', // a host could not be discovered (strict mode)
  'collision', // a name collision that prefixing could not resolve (strict mode)
  'unusable_filter', // a filter that cannot be honored (exclude by tags)
] as const;
export type RemoteToolsErrorCode = (typeof REMOTE_TOOLS_ERROR_CODES)[number];

export class RemoteToolsError extends FiskError<RemoteToolsErrorCode> {
  constructor(code: RemoteToolsErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'RemoteToolsError';
  }

  get category(): ErrorCategory {
    switch (this.code) {
      case 'unusable_filter':
        return 'configuration';
      case 'host_failed':
      case 'collision':
        return 'runtime';
      default: {
        const never: never = this.code;
        return never;
      }
    }
  }
}
