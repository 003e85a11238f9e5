import { chmodSync, closeSync, constants, lstatSync, mkdirSync, openSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { KnowledgeError } from './errors.js';

/** The database file's name inside the store directory. */
export const DB_FILE = 'knowledge.db';
/** The advisory lock file's name inside the store directory. */
export const LOCK_FILE = 'knowledge.lock';

/** The database and its two sidecars: every one is held to 0600 and refused as a symlink. */
export function storeFiles(dir: string): readonly string[] {
  const db = join(dir, DB_FILE);
  return [db, `${db}-wal`, `${db}-shm`];
}

/**
 * Resolves the configured knowledge directory: absolute as written, relative under the store base
 * when one is given, else under `cwd`. A store base must itself be absolute, because a relative
 * base would move with whichever directory a command happens to run in.
 */
export function resolveStoreDir(directory: string, cwd: string, storeBase?: string): string {
  if (isAbsolute(directory)) return directory;
  if (storeBase !== undefined && storeBase !== '') {
    if (!isAbsolute(storeBase)) {
      throw new KnowledgeError('io', `--store-dir must be an absolute path, got ${JSON.stringify(storeBase)}`);
    }
    return resolve(storeBase, directory);
  }
  return resolve(cwd, directory);
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Refuses when any of the store's files is a symlink: writing through one could land anywhere. */
export function refuseSymlinks(dir: string): void {
  for (const p of [dir, ...storeFiles(dir), join(dir, LOCK_FILE)]) {
    if (isSymlink(p)) {
      throw new KnowledgeError(
        'symlink',
        `${p} is a symlink; the knowledge store refuses to follow one. Remove it, or point harness.knowledge.directory at a real directory`,
      );
    }
  }
}

/**
 * Creates the store directory (0700) and an empty database file (0600) before SQLite opens it,
 * so the file never exists with the process umask's looser mode.
 */
export function prepareStoreFiles(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new KnowledgeError(
      'io',
      `cannot create the knowledge directory ${dir}: ${(err as Error).message}; check harness.knowledge.directory`,
      { cause: err },
    );
  }
  refuseSymlinks(dir);
  chmodSync(dir, 0o700);
  const db = join(dir, DB_FILE);
  try {
    const fd = openSync(db, constants.O_CREAT | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600);
    closeSync(fd);
  } catch (err) {
    throw new KnowledgeError('io', `cannot create ${db}: ${(err as Error).message}`, { cause: err });
  }
}

/** Re-asserts 0600 on the database and whichever sidecars exist (SQLite creates them with umask). */
export function assertStoreModes(dir: string): void {
  for (const p of storeFiles(dir)) {
    try {
      if (lstatSync(p).isSymbolicLink()) {
        throw new KnowledgeError('symlink', `${p} is a symlink; the knowledge store refuses to follow one`);
      }
      chmodSync(p, 0o600);
    } catch (err) {
      if (err instanceof KnowledgeError) throw err;
      // a sidecar that does not exist yet needs no mode
    }
  }
}
