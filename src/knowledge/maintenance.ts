import type { Database as Db } from 'better-sqlite3';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { assertComplete, clearGap, COMPLETE_HINT, readGap } from './fulltext.js';
import { readIdentity } from './identity.js';
import type { VectorIdentity } from './identity.js';
import { createSchema, dropEverything, listObjects } from './schema.js';
import { isDamagedDatabase, isKnowledgeError } from './errors.js';
import type { KnowledgeReader, WriterStore } from './store.js';
import { openRaw, removeDamaged } from './store.js';
import { DB_FILE } from './store-files.js';
import { counted } from '../util/count.js';

/** What `knowledge stats` reports. Sizes are bytes; `built` false means no file at all. */
export interface StoreStats {
  readonly path: string;
  readonly built: boolean;
  readonly documents: number;
  readonly chunks: number;
  /** Vectors stored, or `undefined` for a lexical-only index. */
  readonly vectors: number | undefined;
  readonly identity: VectorIdentity | undefined;
  readonly dbBytes: number;
  readonly walBytes: number;
  /** The database file's modification time, ms since the epoch. */
  readonly modifiedMs: number | undefined;
  /** Whether a first build stopped before filling its full-text tables (search then misses words). */
  readonly fullTextIncomplete: boolean;
}

function size(path: string): { bytes: number; mtimeMs: number | undefined } {
  try {
    const st = statSync(path);
    return { bytes: st.size, mtimeMs: st.mtimeMs };
  } catch {
    return { bytes: 0, mtimeMs: undefined };
  }
}

function count(db: Db, sql: string): number {
  return (db.prepare(sql).get() as { n: number }).n;
}

/** Counts and sizes of a store. */
export function storeStats(reader: KnowledgeReader): StoreStats {
  const db = reader.handle();
  const file = size(reader.path);
  const wal = size(`${reader.path}-wal`);
  if (db === undefined) {
    return {
      path: reader.path,
      built: false,
      documents: 0,
      chunks: 0,
      vectors: undefined,
      identity: undefined,
      dbBytes: file.bytes,
      walBytes: wal.bytes,
      modifiedMs: file.mtimeMs,
      fullTextIncomplete: false,
    };
  }
  const identity = readIdentity(db);
  const vectors = listObjects(db).has('chunks_vec') ? count(db, 'SELECT count(*) AS n FROM chunks_vec') : undefined;
  return {
    path: reader.path,
    built: true,
    documents: count(db, 'SELECT count(*) AS n FROM documents'),
    chunks: count(db, 'SELECT count(*) AS n FROM chunks'),
    vectors,
    identity,
    dbBytes: file.bytes,
    walBytes: wal.bytes,
    modifiedMs: file.mtimeMs,
    fullTextIncomplete: readGap(db) !== undefined,
  };
}

/** One indexed source file. */
export interface Source {
  readonly path: string;
  readonly chunks: number;
  /** When it was last (re)indexed, ms since the epoch. */
  readonly indexedMs: number;
}

/** Every indexed file, sorted by path; `undefined` when no index was built. */
export function listSources(reader: KnowledgeReader): Source[] | undefined {
  const db = reader.handle();
  if (db === undefined) return undefined;
  const rows = db
    .prepare(
      'SELECT d.path AS path, d.indexed_at AS at, (SELECT count(*) FROM chunks c WHERE c.document_id = d.id) AS n FROM documents d ORDER BY d.path',
    )
    .all() as { path: string; at: number; n: number }[];
  return rows.map((r) => ({ path: r.path, chunks: r.n, indexedMs: r.at * 1000 }));
}

/** The outcome of removing one named source. */
export interface Removal {
  readonly source: string;
  /** Documents removed: the file itself, or every file under a directory. */
  readonly removed: number;
}

/**
 * Removes documents by stored path, or every document under a directory path. Each removal is its
 * own transaction; deleting a document cascades to its chunks, FTS rows and vectors.
 */
export function removeSources(store: WriterStore, sources: readonly string[]): Removal[] {
  const db = store.db;
  assertComplete(db);
  const exact = db.prepare('DELETE FROM documents WHERE path = ?');
  const under = db.prepare(`DELETE FROM documents WHERE substr(path, 1, ?) = ?`);
  return sources.map((raw) => {
    const source = raw.replace(/\/+$/, '');
    const removed = db.transaction(() => {
      const a = exact.run(source).changes;
      const prefix = `${source}/`;
      return a + under.run(prefix.length, prefix).changes;
    })();
    return { source: raw, removed };
  });
}

/** The three outcomes of one check; a check that did not run is never reported as passing. */
export const CHECK_STATES = ['ok', 'fail', 'not_run'] as const;
export type CheckState = (typeof CHECK_STATES)[number];

/** One integrity check and its outcome. */
export interface IntegrityItem {
  readonly name: string;
  readonly state: CheckState;
  readonly detail: string;
}

function ftsCheck(db: Db, table: 'chunks_fts' | 'chunks_exact'): IntegrityItem {
  try {
    // only the rank form compares the index against the content table; the bare form passes on drift
    db.prepare(`INSERT INTO ${table}(${table}, rank) VALUES ('integrity-check', 1)`).run();
    return { name: table, state: 'ok', detail: 'matches the chunks table' };
  } catch (err) {
    return { name: table, state: 'fail', detail: `${(err as Error).message}; run 'fisk knowledge rebuild'` };
  }
}

/**
 * Checks both FTS indexes against the chunks table and the vectors against the chunks. It is a
 * write (FTS5 commands are inserts), so it runs on the writer.
 */
