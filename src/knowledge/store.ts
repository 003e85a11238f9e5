import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { closeSync, constants, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { KnowledgeError, damagedIndex } from './errors.js';
import { acquireWriterLock } from './lock.js';
import type { WriterLock } from './lock.js';
import { checkFormat, createSchema, loadVectorExtension } from './schema.js';
import { DB_FILE, assertStoreModes, prepareStoreFiles, refuseSymlinks } from './store-files.js';

/**
 * Opens a connection. The vector extension is loaded into every one that may meet an existing
 * store, so a lexical index and a hybrid one open alike; `vectors: false` is for a fresh file only,
 * where the extension loads if and when the vector table is created.
 */
function openDatabase(path: string, readonly: boolean, vectors = true): Db {
  const db = readonly ? new Database(path, { readonly: true, fileMustExist: true }) : new Database(path);
  try {
    if (vectors) loadVectorExtension(db);
    const fts = db.prepare(`SELECT sqlite_compileoption_used('ENABLE_FTS5') AS f`).get() as { f: number };
    if (fts.f !== 1) throw new KnowledgeError('no_fts5', 'this SQLite build has no FTS5; the knowledge store needs it');
    db.pragma('busy_timeout = 5000');
    db.pragma('foreign_keys = ON');
    if (readonly) db.pragma('query_only = 1');
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/**
 * The single writer of a store: one connection, holding the store's exclusive lock for its whole
 * lifetime. Schema helpers take its `db` and run on the caller's transaction.
 */
export interface WriterStore {
  readonly dir: string;
  /** The database file. */
  readonly path: string;
  readonly db: Db;
  /** Whether this open created the schema (a first build). */
  readonly created: boolean;
  /** Whether this is a bulk build's side file, which no reader sees until `close` renames it into place. */
  readonly bulk: boolean;
  /** Closes the connection (checkpointing the WAL) and releases the lock. Idempotent. */
  close(): void;
}

/**
 * A writer over an open connection and its lock; closing re-asserts the file modes, then releases
 * the lock. A bulk build's side file is switched to WAL and renamed over the store's file first.
 */
function writerStore(dir: string, path: string, db: Db, lock: WriterLock, created: boolean, building?: string): WriterStore {
  let open = true;
  return {
    dir,
    path,
    db,
    created,
    bulk: building !== undefined,
    close(): void {
      if (!open) return;
      open = false;
      try {
        if (building !== undefined) {
          db.pragma('journal_mode = WAL');
          db.close();
          renameSync(building, path);
        } else {
          db.close();
        }
        assertStoreModes(dir);
      } finally {
        lock.release();
      }
    },
  };
}

/** The side file a bulk build writes before it is renamed into place. */
export const BUILD_FILE = 'knowledge.db.build';

/** How a writer is opened. */
export interface WriterOptions {
  /**
   * For a one-shot pass (`fisk knowledge index`): when the store is empty, build it in a side file
   * without write-ahead logging and rename it into place on close. Readers see nothing until then,
   * and a crash leaves the store as it was (empty). A long-lived writer (watch) leaves this off.
   */
  readonly bulk?: boolean;
}

function isEmpty(path: string): boolean {
  try {
    return statSync(path).size === 0;
  } catch {
    return true;
  }
}

function openBulk(dir: string, path: string, lock: WriterLock): WriterStore {
  const building = join(dir, BUILD_FILE);
  // a side file left by a crashed build is garbage: start again
  rmSync(building, { force: true });
  closeSync(openSync(building, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600));
  let db: Db | undefined;
  try {
    db = openDatabase(building, false, false);
    // the rollback journal in memory still lets a failed transaction roll back; a crash loses only the side file
    db.pragma('journal_mode = MEMORY');
    db.pragma('synchronous = OFF');
    const handle = db;
    handle.transaction(() => createSchema(handle))();
    return writerStore(dir, path, handle, lock, true, building);
  } catch (err) {
    db?.close();
    rmSync(building, { force: true });
    throw err;
  }
}

/**
 * Opens the store for writing: creates the directory (0700) and file (0600), refuses symlinks,
 * takes the writer lock (failing at once when another writer holds it), applies the format gate
 * and creates the schema on a fresh file.
 */
export function openWriter(dir: string, opts: WriterOptions = {}): WriterStore {
  prepareStoreFiles(dir);
  const lock: WriterLock = acquireWriterLock(dir);
  const path = join(dir, DB_FILE);
  let db: Db | undefined;
  try {
    if (opts.bulk === true && isEmpty(path)) return openBulk(dir, path, lock);
    db = openDatabase(path, false);
    db.pragma('journal_mode = WAL');
    // WAL with NORMAL sync: a crash can lose the last commits but never corrupts the file
    db.pragma('synchronous = NORMAL');
    const state = checkFormat(db, path);
    const handle = db;
    if (state === 'fresh') handle.transaction(() => createSchema(handle))();
    assertStoreModes(dir);
    return writerStore(dir, path, handle, lock, state === 'fresh');
  } catch (err) {
    db?.close();
    lock.release();
    throw damagedIndex(path, err);
  }
}

/**
 * Opens the store for a destructive maintenance verb (`reset`) that must work on a file the format
 * gate refuses: the lock is taken and symlinks refused, but no gate runs and nothing is created.
 */
export function openRaw(dir: string): WriterStore | undefined {
  refuseSymlinks(dir);
  const path = join(dir, DB_FILE);
  if (!exists(path)) return undefined;
  const lock = acquireWriterLock(dir);
  let db: Db;
  try {
    db = openDatabase(path, false);
  } catch (err) {
    lock.release();
    throw damagedIndex(path, err);
  }
  return writerStore(dir, path, db, lock, false);
}

/**
 * Removes a damaged store's file and its write-ahead sidecars under the writer lock, so the next
 * index builds it afresh. Only for a file SQLite refused as damaged: nothing in it can be read.
 */
export function removeDamaged(dir: string): string {
  refuseSymlinks(dir);
  const path = join(dir, DB_FILE);
  const lock = acquireWriterLock(dir);
  try {
    for (const file of [path, `${path}-wal`, `${path}-shm`]) rmSync(file, { force: true });
  } finally {
    lock.release();
  }
  return path;
}

function exists(path: string): boolean {
  try {
    return statSync(path).size > 0;
  } catch {
    return false;
  }
}

/**
 * A read-only view of a store, safe to share across concurrent runs in one process. The file is
 * opened lazily, so an agent started before the first index sees "not built" and later sees the
 * index without a restart. better-sqlite3 holds no read transaction between statements, so an
 * idle reader never pins a WAL snapshot and blocks checkpoints.
 */
export class KnowledgeReader {
  readonly dir: string;
  readonly path: string;
  #db: Db | undefined;

  constructor(dir: string) {
    this.dir = dir;
    this.path = join(dir, DB_FILE);
  }

  /** Whether an index file exists (it may still be empty of documents). */
  built(): boolean {
    return this.#db !== undefined || exists(this.path);
  }

  /** The open connection, or `undefined` when no index has been built. Applies the format gate once. */
  handle(): Db | undefined {
    if (this.#db !== undefined) return this.#db;
    refuseSymlinks(this.dir);
    if (!exists(this.path)) return undefined;
    let db: Db;
    try {
      db = openDatabase(this.path, true);
    } catch (err) {
      throw damagedIndex(this.path, err);
    }
    try {
      if (checkFormat(db, this.path) === 'fresh') {
        // a writer created the file but has not committed the schema yet
        db.close();
        return undefined;
      }
    } catch (err) {
      db.close();
      throw damagedIndex(this.path, err);
    }
    assertStoreModes(this.dir);
    this.#db = db;
    return db;
  }

  /** Closes the connection; a later call to `handle` opens it again. */
  close(): void {
    this.#db?.close();
    this.#db = undefined;
  }
}
