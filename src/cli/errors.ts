import { FiskError } from '../errors/fisk-error.js';
import type { ErrorCategory } from '../errors/fisk-error.js';
import type { ExitCode } from '../errors/exit-codes.js';
import { EXIT, exitForCategory } from '../errors/exit-codes.js';

/** The category a command-level failure belongs to, read from the status it was raised with. */
function categoryOf(exitCode: ExitCode): ErrorCategory {
  switch (exitCode) {
    case EXIT.usage:
      return 'usage';
    case EXIT.config:
      return 'configuration';
    case EXIT.unavailable:
      return 'unavailable';
    case EXIT.crashed:
      return 'internal';
    default:
      return 'runtime';
  }
}

/**
 * A failure a command found itself (a flag combination, a file it cannot create), reported as one
 * line. Its category, and so its exit status, is fixed when it is raised.
 */
export class CliError extends FiskError<ErrorCategory> {
  readonly category: ErrorCategory;

  constructor(message: string, exitCode: ExitCode = EXIT.error, options?: { cause?: unknown }) {
    const category = categoryOf(exitCode);
    super(category, message, options);
    this.name = 'CliError';
    this.category = category;
  }

  /** The status this failure exits with. */
  get exitCode(): ExitCode {
    return exitForCategory(this.category);
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
