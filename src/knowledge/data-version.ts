import type { Database as Db, Statement } from 'better-sqlite3';

// `db.pragma()` compiles its statement on every call, which cost a search more than some of its
// queries: the statement is compiled once per connection instead
const statements = new WeakMap<Db, Statement>();

/**
 * SQLite's `data_version` for a connection: it moves when another connection commits, which is
 * when what a connection has cached from the index is out of date.
 */
export function dataVersion(db: Db): number {
  let st = statements.get(db);
  if (st === undefined) {
    st = db.prepare('PRAGMA data_version').pluck();
    statements.set(db, st);
  }
  return st.get() as number;
}