export function checkIntegrity(store: WriterStore): IntegrityItem[] {
  const db = store.db;
  const gap = readGap(db);
  const items = (['chunks_fts', 'chunks_exact'] as const).map((t) =>
    gap?.tables.includes(t) === true
      ? { name: t, state: 'fail' as const, detail: `incomplete: an interrupted first build did not fill it; ${COMPLETE_HINT}` }
      : ftsCheck(db, t),
  );
  if (listObjects(db).has('chunks_vec')) {
    const missing = count(db, 'SELECT count(*) AS n FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM chunks_vec v WHERE v.chunk_id = c.id)');
    const extra = count(db, 'SELECT count(*) AS n FROM chunks_vec v WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = v.chunk_id)');
    items.push(
      missing === 0 && extra === 0
        ? { name: 'chunks_vec', state: 'ok', detail: 'one vector per chunk' }
        : {
            name: 'chunks_vec',
            state: 'fail',
            detail: `${counted(missing, 'chunk')} without a vector, ${counted(extra, 'vector')} without a chunk; run 'fisk knowledge index --reindex'`,
          },
    );
  } else {
    items.push({ name: 'chunks_vec', state: 'not_run', detail: 'lexical-only index' });
  }
  const integrity = (db.prepare('PRAGMA quick_check').all() as { quick_check: string }[]).map((r) => r.quick_check);
  items.push(
    integrity.length === 1 && integrity[0] === 'ok'
      ? { name: 'sqlite', state: 'ok', detail: 'quick_check ok' }
      : { name: 'sqlite', state: 'fail', detail: integrity.slice(0, 3).join('; ') },
  );
  return items;
}

/**
 * Re-derives both FTS indexes from the chunks table, re-embedding nothing. An operator verb, not an
 * automatic repair: over a corrupt chunks table it would build a consistent index of the corruption.
 */
export function rebuildIndexes(store: WriterStore): void {
  store.db.transaction(() => {
    store.db.exec(`INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild'); INSERT INTO chunks_exact(chunks_exact) VALUES ('rebuild');`);
    clearGap(store.db);
  })();
}

/** What a reset found (and, when forced, removed). */
export interface ResetResult {
  readonly path: string;
  readonly existed: boolean;
  readonly documents: number;
  readonly chunks: number;
  readonly done: boolean;
  /** SQLite found the file damaged, so nothing in it could be counted; a forced reset removed the file. */
  readonly damaged?: boolean;
}

function safeCount(db: Db, table: string): number {
  try {
    return count(db, `SELECT count(*) AS n FROM ${table}`);
  } catch {
    return 0;
  }
}

/**
 * Empties a store by dropping its tables and creating a fresh schema. Works on a file the format
 * gate refuses (that is what "reset and rebuild" needs); does nothing without `force`, returning
 * the counts that would go.
 */
export function resetStore(dir: string, force: boolean): ResetResult {
  let raw: WriterStore | undefined;
  try {
    raw = openRaw(dir);
  } catch (err) {
    if (!isKnowledgeError(err, 'damaged')) throw err;
    return damagedReset(dir, force);
  }
  if (raw === undefined) return { path: dir, existed: false, documents: 0, chunks: 0, done: false };
  let counts: { documents: number; chunks: number } | undefined;
  try {
    // a file with pages SQLite cannot read cannot be counted, or emptied table by table, either
    if (raw.db.pragma('quick_check(1)', { simple: true }) === 'ok') counts = emptied(raw.db, force);
  } catch (err) {
    if (!isDamagedDatabase(err)) throw err;
  } finally {
    raw.close();
  }
  // a damaged file is dealt with once the connection above has let it go
  return counts === undefined ? damagedReset(dir, force) : { path: raw.path, existed: true, ...counts, done: force };
}

/** What a store holds, and, with `force`, its tables dropped and made again empty. */
function emptied(db: Db, force: boolean): { documents: number; chunks: number } {
  const counts = { documents: safeCount(db, 'documents'), chunks: safeCount(db, 'chunks') };
  if (force) {
    db.transaction(() => {
      dropEverything(db);
      createSchema(db);
    })();
    db.exec('VACUUM');
  }
  return counts;
}

/** A reset of a file SQLite cannot read: nothing to drop table by table, so forced, the file goes. */
function damagedReset(dir: string, force: boolean): ResetResult {
  const path = force ? removeDamaged(dir) : join(dir, DB_FILE);
  return { path, existed: true, documents: 0, chunks: 0, done: force, damaged: true };
}

/** One word in the exact vocabulary. */
export interface VocabEntry {
  readonly term: string;
  /** Chunks holding it. */
  readonly chunks: number;
  /** Occurrences in all. */
  readonly occurrences: number;
}

/** Exact (unstemmed) words starting with a prefix, in order; `undefined` when not built. */
export function vocabulary(reader: KnowledgeReader, prefix: string, limit: number): VocabEntry[] | undefined {
  const db = reader.handle();
  if (db === undefined) return undefined;
  const p = prefix.toLowerCase();
  const rows = db
    .prepare(`SELECT term, doc, cnt FROM vocab WHERE term >= ? AND term < ? ORDER BY term LIMIT ?`)
    .all(p, `${p}\u{10ffff}`, Math.max(1, limit)) as { term: string; doc: number; cnt: number }[];
  return rows.map((r) => ({ term: r.term, chunks: r.doc, occurrences: r.cnt }));
}
