/**
 * An exclusive advisory lock on a file, held for a journal's lifetime. flock(2) locks belong to
 * the open file and are released by the kernel when the process exits however it exits, so a
 * crashed holder never leaves a stale lock behind. fs-ext ships no types, so the one function
 * used is checked at load.
 */
import { closeSync, openSync, constants } from 'node:fs';
import { createRequire } from 'node:module';

type FlockSync = (fd: number, flags: 'exnb' | 'un') => void;

let flockSync: FlockSync | undefined;
function flock(): FlockSync {
  if (flockSync !== undefined) return flockSync;
  const mod: unknown = createRequire(import.meta.url)('fs-ext');
  const fn = typeof mod === 'object' && mod !== null ? (mod as Record<string, unknown>).flockSync : undefined;
  if (typeof fn !== 'function') throw new Error('fs-ext does not provide flockSync');
  flockSync = fn as FlockSync;
  return flockSync;
}

/** A held lock; `release` is idempotent. */
export interface HeldLock {
  release(): void;
}

/**
 * Takes the lock without waiting. Returns `undefined` when another holder has it (including
 * another journal of this same process). Other failures throw.
 */
export function tryLock(path: string): HeldLock | undefined {
  const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
  try {
    flock()(fd, 'exnb');
  } catch (err) {
    closeSync(fd);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return undefined;
    throw err;
  }
  let held = true;
  return {
    release(): void {
      if (!held) return;
      held = false;
      closeSync(fd); // closing the descriptor drops the flock
    },
  };
}
