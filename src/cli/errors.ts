import type { ExitCode } from './exit-codes.js';
import { EXIT } from './exit-codes.js';

/** An error the CLI reports as one line and maps to an exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.error,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}

/** Bad flags or arguments, checked before any configuration is read. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT.usage);
    this.name = 'UsageError';
  }
}
