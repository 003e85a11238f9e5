import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';

/**
 * Porter stems computed by SQLite's own tokenizer in a scratch in-memory database, so the stems
 * reported are exactly the ones the index matched on (a second stemmer would drift from it).
 */
export class Stemmer {
  readonly #db: Db;
  readonly #insert: Statement;
  readonly #terms: Statement;

  constructor() {
    this.#db = new Database(':memory:');
    this.#db.exec(`CREATE VIRTUAL TABLE s USING fts5(t, tokenize='porter unicode61');
CREATE VIRTUAL TABLE s_i USING fts5vocab(s, 'instance');`);
    this.#insert = this.#db.prepare('INSERT INTO s(rowid, t) VALUES (?, ?)');
    this.#terms = this.#db.prepare('SELECT doc, term FROM s_i ORDER BY doc, offset');
  }

  /** The stems of each text (a phrase yields several), in order. */
  stems(texts: readonly string[]): string[][] {
    const db = this.#db;
    return db.transaction(() => {
      db.exec('DELETE FROM s');
      texts.forEach((t, i) => this.#insert.run(i + 1, t));
      const rows = this.#terms.all() as { doc: number; term: string }[];
      const out: string[][] = texts.map(() => []);
      for (const r of rows) out[r.doc - 1]?.push(r.term);
      return out;
    })();
  }

  close(): void {
    this.#db.close();
  }
}

const MAX_CANDIDATES = 200;

/**
 * The real words in the index behind a stem: exact-vocabulary words sharing the stem's leading
 * letters whose own stem is the same. Used to tell the reader which words matched.
 */
export function wordsForStem(db: Db, stemmer: Stemmer, stem: string, limit = 12): string[] {
  // porter mostly strips suffixes, so real words start with the stem; its one common rewrite is a
  // final y to i (happy -> happi), so such a stem searches one letter shorter
  const chars = [...stem];
  const prefix = stem.endsWith('i') && chars.length > 2 ? chars.slice(0, -1).join('') : stem;
  const candidates = (
    db
      .prepare(`SELECT term FROM vocab WHERE term >= ? AND term < ? ORDER BY term LIMIT ${MAX_CANDIDATES}`)
      .all(prefix, `${prefix}\u{10ffff}`) as { term: string }[]
  ).map((r) => r.term);
  if (candidates.length === 0) return [];
  const stems = stemmer.stems(candidates);
  const out: string[] = [];
  candidates.forEach((c, i) => {
    if (out.length < limit && stems[i]?.length === 1 && stems[i]?.[0] === stem) out.push(c);
  });
  return out;
}
