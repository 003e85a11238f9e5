import Database from 'better-sqlite3';
import { join } from 'node:path';
import * as sqliteVec from 'sqlite-vec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeEmbeddings, tempDir } from '../../test/knowledge/support.js';
import type { FakeEmbeddings, TempDir } from '../../test/knowledge/support.js';
import { EmbeddingsClient } from './embeddings.js';
import { indexCorpus } from './indexer.js';
import { fuseWeighted, fuseWithLexicalHead, search, VECTOR_WEIGHT } from './search.js';
import { verifyStore } from './setup.js';
import { KnowledgeReader, openWriter } from './store.js';

let tmp: TempDir;
let fake: FakeEmbeddings;
const settings = { model: 'toy', queryPrefix: '', documentPrefix: 'doc {title}: ' };
const vector = (timeoutMs = 5000) => ({ client: new EmbeddingsClient({ baseUrl: fake.baseUrl, model: 'toy', timeoutMs }), settings });
const store = (): string => join(tmp.path, 'store');

beforeAll(async () => {
  tmp = tempDir();
  fake = await startFakeEmbeddings(12);
  for (let i = 0; i < 30; i++) tmp.write(`docs/f${i}.md`, `# File ${i}\n\nthe common word and the topic number${i}\n`);
  tmp.write('docs/special.md', '# Special\n\nthe zebra crossing\n');
  const w = openWriter(store());
  await indexCorpus(w.db, { roots: ['docs'], cwd: tmp.path, excludeDirs: [], vector: vector() });
  w.close();
});
afterAll(async () => {
  await fake.close();
  tmp.cleanup();
});

describe('search', () => {
  it('embeds documents with the document prefix and its {title}', () => {
    expect(fake.requests.some((r) => r.input.includes('doc Special: the zebra crossing'))).toBe(true);
  });

  it('answers a hybrid search with the lexical first five among its first five', async () => {
    const r = new KnowledgeReader(store());
    for (const q of [
      'number3 number4 number5 number6 number7 number8 zebra',
      'topic number11 number12 number13 number14 number15 number16 crossing',
    ]) {
      const lexical = (await search(r, q, { topK: 5 })).hits.map((h) => h.path);
      expect(lexical).toHaveLength(5);
      const hybrid = await search(r, q, { topK: 5, vector: vector() });
      expect(hybrid.tier.kind).toBe('hybrid');
      expect(new Set(hybrid.hits.map((h) => h.path))).toEqual(new Set(lexical));
    }
    r.close();
  });

  it('refuses a number of results that is not a whole number, naming it', async () => {
    const r = new KnowledgeReader(store());
    for (const topK of [Number.NaN, 2.5, Infinity]) {
      await expect(search(r, 'zebra', { topK })).rejects.toThrow(`topK must be a whole number of results, got ${String(topK)}`);
    }
    expect((await search(r, 'zebra', { topK: 0 })).hits.map((h) => h.path)).toEqual(['docs/special.md']);
    r.close();
  });

  it('leaves out a term more than half of all chunks hold, and reports it', async () => {
    const r = new KnowledgeReader(store());
    const res = await search(r, 'the zebra', { topK: 3 });
    expect(res.common).toEqual(['the']);
    expect(res.hits.map((h) => h.path)).toEqual(['docs/special.md']);
    // alone, a common term is still searched
    expect((await search(r, 'the', { topK: 3 })).hits).toHaveLength(3);
    r.close();
  });

  it('degrades on a hung embeddings server as a deadline, naming the step', async () => {
    fake.behaviour = () => 'hang';
    const r = new KnowledgeReader(store());
    const res = await search(r, 'zebra', { topK: 3, vector: vector(100) });
    fake.behaviour = () => 'ok';
    expect(res.tier).toMatchObject({ kind: 'degraded', step: 'embed_query', failure: 'deadline' });
    expect(res.hits[0]?.path).toBe('docs/special.md');
    r.close();
  });

  it('throws when the caller cancels instead of degrading', async () => {
    fake.behaviour = () => 'hang';
    const r = new KnowledgeReader(store());
    const ac = new AbortController();
    const p = search(r, 'zebra', { topK: 3, vector: vector(60_000), signal: ac.signal });
    setImmediate(() => ac.abort());
    await expect(p).rejects.toMatchObject({ failure: 'canceled' });
    fake.behaviour = () => 'ok';
    r.close();
  });

  it('refuses at startup an index whose vectors do not match the configuration', () => {
    const r = new KnowledgeReader(store());
    expect(() => verifyStore(r, { client: vector().client, settings: { ...settings, model: 'other' } })).toThrow(/different model/);
    expect(() => verifyStore(r, undefined)).not.toThrow();
    r.close();
  });
  it('degrades naming the vector search when the vector table fails', async () => {
    const r = new KnowledgeReader(store());
    expect((await search(r, 'zebra', { topK: 3, vector: vector() })).tier.kind).toBe('hybrid');
    // a second connection breaks the vector table under the open reader
    const other = new Database(join(store(), 'knowledge.db'));
    sqliteVec.load(other);
    other.exec('DROP TRIGGER chunks_ad_vec; DROP TABLE chunks_vec;');
    other.close();
    const res = await search(r, 'zebra', { topK: 3, vector: vector() });
    expect(res.tier).toMatchObject({ kind: 'degraded', step: 'vector_search', failure: 'failed' });
    expect(res.hits[0]?.path).toBe('docs/special.md');
    r.close();
  });
});

