// The baseline `fisk knowledge index` is measured against: the indexing script someone would write
// by hand. It walks a directory, reads every .md file and inserts its path and text into one FTS5
// table (porter stemming, as the store's main table) in one transaction. No chunking, no change
// detection, no second table. Usage: node bare-index.mjs <corpus dir> <database file>
import Database from 'better-sqlite3';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [corpus, file] = process.argv.slice(2);
if (corpus === undefined || file === undefined) throw new Error('usage: bare-index.mjs <corpus dir> <database file>');

function* markdown(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* markdown(p);
    else if (e.isFile() && e.name.endsWith('.md')) yield p;
  }
}

const db = new Database(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`CREATE VIRTUAL TABLE docs USING fts5(path UNINDEXED, content, tokenize='porter unicode61')`);
const insert = db.prepare('INSERT INTO docs(path, content) VALUES (?, ?)');
let files = 0;
db.transaction(() => {
  for (const p of markdown(corpus)) {
    insert.run(p, readFileSync(p, 'utf8'));
    files++;
  }
})();
db.close();
process.stdout.write(`${files}\n`);
