/**
 * Helpers shared by the tests of the stores that keep spare files (util/spare-files.ts). Not built
 * into the package.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isSpareName } from './spare-files.js';

/**
 * The spare files in `dir` that are ready: made and locked by their maker (one still being made is
 * not locked yet). Read from /proc/locks, so the look takes no lock of its own.
 */
export function readySpares(dir: string): string[] {
  const locked = new Set(
    readFileSync('/proc/locks', 'utf8')
      .split('\n')
      .filter((line) => line.includes('FLOCK'))
      .map((line) => line.split(/\s+/u)[5]?.split(':')[2]),
  );
  return readdirSync(dir).filter((name) => {
    if (!isSpareName(name)) return false;
    const info = statSync(join(dir, name), { throwIfNoEntry: false });
    return info !== undefined && locked.has(String(info.ino));
  });
}
