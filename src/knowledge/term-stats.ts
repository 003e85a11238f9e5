import type { Database as Db, Statement } from 'better-sqlite3';
import { dataVersion } from './data-version.js';
import { quoteTerm } from './query.js';

/**
 * Chunk frequencies of query terms, cached per connection until another connection commits
 * (SQLite's `data_version` moves). A term found in more than half of all chunks has no BM25
 * weight left (its inverse document frequency is clamped to almost zero) yet makes the ranking
 * score every one of those chunks, so the search leaves such terms out when rarer ones remain.
 */
interface Cache {
  version: number;
  chunks: number;
  readonly df: Map<string, number>;
  readonly count: Statement;
  readonly total: Statement;
}

const caches = new WeakMap<Db, Cache>();

function cacheFor(db: Db): Cache {
  const version = dataVersion(db);
  let c = caches.get(db);
  if (c === undefined) {
    c = {
      version: -1,
      chunks: 0,
      df: new Map(),
      count: db.prepare('SELECT count(*) AS n FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)'),
      total: db.prepare('SELECT count(*) AS n FROM chunks'),
    };
    caches.set(db, c);
  }
  if (c.version !== version) {
    c.version = version;
    c.df.clear();
    c.chunks = (c.total.get() as { n: number }).n;
  }
  return c;
}

/**
 * Splits terms into those worth ranking and those too common to carry weight. Counting stops at
 * half the chunks plus one, so a common term costs a bounded scan once per index version.
 * When every term is that common, all are kept: a query must not be emptied by this rule.
 */
export function splitCommonTerms(db: Db, terms: readonly string[]): { keep: string[]; common: string[] } {
  if (terms.length < 2) return { keep: [...terms], common: [] };
  const c = cacheFor(db);
  const half = Math.floor(c.chunks / 2);
  const keep: string[] = [];
  const common: string[] = [];
  for (const t of terms) {
    const key = t.toLowerCase();
    let df = c.df.get(key);
    if (df === undefined) {
      df = (c.count.get(quoteTerm(t), half + 1) as { n: number }).n;
      c.df.set(key, df);
    }
    (df > half && c.chunks >= 20 ? common : keep).push(t);
  }
  return keep.length === 0 ? { keep: [...terms], common: [] } : { keep, common };
}
