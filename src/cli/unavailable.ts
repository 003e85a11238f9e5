import { CliError } from './errors.js';
import { EXIT } from './exit-codes.js';

/** The refusal of a command this build registers but does not provide yet. */
export function notAvailable(command: string, what: string): never {
  throw new CliError(
    `${command} is not available in this build yet: ${what}. See README.md for the commands that work today.`,
    EXIT.unavailable,
  );
}
