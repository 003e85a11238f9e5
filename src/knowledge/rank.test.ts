import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/knowledge/support.js';
import type { TempDir } from '../../test/knowledge/support.js';
import { indexCorpus } from './indexer.js';
import { freeTextQuery } from './query.js';
import { rankDocuments, stemTest } from './rank.js';
import type { RankedDocument } from './rank.js';
import { runDoctor } from './doctor.js';
import { chunkIdOf, CHUNK_ID_SPAN, createSchema, documentOfChunk, dropEverything, ordinalOfChunk } from './schema.js';
import { search } from './search.js';
import { KnowledgeReader, openWriter } from './store.js';
import { splitCommonTerms } from './term-stats.js';

const WORDS = `alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa
quebec romeo sierra tango uniform victor whiskey xray yankee zulu parse parser parsing configure configuration`.split(/\s+/);

/** A small deterministic generator, so a failure names a corpus that can be rebuilt. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

let tmp: TempDir;
let reader: KnowledgeReader;
/** The same corpus in an index of format 2 (chunk ids numbered in order). */
let older: KnowledgeReader;

beforeAll(async () => {
  tmp = tempDir();
  const next = random(7);
  const pick = (): string => WORDS[Math.floor(next() * WORDS.length)] ?? 'alpha';
  const sentence = (n: number): string => Array.from({ length: n }, pick).join(' ');
  for (let doc = 0; doc < 60; doc++) {
    const sections = 1 + Math.floor(next() * 5);
    const parts = [`# ${sentence(2)}`, sentence(12)];
    for (let at = 0; at < sections; at++)
      parts.push(`${at % 2 === 0 ? '##' : '###'} ${sentence(2)}`, sentence(40 + Math.floor(next() * 200)));
    const text = `${parts.join('\n\n')}\n`;
    tmp.write(`docs/${doc % 3 === 0 ? 'CHANGELOG-' : ''}d${doc}.md`, text);
    // copies of one file under a second path: one document to a reader
    if (doc % 7 === 0) tmp.write(`copies/d${doc}.md`, text);
  }
  const writer = openWriter(`${tmp.path}/store`);
  await indexCorpus(writer.db, { roots: ['docs', 'copies'], cwd: tmp.path, excludeDirs: [], maxChunkChars: 300 });
  writer.close();
  reader = new KnowledgeReader(`${tmp.path}/store`);
  const two = openWriter(`${tmp.path}/store-2`);
  two.db.transaction(() => {
    dropEverything(two.db);
    createSchema(two.db, 2);
  })();
  await indexCorpus(two.db, { roots: ['docs', 'copies'], cwd: tmp.path, excludeDirs: [], maxChunkChars: 300 });
  two.close();
  older = new KnowledgeReader(`${tmp.path}/store-2`);
});
afterAll(() => {
  reader.close();
  older.close();
  tmp.cleanup();
});

/** The head of a whole ranking through its `limit`-th distinct content. */
function head(ranked: readonly RankedDocument[], limit: number): RankedDocument[] {
  const seen = new Set<string>();
  let end = 0;
  while (end < ranked.length && seen.size < limit) seen.add(ranked[end++]?.hash ?? '');
  return ranked.slice(0, end);
}

describe('rankDocuments', () => {
  it('gives with a limit exactly the head of the whole ranking', () => {
    const db = reader.handle();
    if (db === undefined) throw new Error('no index');
    const next = random(11);
    let compared = 0;
    for (let query = 0; query < 150; query++) {
      const words = Array.from({ length: 1 + Math.floor(next() * 4) }, () => WORDS[Math.floor(next() * WORDS.length)] ?? 'alpha');
      const { keep } = splitCommonTerms(db, freeTextQuery(words.join(' ')).terms);
      const whole = rankDocuments(db, keep);
      for (const limit of [1, 2, 3, 5, 8]) {
        const limited = rankDocuments(db, keep, limit);
        expect(limited, `${words.join(' ')} / ${limit}`).toEqual(head(whole, limit));
        compared++;
      }
    }
    expect(compared).toBe(750);
  });

  it('keeps copies of one file as one content when counting the head', () => {
    const db = reader.handle();
    if (db === undefined) throw new Error('no index');
    const whole = rankDocuments(db, ['alpha', 'bravo']);
    const hashes = new Set(whole.map((doc) => doc.hash));
    expect(hashes.size).toBeLessThan(whole.length);
    const limited = rankDocuments(db, ['alpha', 'bravo'], hashes.size);
    expect(limited).toEqual(whole);
  });
});

