import type { Database as Db } from 'better-sqlite3';
import { formatCitation } from './citation.js';
import type { Citation } from './citation.js';

/** A stored chunk addressed by its citation. */
export interface StoredChunk {
  readonly path: string;
  readonly ordinal: number;
  readonly citation: string;
  readonly headingPath: string;
  readonly content: string;
}

interface Row {
  path: string;
  ordinal: number;
  heading: string;
  content: string;
}

const toChunk = (r: Row): StoredChunk => ({
  path: r.path,
  ordinal: r.ordinal,
  citation: formatCitation(r.path, r.ordinal),
  headingPath: r.heading,
  content: r.content,
});

/** The chunk a citation names, or `undefined` when it no longer exists (the file changed). */
export function chunkAt(db: Db, citation: Citation): StoredChunk | undefined {
  const row = db
    .prepare(
      'SELECT d.path AS path, c.ordinal AS ordinal, c.heading_path AS heading, c.content AS content FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path = ? AND c.ordinal = ?',
    )
    .get(citation.path, citation.ordinal) as Row | undefined;
  return row === undefined ? undefined : toChunk(row);
}

/**
 * The whole section a chunk belongs to: the run of neighbouring chunks with the same heading
 * breadcrumb, in order. A packed section split into several chunks reads back as one.
 */
export function sectionAt(db: Db, citation: Citation): StoredChunk[] {
  const rows = db
    .prepare(
      `SELECT d.path AS path, c.ordinal AS ordinal, c.heading_path AS heading, c.content AS content
       FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path = ? ORDER BY c.ordinal`,
    )
    .all(citation.path) as Row[];
  const at = rows.findIndex((r) => r.ordinal === citation.ordinal);
  const hit = rows[at];
  if (hit === undefined) return [];
  let lo = at;
  let hi = at;
  while (lo > 0 && rows[lo - 1]?.heading === hit.heading) lo--;
  while (hi < rows.length - 1 && rows[hi + 1]?.heading === hit.heading) hi++;
  return rows.slice(lo, hi + 1).map(toChunk);
}

/** A document's chunks from an ordinal on, in order; empty when the path is not indexed. */
export function documentChunks(db: Db, path: string, fromOrdinal = 0): StoredChunk[] {
  const rows = db
    .prepare(
      `SELECT d.path AS path, c.ordinal AS ordinal, c.heading_path AS heading, c.content AS content
       FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path = ? AND c.ordinal >= ? ORDER BY c.ordinal`,
    )
    .all(path, fromOrdinal) as Row[];
  return rows.map(toChunk);
}
