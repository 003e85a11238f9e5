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

/**
 * Ends a command with a status after it has already reported everything it had to say (a run that
 * stopped at its budget prints its answer and summary, then exits 4). Carries no message.
 */
export class ExitWith extends Error {
  constructor(readonly exitCode: ExitCode) {
    super(`exit ${exitCode}`);
    this.name = 'ExitWith';
  }
}
