/**
 * The one bounded wait of the test suite: polls a probe until it holds, and when it never does,
 * fails naming what was awaited and what was last seen instead of hanging until the test's own
 * timeout says nothing useful. Waits on a condition, never asserts a duration.
 */
import { inspect } from 'node:util';

/** How long and how often {@link eventually} looks. */
export interface EventuallyOptions {
  /** Gives up after this many milliseconds (default 20 000, inside the suite's 30 s test timeout). */
  readonly timeoutMs?: number;
  /** Looks again after this many milliseconds (default 10). */
  readonly intervalMs?: number;
  /** What to show when it gives up (it may be async); by default the probe's last answer or error. */
  readonly observed?: () => unknown;
  /**
   * Checked after each look that found nothing: a reason it can no longer happen (the process it waits on exited)
   * stops the wait at once, failing with that reason.
   */
  readonly stopIf?: () => string | undefined;
}

/** A value the probe reports as "not yet". */
type NotYet = undefined | null | false | 0 | '';

const DEFAULT_TIMEOUT_MS = 20_000;
const DEFAULT_INTERVAL_MS = 10;

/**
 * Resolves with the probe's first truthy answer. A probe that throws (an `expect` that does not hold
 * yet) counts as "not yet", and its error is what the failure reports. `what` names the awaited
 * condition as a person would: "the run to block on its question".
 */
export async function eventually<T>(
  probe: () => T | Promise<T>,
  what: string,
  options: number | EventuallyOptions = {},
): Promise<Exclude<T, NotYet>> {
  const settings = typeof options === 'number' ? { timeoutMs: options } : options;
  const timeoutMs = settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const intervalMs = settings.intervalMs ?? DEFAULT_INTERVAL_MS;
  const deadline = Date.now() + timeoutMs;
  let last: { value: unknown } | { error: unknown };
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as Exclude<T, NotYet>;
      last = { value };
    } catch (error) {
      last = { error };
    }
    const hopeless = settings.stopIf?.();
    if (hopeless !== undefined) throw new Error(`stopped waiting for ${what}: ${hopeless}`);
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  const seen = describe(settings.observed !== undefined ? await observe(settings.observed) : last);
  throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}; last observed: ${seen}`);
}

async function observe(observed: () => unknown): Promise<{ value: unknown } | { error: unknown }> {
  try {
    return { value: await observed() };
  } catch (error) {
    return { error };
  }
}

function describe(last: { value: unknown } | { error: unknown }): string {
  if ('error' in last) return last.error instanceof Error ? last.error.message : inspect(last.error);
  return inspect(last.value, { depth: 4, breakLength: Infinity, maxStringLength: 2_000 });
}
