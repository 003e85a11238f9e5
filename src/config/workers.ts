/**
 * Every `workers` key counts slots that run at once: absent means 1, and 0 or less is refused
 * naming the key, as `fisk serve --workers` refuses it, rather than quietly meaning 1.
 */
import { ConfigError } from './errors.js';

/** Validates a `workers` value; throws `ConfigError` naming `key`. */
export function workerCount(value: number | undefined, key: string): number {
  if (value === undefined) return 1;
  if (value < 1) throw ConfigError.of('value', key, `${value} must be at least 1, the number of runs at once; leave it out for 1`);
  return value;
}
