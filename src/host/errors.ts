/** Failures of turning a configuration into a running agent that no lower module owns. */
import { FiskError } from '../errors/fisk-error.js';
import type { ErrorCategory } from '../errors/fisk-error.js';

export const HOST_ERROR_CODES = [
  'usage', // a flag or environment value the host cannot use
  'no_tools', // a filter left an application with no tool, or a surface with nothing to serve
  'collision', // two served tools claim one name
  'resume', // the run cannot be resumed as asked
] as const;
export type HostErrorCode = (typeof HOST_ERROR_CODES)[number];

/** A host failure with a closed code; the message names what to change. */
export class HostError extends FiskError<HostErrorCode> {
  constructor(code: HostErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'HostError';
  }

  get category(): ErrorCategory {
    switch (this.code) {
      case 'usage':
        return 'usage';
      case 'no_tools':
      case 'collision':
        return 'configuration';
      case 'resume':
        return 'runtime';
      default: {
        const never: never = this.code;
        return never;
      }
    }
  }
}