describe('an index in format 2', () => {
  it('is searched with the same answers as format 3, its chunks numbered in order', async () => {
    const db = older.handle();
    if (db === undefined) throw new Error('no index');
    const ids = db.prepare('SELECT count(*) AS n, max(id) AS top FROM chunks').get() as { n: number; top: number };
    expect(ids.top).toBe(ids.n);
    const next = random(5);
    for (let query = 0; query < 60; query++) {
      const words = Array.from({ length: 1 + Math.floor(next() * 3) }, () => WORDS[Math.floor(next() * WORDS.length)] ?? 'alpha').join(' ');
      const answer = async (from: KnowledgeReader): Promise<unknown[]> =>
        (await search(from, words, { topK: 5 })).hits.map((hit) => [hit.path, hit.ordinal, hit.score, hit.content]);
      expect(await answer(older), words).toEqual(await answer(reader));
    }
  });

  it('is updated in its own format, and the doctor says how to rebuild it in this one', async () => {
    tmp.write('docs/d2.md', '# Changed\n\nnow about zulu alone\n');
    const writer = openWriter(`${tmp.path}/store-2`);
    await indexCorpus(writer.db, { roots: ['docs', 'copies'], cwd: tmp.path, excludeDirs: [] });
    writer.close();
    const hits = (await search(older, 'zulu alone', { topK: 3 })).hits.map((hit) => hit.path);
    expect(hits[0]).toBe('docs/d2.md');
    const report = await runDoctor(older, undefined, new AbortController().signal);
    expect(report.checks.find((check) => check.name === 'format')?.detail).toMatch(
      /format version 2, read and updated as it is.*reset --force/,
    );
  });
});

describe('chunk ids', () => {
  it('say which document and where in it, and stay so when a document is indexed again', async () => {
    const db = reader.handle();
    if (db === undefined) throw new Error('no index');
    const check = (): number => {
      const rows = db.prepare('SELECT id, document_id AS doc, ordinal FROM chunks').all() as { id: number; doc: number; ordinal: number }[];
      for (const row of rows) {
        expect(row.id).toBe(chunkIdOf(row.doc, row.ordinal));
        expect(documentOfChunk(row.id)).toBe(row.doc);
        expect(ordinalOfChunk(row.id)).toBe(row.ordinal);
      }
      return rows.length;
    };
    expect(check()).toBeGreaterThan(60);
    tmp.write('docs/d1.md', '# Rewritten\n\nshorter now, one zulu chunk\n');
    const writer = openWriter(`${tmp.path}/store`);
    await indexCorpus(writer.db, { roots: ['docs', 'copies'], cwd: tmp.path, excludeDirs: [] });
    writer.close();
    check();
    expect(() => chunkIdOf(1, CHUNK_ID_SPAN)).toThrow(/more than/);
  });
});

describe('stemTest', () => {
  it('finds a stem at the start of a word in any letter case, and not inside one', () => {
    const test = stemTest('config');
    expect(test('see Configuration below')).toBe(true);
    expect(test('(CONFIG)')).toBe(true);
    expect(test('config')).toBe(true);
    expect(test('reconfigure it')).toBe(false);
    expect(test('x2config')).toBe(false);
    // a letter outside the basic plane before it is a letter all the same
    expect(test('\u{1D400}config')).toBe(false);
    expect(test('éconfig')).toBe(false);
    // a later occurrence at a word start counts when an earlier one is inside a word
    expect(test('reconfig and config')).toBe(true);
  });

  it('tries a final i as y, the stemmer rewrites it', () => {
    expect(stemTest('librari')('the Library')).toBe(true);
    expect(stemTest('librari')('libraries')).toBe(true);
  });
});
