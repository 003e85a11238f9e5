/**
 * The one base every harness failure shares. A failure carries a closed `code` from its own
 * module's vocabulary and a closed `category` that decides how a command reports it, so the same
 * failure exits with the same status from every command and nobody guesses from message text.
 */

/** What kind of failure an error is, independent of the module that raised it. */
export const ERROR_CATEGORIES = [
  'configuration', // agent.yaml (or a file it names) cannot be used; the message names the key
  'usage', // flags or arguments are wrong
  'runtime', // something failed while doing the work: a service, a tool set, a model call
  'unavailable', // the capability is not in this build
  'internal', // a bug in fisk-ai itself
] as const;
export type ErrorCategory = (typeof ERROR_CATEGORIES)[number];

/** Options every FiskError accepts. */
export interface FiskErrorOptions {
  readonly cause?: unknown;
  /**
   * Whether the same work may succeed if tried again later: a timeout, a service that did not
   * answer, a store without a leader. Decided where the error is made, from what failed, never
   * from message text. Defaults to false: a failure nobody classified is not retried.
   */
  readonly retryable?: boolean;
}

/**
 * A harness failure with a closed `code` and a closed `category`. Subclasses fix the code
 * vocabulary and derive the category from the code, so one code always lands in one category.
 */
export abstract class FiskError<Code extends string = string> extends Error {
  readonly code: Code;
  abstract readonly category: ErrorCategory;
  readonly #retryable: boolean;

  constructor(code: Code, message: string, options?: FiskErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.#retryable = options?.retryable ?? false;
  }

  /** Whether trying the same work again later may succeed (see {@link FiskErrorOptions.retryable}). */
  get retryable(): boolean {
    return this.#retryable;
  }
}

/** Whether a value is any fisk-ai harness failure. */
export function isFiskError(err: unknown): err is FiskError {
  return err instanceof FiskError;
}

/**
 * Whether a failure is transient: a FiskError made retryable where it was raised. Anything else,
 * an error nobody classified included, is permanent, so it is reported rather than retried forever.
 */
export function isRetryableFailure(err: unknown): boolean {
  return err instanceof FiskError && err.retryable;
}
