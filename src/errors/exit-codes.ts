/**
 * Every exit status the `fisk` command uses, in one table, beside the one function that maps a
 * failure onto it. Scripts can tell a configuration mistake from a run that hit its budget from a
 * crash.
 */
import type { ErrorCategory } from './fisk-error.js';
import { isFiskError } from './fisk-error.js';

/** The exit status of each outcome of a `fisk` command, by name; `exitFor` picks one for an error. */
export const EXIT = {
  /** The command did what was asked (a run completed, or was suspended cleanly). */
  ok: 0,
  /** A runtime failure: a tool set that would not load, an unreachable service, a model error. */
  error: 1,
  /** Bad flags or arguments. */
  usage: 2,
  /** agent.yaml could not be used; the message names the key to change. */
  config: 3,
  /** The run stopped at llm.budget.max_tokens. */
  budget: 4,
  /** The run stopped at llm.budget.max_iterations. */
  maxIterations: 5,
  /** An opt-in "found nothing" status (`knowledge match --exit-code`). */
  noMatch: 6,
  /** A command this build does not provide yet. */
  unavailable: 69,
  /** fisk-ai itself failed: a bug, not a model or tool failure. */
  crashed: 70,
  /** The run was aborted by the operator (Ctrl-C). */
  aborted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit status for each failure category. */
export function exitForCategory(category: ErrorCategory): ExitCode {
  switch (category) {
    case 'configuration':
      return EXIT.config;
    case 'usage':
      return EXIT.usage;
    case 'runtime':
      return EXIT.error;
    case 'unavailable':
      return EXIT.unavailable;
    case 'internal':
      return EXIT.crashed;
    default: {
      const never: never = category;
      return never;
    }
  }
}

/**
 * The exit status for a failure. A FiskError exits by its category; anything else is a runtime
 * failure (status 1), because an error nobody classified is not evidence of a bug in fisk-ai.
 */
export function exitFor(err: unknown): ExitCode {
  return isFiskError(err) ? exitForCategory(err.category) : EXIT.error;
}
