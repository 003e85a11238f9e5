/**
 * An exclusive advisory lock on a file, held for a journal's lifetime. flock(2) locks belong to
 * the open file and are released by the kernel when the process exits however it exits, so a
 * crashed holder never leaves a stale lock behind. fs-ext ships no types, so the one function
 * used is checked at load.
 *
 * The lock file is removed when the lock is released (unlinked while still held, or, when it was
 * made from a spare, renamed back into the spare pool still held), so a finished run leaves no
 * file behind. A process that opened the file just before it was removed then holds
 * a lock on a name that no longer exists: a lock counts only when the path still names the very
 * file locked, and otherwise it is taken again on the path as it now is.
 */
import { closeSync, constants, openSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { nameSpare, namesFile } from '../../util/spare-files.js';
import type { Spare } from '../../util/spare-files.js';

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
 * Takes an exclusive flock on `fd` without waiting: false when another open file holds it. Other
 * failures throw.
 */
export function flockNow(fd: number): boolean {
  try {
    flock()(fd, 'exnb');
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return false;
    throw err;
  }
}

/**
 * Gives back a released lock file made from a spare, still locked, to be a spare again; true when
 * it took the file (and its descriptor), false to have it removed and closed.
 */
export type GiveBack = (path: string, fd: number) => boolean;

/**
 * Takes the lock without waiting. Returns `undefined` when another holder has it (including
 * another journal of this same process). Other failures throw. A `spare` (an empty file beside
 * `path`, already flocked by this process) becomes the lock file when no lock file is there, which
 * spares making one; otherwise it is removed and the lock is taken on the file that is there. A
 * lock file made from a spare is offered to `giveBack` on release (the pool's `adopt`), so the
 * next lock or journal is not a file made either.
 */
export function tryLock(path: string, spare?: Spare, giveBack?: GiveBack): HeldLock | undefined {
  // the lock is the spare's only if no lock file was there; otherwise it is taken on the one that is
  if (spare !== undefined) return nameSpare(spare, path) === undefined ? held(path, spare.fd, giveBack) : tryLock(path);
  for (;;) {
    const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
    let got: boolean;
    try {
      got = flockNow(fd);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    if (!got) {
      closeSync(fd);
      return undefined;
    }
    let current: boolean;
    try {
      current = namesFile(path, fd);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    if (current) return held(path, fd);
    // the holder before us removed the file as it let go: lock the one at the path now
    closeSync(fd);
  }
}

function held(path: string, fd: number, giveBack?: GiveBack): HeldLock {
  let holding = true;
  return {
    release(): void {
      if (!holding) return;
      holding = false;
      // kept locked under a spare's name, the file is gone from `path` as surely as if removed
      if (giveBack?.(path, fd) === true) return;
      try {
        // removed while still held, so nobody can lock this file after it is gone
        unlinkSync(path);
      } catch {
        // already removed (fisk session rm removes it too): nothing is left behind either way
      }
      closeSync(fd); // closing the descriptor drops the flock
    },
  };
}
