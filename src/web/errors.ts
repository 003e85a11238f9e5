/** Failures of starting `fisk web` that no lower module owns. */
import { FiskError } from '../errors/fisk-error.js';
import type { ErrorCategory } from '../errors/fisk-error.js';

export const WEB_ERROR_CODES = [
  'page_missing', // the installed package lacks the built page
  'listen', // the address or port cannot be bound
] as const;
export type WebErrorCode = (typeof WEB_ERROR_CODES)[number];

/** A failure to start the web server; the message says what to change. */
export class WebError extends FiskError<WebErrorCode> {
  constructor(code: WebErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'WebError';
  }

  get category(): ErrorCategory {
    switch (this.code) {
      case 'page_missing':
        return 'internal';
      case 'listen':
        return 'runtime';
      default: {
        const never: never = this.code;
        return never;
      }
    }
  }
}
