import type { Database } from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { KnowledgeError } from './errors.js';

/**
 * The on-disk format this build writes. Version 1 was a single porter-stemmed FTS table with the
 * heading folded into it; version 2 keeps headings apart (weighted 2.0) and adds the exact table
 * and the vocabulary view; version 3 numbers each chunk by its document and position
 * (`chunkIdOf`), so a search learns a candidate's document from its full-text row id without
 * reading the chunk row (which holds the text, one to three chunks a page). Version 2 has the same
 * tables and is still read and written as it is (its chunks numbered in order, its searches
 * reading each candidate's row), so an upgrade neither refuses an index nor makes anyone rebuild
 * it and pay for its embeddings again; a reset and a new index writes version 3. There is no
 * migration, by design: an index is derived data, and rebuilding it is cheaper and safer than a
 * migration that could go wrong.
 */
export const FORMAT_VERSION = 3 as const;

/** The oldest format this build reads (and keeps writing in its own format). */
export const OLDEST_FORMAT_VERSION = 2 as const;

/**
 * Chunk ids are `document id × CHUNK_ID_SPAN + ordinal`. A document holds at most
 * `MAX_FILE_BYTES` (512 KiB) of text, so it can never have this many chunks; document ids stay
 * far below 2^33, which keeps every chunk id an exact JavaScript number.
 */
export const CHUNK_ID_SPAN = 2 ** 20;

/** The id of a document's chunk at `ordinal`. */
export function chunkIdOf(documentId: number, ordinal: number): number {
  if (!Number.isInteger(ordinal) || ordinal < 0 || ordinal >= CHUNK_ID_SPAN) {
    throw new KnowledgeError('io', `a document cannot be indexed as more than ${CHUNK_ID_SPAN} chunks (it gave chunk ${ordinal})`);
  }
  return documentId * CHUNK_ID_SPAN + ordinal;
}

/** The document a chunk id belongs to. */
export function documentOfChunk(chunkId: number): number {
  return Math.floor(chunkId / CHUNK_ID_SPAN);
}

/** A chunk's position in its document, from its id. */
export function ordinalOfChunk(chunkId: number): number {
  return chunkId % CHUNK_ID_SPAN;
}

/**
 * There is deliberately no insert trigger: FTS5 flushes its pending terms at every statement
 * savepoint, and a trigger body runs inside one, which made bulk indexing three to four times
 * slower. The writer inserts a chunk's two FTS rows itself, in the transaction that inserts the
 * chunk (`INSERT_FTS_SQL`); deletes and updates stay on triggers, so a removal from any code
 * path keeps both indexes and the vectors in step.
 */
export const INSERT_FTS_SQL = [
  'INSERT INTO chunks_fts(rowid, content, heading_path) VALUES (?, ?, ?)',
  'INSERT INTO chunks_exact(rowid, content, heading_path) VALUES (?, ?, ?)',
] as const;

/** BM25 column weights for `chunks_fts(content, heading_path)`: a heading match counts double. */
export const BM25_WEIGHTS = [1.0, 2.0] as const;

/** Format 3's rule for chunk ids, held by SQLite on every insert. */
const CHUNK_ID_CHECK = `,\n  CHECK (id = document_id * ${CHUNK_ID_SPAN} + ordinal)`;

const BASE_DDL = `
CREATE TABLE documents (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL,
  mtime INTEGER NOT NULL,
  size INTEGER NOT NULL,
  hash TEXT NOT NULL,
  indexed_at INTEGER NOT NULL
);
CREATE TABLE chunks (
  id INTEGER PRIMARY KEY,
  document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,
  heading_path TEXT NOT NULL,
  content TEXT NOT NULL,
  UNIQUE (document_id, ordinal)${CHUNK_ID_CHECK}
);
CREATE TABLE knowledge_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE VIRTUAL TABLE chunks_fts USING fts5(content, heading_path, content='chunks', content_rowid='id', tokenize='porter unicode61');
CREATE VIRTUAL TABLE chunks_exact USING fts5(content, heading_path, content='chunks', content_rowid='id', tokenize='unicode61');
CREATE VIRTUAL TABLE vocab USING fts5vocab(chunks_exact, 'row');
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, content, heading_path) VALUES ('delete', old.id, old.content, old.heading_path);
  INSERT INTO chunks_exact(chunks_exact, rowid, content, heading_path) VALUES ('delete', old.id, old.content, old.heading_path);
END;
CREATE TRIGGER chunks_au AFTER UPDATE ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, content, heading_path) VALUES ('delete', old.id, old.content, old.heading_path);
  INSERT INTO chunks_exact(chunks_exact, rowid, content, heading_path) VALUES ('delete', old.id, old.content, old.heading_path);
  INSERT INTO chunks_fts(rowid, content, heading_path) VALUES (new.id, new.content, new.heading_path);
  INSERT INTO chunks_exact(rowid, content, heading_path) VALUES (new.id, new.content, new.heading_path);
END;
`;