describe('fusion with the lexical head', () => {
  it('keeps the first five lexical documents first, letting the vectors reorder them and fill the rest', () => {
    const lexical = [1, 2, 3, 4, 5, 6, 7];
    const vector = [7, 9, 5, 6];
    // plain weighted fusion lets a document the words ranked seventh pass the fifth
    const plain = fuseWeighted([
      { ids: lexical, weight: 1 },
      { ids: vector, weight: VECTOR_WEIGHT },
    ]).map((f) => f.id);
    expect(plain.indexOf(7)).toBeLessThan(plain.indexOf(5));
    const fused = fuseWithLexicalHead(lexical, vector);
    const kept = fused.map((f) => f.id);
    // scores never rise down the list
    expect(fused.every((f, i) => i === 0 || f.score <= (fused[i - 1]?.score ?? 0))).toBe(true);
    expect(new Set(kept.slice(0, 5))).toEqual(new Set([1, 2, 3, 4, 5]));
    // after the head: fused order, with the document only the vectors found among them
    expect(kept.slice(5)).toEqual(plain.filter((id) => id > 5));
    expect(kept).toContain(9);
    // fewer lexical documents than the head: the vectors' documents follow them
    expect(fuseWithLexicalHead([4], [8, 4]).map((f) => f.id)).toEqual([4, 8]);
  });
});

describe('lexical ranking', () => {
  it('answers with one passage per document, ranks by the whole question and by the title', async () => {
    const t2 = tempDir();
    try {
      // a long document that repeats one of the words in every section
      const sections = Array.from({ length: 12 }, (_, i) => `## Part ${i}\n\nThe cache is mentioned here, cache and cache again.\n`).join(
        '\n',
      );
      t2.write('docs/big.md', `# Handbook\n\n${sections}`);
      t2.write('docs/ttl.md', '# Expiry\n\nEntries in the cache expire after their time to live.\n');
      t2.write('docs/memory-cache.md', '# Memory cache\n\nKeeps values in process memory.\n');
      t2.write('docs/other.md', '# Other\n\nNothing related at all.\n');
      const dir = join(t2.path, 'store');
      const w = openWriter(dir);
      await indexCorpus(w.db, { roots: ['docs'], cwd: t2.path, excludeDirs: [] });
      w.close();
      const r = new KnowledgeReader(dir);
      const res = await search(r, 'how do I expire cache entries after a time to live', { topK: 5 });
      const paths = res.hits.map((h) => h.path);
      // five hits would be five documents: no document appears twice
      expect(new Set(paths).size).toBe(paths.length);
      expect(paths[0]).toBe('docs/ttl.md');
      expect(paths).toContain('docs/big.md');
      // a query word in the title and path lifts the document over one that merely repeats it
      const named = await search(r, 'memory cache', { topK: 5 });
      expect(named.hits[0]?.path).toBe('docs/memory-cache.md');
      r.close();
    } finally {
      t2.cleanup();
    }
  });
});

describe('copies of one file', () => {
  it('answers with one of them, lexically and in hybrid search', async () => {
    const t2 = tempDir();
    try {
      const text = '# Parser\n\nParses quux frobs into trees.\n';
      t2.write('docs/parser/readme.md', text);
      t2.write('docs/vendor/parser/readme.md', text);
      t2.write('docs/trees.md', '# Trees\n\nGrowing frobs in trees.\n');
      for (let i = 0; i < 5; i++) t2.write(`docs/other${i}.md`, `# Other ${i}\n\nNothing to see ${i}.\n`);
      const dir = join(t2.path, 'store');
      const w = openWriter(dir);
      await indexCorpus(w.db, { roots: ['docs'], cwd: t2.path, excludeDirs: [], vector: vector() });
      w.close();
      const r = new KnowledgeReader(dir);
      for (const v of [undefined, vector()]) {
        const res = await search(r, 'quux frobs trees', { topK: 5, vector: v });
        expect(res.tier.kind).toBe(v === undefined ? 'lexical' : 'hybrid');
        const paths = res.hits.map((h) => h.path);
        expect(paths.filter((p) => p.endsWith('parser/readme.md'))).toHaveLength(1);
        expect(paths).toContain('docs/trees.md');
      }
      r.close();
    } finally {
      t2.cleanup();
    }
  });
});

