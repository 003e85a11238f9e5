import type { Database as Db } from 'better-sqlite3';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { KnowledgeError } from './errors.js';

/** The two full-text tables a first build may fill after its chunks. */
export type FullTextTable = 'chunks_fts' | 'chunks_exact';

/**
 * The `knowledge_meta` key that says which full-text tables are not yet filled, and up to which
 * chunk id they are. While it is set, no chunk may be deleted or updated: the delete triggers would
 * remove FTS rows that were never inserted, which corrupts an external-content FTS5 index.
 */
export const INCOMPLETE_KEY = 'fulltext_incomplete';

/** What the marker records: the tables being filled and the last chunk id they hold. */
export interface FullTextGap {
  readonly tables: readonly FullTextTable[];
  readonly after: number;
}

/** The command that completes the full-text tables, for messages. */
export const COMPLETE_HINT = "run 'fisk knowledge index' (or 'fisk knowledge rebuild') to complete it";

const TARGET_MS = 200;
const FIRST_SPAN = 2000;

function isTable(v: unknown): v is FullTextTable {
  return v === 'chunks_fts' || v === 'chunks_exact';
}

/** The unfinished fill, or `undefined` when both full-text tables hold every chunk. */
export function readGap(db: Db): FullTextGap | undefined {
  const row = db.prepare('SELECT value FROM knowledge_meta WHERE key = ?').get(INCOMPLETE_KEY) as { value: string } | undefined;
  if (row === undefined) return undefined;
  try {
    const v = JSON.parse(row.value) as { tables?: unknown; after?: unknown };
    const tables = Array.isArray(v.tables) ? v.tables.filter(isTable) : [];
    const after = typeof v.after === 'number' && Number.isInteger(v.after) && v.after >= 0 ? v.after : 0;
    // an unreadable marker is treated as "both tables, from nothing"; the fill starts with delete-all
    return tables.length > 0 ? { tables, after } : { tables: ['chunks_fts', 'chunks_exact'], after: -1 };
  } catch {
    return { tables: ['chunks_fts', 'chunks_exact'], after: -1 };
  }
}

function writeGap(db: Db, gap: FullTextGap): void {
  db.prepare('INSERT INTO knowledge_meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(
    INCOMPLETE_KEY,
    JSON.stringify(gap),
  );
}

/** Records, on the caller's transaction, that these tables will be filled after the chunks are written. */
export function markIncomplete(db: Db, tables: readonly FullTextTable[]): void {
  writeGap(db, { tables, after: 0 });
}

/** Clears the marker on the caller's transaction (a full `rebuild` fills both tables at once). */
export function clearGap(db: Db): void {
  db.prepare('DELETE FROM knowledge_meta WHERE key = ?').run(INCOMPLETE_KEY);
}

/** Refuses a change that would delete or update chunks while a full-text table is unfinished. */
export function assertComplete(db: Db): void {
  if (readGap(db) !== undefined) {
    throw new KnowledgeError('fulltext_incomplete', `the full-text index is incomplete (a first build was interrupted); ${COMPLETE_HINT}`);
  }
}

/**
 * Fills the unfinished full-text tables from the chunks table, in ranges of chunks. Each range is its
 * own short transaction that also moves the marker forward, so a stop between ranges loses
 * nothing and the next fill resumes there; between ranges the event loop gets a turn, which is
 * when a Ctrl-C handler can abort `signal`. Ranges grow until one takes about 200 ms, which keeps
 * both the pause before a stop and the count of FTS segments small. Returns false when stopped.
 */
export async function fillGap(db: Db, signal: AbortSignal, onStart?: (chunks: number) => void): Promise<boolean> {
  const gap = readGap(db);
  if (gap === undefined) return true;
  const maxRow = db.prepare('SELECT max(id) AS m FROM chunks').get() as { m: number | null };
  const last = maxRow.m ?? 0;
  let after = gap.after;
  if (after < 0) {
    // the fill position is unknown: start both tables again from nothing
    db.transaction(() => {
      for (const t of gap.tables) db.exec(`INSERT INTO ${t}(${t}) VALUES ('delete-all')`);
      writeGap(db, { tables: gap.tables, after: 0 });
    })();
    after = 0;
  }
  const remaining = (db.prepare('SELECT count(*) AS n FROM chunks WHERE id > ?').get(after) as { n: number }).n;
  if (remaining > 0) onStart?.(remaining);
  const inserts = gap.tables.map((t) =>
    db.prepare(
      `INSERT INTO ${t}(rowid, content, heading_path) SELECT id, content, heading_path FROM chunks WHERE id > ? AND id <= ? ORDER BY id`,
    ),
  );
  const step = db.transaction((from: number, to: number) => {
    for (const s of inserts) s.run(from, to);
    if (to >= last) clearGap(db);
    else writeGap(db, { tables: gap.tables, after: to });
  });
  // chunk ids leave gaps (each document has a range of its own), so a span counts chunks, not ids
  const endOf = db.prepare('SELECT id FROM chunks WHERE id > ? ORDER BY id LIMIT 1 OFFSET ?');
  let span = FIRST_SPAN;
  for (;;) {
    if (signal.aborted) return false;
    const end = endOf.get(after, span - 1) as { id: number } | undefined;
    const to = Math.min(last, end?.id ?? last);
    const started = Date.now();
    step(after, to);
    after = to;
    if (after >= last) return true;
    const took = Date.now() - started;
    if (took < TARGET_MS / 2) span *= 2;
    else if (took > TARGET_MS * 2) span = Math.max(FIRST_SPAN / 4, Math.floor(span / 2));
    await nextTurn();
  }
}