/** The objects of the base schema, by name and type; the vector pair is optional. */
const BASE_OBJECTS: ReadonlyMap<string, string> = new Map([
  ['documents', 'table'],
  ['chunks', 'table'],
  ['knowledge_meta', 'table'],
  ['chunks_fts', 'table'],
  ['chunks_exact', 'table'],
  ['vocab', 'table'],
  ['chunks_ad', 'trigger'],
  ['chunks_au', 'trigger'],
]);
const VECTOR_OBJECTS: ReadonlyMap<string, string> = new Map([
  ['chunks_vec', 'table'],
  ['chunks_ad_vec', 'trigger'],
]);
const COLUMNS: Readonly<Record<string, readonly string[]>> = {
  documents: ['id', 'path', 'title', 'mtime', 'size', 'hash', 'indexed_at'],
  chunks: ['id', 'document_id', 'ordinal', 'heading_path', 'content'],
  knowledge_meta: ['key', 'value'],
};

const VIRTUAL = /^CREATE VIRTUAL TABLE/i;

/** The user-visible objects of a database: shadow tables of virtual tables and SQLite's own left out. */
export function listObjects(db: Database): Map<string, string> {
  const rows = db
    .prepare(`SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND type IN ('table','trigger','view','index')`)
    .all() as { type: string; name: string; sql: string | null }[];
  const virtuals = rows.filter((r) => r.sql !== null && VIRTUAL.test(r.sql)).map((r) => `${r.name}_`);
  const out = new Map<string, string>();
  for (const r of rows) {
    if (r.type === 'index' && r.sql === null) continue; // automatic indexes for UNIQUE constraints
    if (virtuals.some((prefix) => r.name.startsWith(prefix))) continue;
    out.set(r.name, r.type);
  }
  return out;
}

/**
 * Creates the base schema on the caller's transaction (never a nested one), in this build's format
 * or, for tests of reading and writing an older index, in format 2: the same tables, with chunk
 * ids numbered in order.
 */
export function createSchema(db: Database, version: typeof OLDEST_FORMAT_VERSION | typeof FORMAT_VERSION = FORMAT_VERSION): void {
  db.exec(version === FORMAT_VERSION ? BASE_DDL : BASE_DDL.replace(CHUNK_ID_CHECK, ''));
  db.prepare('INSERT INTO knowledge_meta(key, value) VALUES (?, ?)').run('format_version', String(version));
}

const withVectors = new WeakSet<Database>();

/**
 * Loads the vector extension into a connection, once. Every store connection has it, except a bulk
 * build's fresh side file, which gets it only when the pass creates the vector table.
 */
export function loadVectorExtension(db: Database): void {
  if (withVectors.has(db)) return;
  sqliteVec.load(db);
  withVectors.add(db);
}

/** Creates the vector table and its delete trigger for a dimension, on the caller's transaction. */
export function createVectorSchema(db: Database, dimension: number): void {
  if (!Number.isInteger(dimension) || dimension <= 0) throw new KnowledgeError('embeddings', `invalid embedding dimension ${dimension}`);
  loadVectorExtension(db);
  db.exec(`CREATE VIRTUAL TABLE chunks_vec USING vec0(chunk_id INTEGER PRIMARY KEY, embedding FLOAT[${dimension}]);
CREATE TRIGGER chunks_ad_vec AFTER DELETE ON chunks BEGIN DELETE FROM chunks_vec WHERE chunk_id = old.id; END;`);
}

/** Drops the vector table and trigger, on the caller's transaction. */
export function dropVectorSchema(db: Database): void {
  db.exec('DROP TRIGGER IF EXISTS chunks_ad_vec; DROP TABLE IF EXISTS chunks_vec;');
}

/**
 * Drops every object the file holds. Dropping fires no row triggers, so this works against an
 * index whose FTS has drifted from its content table, where deleting rows would fail.
 */