describe('what a document is about', () => {
  let t2: TempDir;
  let reader: KnowledgeReader;
  beforeAll(async () => {
    t2 = tempDir();
    // every word in a short section under a matching sub-heading: BM25 alone puts this chunk first
    t2.write(
      'docs/guide.md',
      '# Guide\n\nGeneral notes on the service.\n\n## Retry failing operations\n\nRetry a failing operation with exponential backoff.\n',
    );
    // a document written about the question, saying so in its opening chunk
    t2.write(
      'docs/toolkit.md',
      '# Toolkit\n\nA toolkit that will retry a failing operation, waiting longer before each attempt (exponential backoff), until a limit is reached.\n\n## Install\n\nnpm install toolkit\n',
    );
    // the same words, once under the title after a logo chunk and once in a sub-section
    t2.write('docs/a-section.md', '# Alpha\n\nUnrelated opening.\n\n## Gamma\n\nParses quux frobs.\n');
    t2.write('docs/z-intro.md', '<p><img src="logo.svg"></p>\n\n# Zeta\n\nParses quux frobs, fast.\n');
    // a change log that names a feature in every release, and the guide that explains it
    t2.write(
      'docs/CHANGELOG.md',
      '# Changelog\n\n## 3.0.0\n\n- Widget export: sign the widget export archive.\n\n## 2.0.0\n\n- Widget export: faster widget export.\n',
    );
    t2.write(
      'docs/sharing.md',
      '# Sharing\n\nExport your work to share it.\n\n## Export a widget\n\nExport writes the widget to an archive you can send.\n',
    );
    const w = openWriter(join(t2.path, 'store'));
    await indexCorpus(w.db, { roots: ['docs'], cwd: t2.path, excludeDirs: [] });
    w.close();
    reader = new KnowledgeReader(join(t2.path, 'store'));
  });
  afterAll(() => {
    reader.close();
    t2.cleanup();
  });

  it('ranks a document whose opening chunk holds the words above one that mentions them in a section', async () => {
    const res = await search(reader, 'how do I retry a failing operation with exponential backoff', { topK: 5 });
    expect(res.hits.map((h) => h.path).slice(0, 2)).toEqual(['docs/toolkit.md', 'docs/guide.md']);
  });

  it('counts the text under the title as the introduction even after a chunk before the title', async () => {
    const res = await search(reader, 'quux frobs', { topK: 5 });
    expect(res.hits.map((h) => h.path)).toEqual(['docs/z-intro.md', 'docs/a-section.md']);
    expect(res.hits[0]?.headingPath).toBe('Zeta');
  });

  it('ranks a change log that names the feature below the document that explains it', async () => {
    const res = await search(reader, 'how do I export a widget', { topK: 5 });
    expect(res.hits.map((h) => h.path)).toEqual(['docs/sharing.md', 'docs/CHANGELOG.md']);
  });
});

describe('indexing with vectors', () => {
  it('reports a cancellation during an embeddings call as canceled, keeping what was written', async () => {
    const t2 = tempDir();
    try {
      for (let i = 0; i < 3; i++) t2.write(`docs/f${i}.md`, `# F${i}\n\nbody ${i}\n`);
      const w = openWriter(join(t2.path, 'store'));
      const ac = new AbortController();
      // the stop comes while an embeddings call is in flight, whatever the machine's speed
      fake.behaviour = (input) => {
        if (input[0] === 'dimension probe') return 'ok';
        setImmediate(() => ac.abort());
        return 'hang';
      };
      const res = await indexCorpus(w.db, { roots: ['docs'], cwd: t2.path, excludeDirs: [], vector: vector(60_000), signal: ac.signal });
      fake.behaviour = () => 'ok';
      w.close();
      expect(res.canceled).toBe(true);
      expect(res.added).toBe(0);
    } finally {
      fake.behaviour = () => 'ok';
      t2.cleanup();
    }
  });
});
