import { closeSync, constants, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { KnowledgeError } from './errors.js';
import { LOCK_FILE } from './store-files.js';

type FlockSync = (fd: number, flags: 'exnb' | 'un') => void;

let flockImpl: FlockSync | undefined;

/** fs-ext ships no types: take `flockSync` through a guard rather than trusting the module shape. */
function flock(): FlockSync {
  if (flockImpl !== undefined) return flockImpl;
  const mod: unknown = createRequire(import.meta.url)('fs-ext');
  const fn = typeof mod === 'object' && mod !== null ? (mod as Record<string, unknown>)['flockSync'] : undefined;
  if (typeof fn !== 'function') throw new KnowledgeError('io', 'fs-ext does not provide flockSync; reinstall fisk-ai');
  flockImpl = fn as FlockSync;
  return flockImpl;
}

/** A held writer lock. Released explicitly, or by the kernel when the process dies. */
export interface WriterLock {
  readonly path: string;
  release(): void;
}

/**
 * Takes the store's exclusive, non-blocking advisory lock. A second writer (an index while a watch
 * runs) fails at once instead of queueing behind a pass that may never end.
 */
export function acquireWriterLock(dir: string): WriterLock {
  const path = join(dir, LOCK_FILE);
  let fd: number;
  try {
    fd = openSync(path, constants.O_CREAT | constants.O_RDWR | constants.O_NOFOLLOW, 0o600);
  } catch (err) {
    throw new KnowledgeError('io', `cannot open the lock file ${path}: ${(err as Error).message}`, { cause: err });
  }
  try {
    flock()(fd, 'exnb');
  } catch (err) {
    closeSync(fd);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EAGAIN' || code === 'EWOULDBLOCK') {
      throw new KnowledgeError(
        'locked',
        `another knowledge writer (index or watch) is already running against ${dir}; wait for it to finish or stop it`,
        { cause: err },
      );
    }
    throw new KnowledgeError('io', `cannot lock ${path}: ${(err as Error).message}`, { cause: err });
  }
  let held = true;
  return {
    path,
    release(): void {
      if (!held) return;
      held = false;
      try {
        flock()(fd, 'un');
      } finally {
        closeSync(fd);
      }
    },
  };
}