export function dropEverything(db: Database): void {
  const objects = listObjects(db);
  for (const [name, type] of objects) {
    if (type === 'trigger') db.exec(`DROP TRIGGER IF EXISTS "${name.replaceAll('"', '""')}"`);
  }
  for (const [name, type] of objects) {
    if (type === 'view') db.exec(`DROP VIEW IF EXISTS "${name.replaceAll('"', '""')}"`);
  }
  // documents last: chunks reference it
  const tables = [...objects].filter(([, t]) => t === 'table').map(([n]) => n);
  const order = [...tables.filter((n) => n !== 'documents'), ...tables.filter((n) => n === 'documents')];
  for (const name of order) db.exec(`DROP TABLE IF EXISTS "${name.replaceAll('"', '""')}"`);
}

/** What the format gate found. */
export type FormatState = 'fresh' | 'current';

/** The version `knowledge_meta` pins (-1 for one that is not a whole number), read without checking the table exists. */
function pinnedVersion(db: Database): number | undefined {
  const row = db.prepare(`SELECT value FROM knowledge_meta WHERE key = 'format_version'`).get() as { value: string } | undefined;
  if (row === undefined) return undefined;
  const n = Number(row.value);
  return Number.isInteger(n) ? n : -1;
}

function readVersion(db: Database, objects: Map<string, string>): number | undefined {
  return objects.has('knowledge_meta') ? pinnedVersion(db) : undefined;
}

const RESET_HINT = "run 'fisk knowledge reset --force' and then 'fisk knowledge index' to rebuild it";

/** The format version a built index pins (`undefined` when it pins none). */
export function formatVersion(db: Database): number | undefined {
  return readVersion(db, listObjects(db));
}

/** The first format whose chunk ids carry their document and position. */
const CHUNK_IDS_BY_DOCUMENT = 3;

/** Whether the index's chunk ids carry their document and position (format 3 and later); on a gated file. */
export function chunkIdsCarryDocument(db: Database): boolean {
  return (pinnedVersion(db) ?? 0) >= CHUNK_IDS_BY_DOCUMENT;
}

/**
 * The format gate. Refuses a newer format (upgrade fisk-ai) and an older one (reset and rebuild),
 * and compares the object list and column shape separately from the pinned number, because an
 * emptied metadata table must not let a foreign shape through. Returns `fresh` for an empty file.
 */
export function checkFormat(db: Database, path: string): FormatState {
  const objects = listObjects(db);
  if (objects.size === 0) return 'fresh';
  const version = readVersion(db, objects);
  if (version !== undefined && version > FORMAT_VERSION) {
    throw new KnowledgeError(
      'format_too_new',
      `the knowledge index ${path} has format version ${version}, but this build reads up to ${FORMAT_VERSION}; upgrade fisk-ai`,
    );
  }
  if (version !== undefined && version < OLDEST_FORMAT_VERSION) {
    throw new KnowledgeError(
      'format_too_old',
      `the knowledge index ${path} has format version ${version}, older than this build reads (${OLDEST_FORMAT_VERSION} to ${FORMAT_VERSION}); ${RESET_HINT}`,
    );
  }
  const problems: string[] = [];
  for (const [name, type] of BASE_OBJECTS) {
    if (objects.get(name) !== type) problems.push(`missing ${type} ${name}`);
  }
  for (const [name, type] of objects) {
    if (BASE_OBJECTS.has(name)) continue;
    if (VECTOR_OBJECTS.get(name) === type) continue;
    problems.push(`unexpected ${type} ${name}`);
  }
  if (objects.has('chunks_vec') !== objects.has('chunks_ad_vec')) problems.push('vector table and its trigger out of step');
  for (const [table, want] of Object.entries(COLUMNS)) {
    if (!objects.has(table)) continue;
    const have = (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((r) => r.name);
    if (have.join(',') !== want.join(',')) problems.push(`table ${table} has columns (${have.join(', ')})`);
  }
  if (problems.length > 0) {
    throw new KnowledgeError(
      'format_too_old',
      `the knowledge index ${path} does not have this build's shape (${problems.slice(0, 3).join('; ')}); ${RESET_HINT}`,
    );
  }
  if (version === undefined) {
    throw new KnowledgeError('format_too_old', `the knowledge index ${path} has no pinned format version; ${RESET_HINT}`);
  }
  return 'current';
}
