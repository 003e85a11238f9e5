// Knowledge store at scale: a deterministic synthetic corpus of 10,000 Markdown files (~60 MB)
// with headings and code fences, indexed lexically and searched; a smaller hybrid pass against a
// local fake embeddings server. Then the in-process indexing ratio with its spread: interleaved
// rounds, each a fresh index of a 1,000-file corpus against inserting the same chunks into both FTS5
// tables of a bare database (CPU time of this process). Prints one JSON line.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  KnowledgeReader,
  EmbeddingsClient,
  chunkMarkdown,
  enumerate,
  indexCorpus,
  openWriter,
  search,
} from '../../dist/knowledge/index.js';
import { syntheticCorpus } from '../lib/corpus.mjs';
import { fakeEmbeddings } from '../lib/toy-embeddings.mjs';

const FILES = Number(process.env.KNOWLEDGE_BENCH_FILES ?? 10_000);
const HYBRID_FILES = Number(process.env.KNOWLEDGE_BENCH_HYBRID_FILES ?? 500);
const QUERIES = 200;
// the ratio to the bare two-table insert, with its spread: interleaved rounds on a smaller corpus
const RATIO_FILES = Number(process.env.KNOWLEDGE_BENCH_RATIO_FILES ?? 1000);
const RATIO_ROUNDS = Number(process.env.KNOWLEDGE_BENCH_RATIO_ROUNDS ?? 7);

const { rand, pick, COMMON, queryWord, generate } = syntheticCorpus(42);

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;

const root = mkdtempSync(join(tmpdir(), 'fisk-knowledge-bench-'));
try {
  const corpus = join(root, 'corpus');
  const corpusBytes = generate(corpus, FILES);
  const storeDir = join(root, 'store');

  // 1. full lexical index
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  // as `fisk knowledge index` opens it (KNOWLEDGE_BENCH_BULK=0: as a long-lived writer does)
  let w = openWriter(storeDir, { bulk: process.env.KNOWLEDGE_BENCH_BULK !== '0' });
  let t = process.hrtime.bigint();
  const full = await indexCorpus(w.db, { roots: [corpus], cwd: root, excludeDirs: [storeDir], bulk: w.bulk });
  const fullMs = ms(t);
  w.close();
  const peakRssMb = process.resourceUsage().maxRSS / 1024;

  // 2. baseline: the same chunks into one bare FTS5 table in one transaction
  const chunks = [];
  for (const { path } of new KnowledgeReader(storeDir).handle().prepare('SELECT path FROM documents').all()) {
    const { readFileSync } = await import('node:fs');
    for (const c of chunkMarkdown(readFileSync(path, 'utf8')).chunks) chunks.push(c);
  }
  const bare = new Database(join(root, 'bare.db'));
  bare.pragma('journal_mode = WAL');
  bare.pragma('synchronous = NORMAL');
  bare.exec(`CREATE VIRTUAL TABLE f USING fts5(content, heading_path, tokenize='porter unicode61')`);
  const ins = bare.prepare('INSERT INTO f(content, heading_path) VALUES (?, ?)');
  t = process.hrtime.bigint();
  bare.transaction(() => {
    for (const c of chunks) ins.run(c.content, c.headingPath);
  })();
  const bareMs = ms(t);
  bare.close();
  // the floor for this schema: the same chunks into both FTS5 tables (stemmed and exact), bare
  const bare2 = new Database(join(root, 'bare2.db'));
  bare2.pragma('journal_mode = WAL');
  bare2.pragma('synchronous = NORMAL');
  bare2.exec(`CREATE VIRTUAL TABLE f USING fts5(content, heading_path, tokenize='porter unicode61');
CREATE VIRTUAL TABLE e USING fts5(content, heading_path, tokenize='unicode61');`);
  const ins1 = bare2.prepare('INSERT INTO f(content, heading_path) VALUES (?, ?)');
  const ins2 = bare2.prepare('INSERT INTO e(content, heading_path) VALUES (?, ?)');
  t = process.hrtime.bigint();
  bare2.transaction(() => {
    for (const c of chunks) {
      ins1.run(c.content, c.headingPath);
      ins2.run(c.content, c.headingPath);
    }
  })();
  const bare2Ms = ms(t);
  bare2.close();

  // 3. unchanged re-index: hashes only
  w = openWriter(storeDir);
  t = process.hrtime.bigint();
  const again = await indexCorpus(w.db, { roots: [corpus], cwd: root, excludeDirs: [storeDir] });
  const unchangedMs = ms(t);
  w.close();

  // 4. search latency
  const reader = new KnowledgeReader(storeDir);
  const queries = [];
  for (let i = 0; i < QUERIES; i++)
    queries.push(rand() < 0.5 ? `${queryWord()} ${pick(COMMON)} ${queryWord()}` : `${queryWord()} ${queryWord()}`);
  for (const q of queries.slice(0, 20)) await search(reader, q, { topK: 5 });
  const lat = [];
  for (const q of queries) {
    const s = process.hrtime.bigint();
    await search(reader, q, { topK: 5 });
    lat.push(ms(s));
  }
  lat.sort((a, b) => a - b);

  // 5. enumerate latency
  const elat = [];
  for (let i = 0; i < 50; i++) {
    const q = `${queryWord()} ${queryWord()}`;
    const s = process.hrtime.bigint();
    enumerate(reader, q);
    elat.push(ms(s));
  }
  elat.sort((a, b) => a - b);
  reader.close();

  // 6. hybrid on a smaller corpus, against a local fake embeddings server
  const fake = await fakeEmbeddings(64);
  const hybridCorpus = join(root, 'hybrid');
  generate(hybridCorpus, HYBRID_FILES);
  const hybridStore = join(root, 'hybrid-store');
  const client = new EmbeddingsClient({ baseUrl: fake.url, model: 'toy', timeoutMs: 30_000 });
  const vector = { client, settings: { model: 'toy', queryPrefix: '', documentPrefix: '' } };
  w = openWriter(hybridStore);
  t = process.hrtime.bigint();
  const hybrid = await indexCorpus(w.db, { roots: [hybridCorpus], cwd: root, excludeDirs: [hybridStore], vector });
  const hybridMs = ms(t);
  w.close();
  const hreader = new KnowledgeReader(hybridStore);
  const hlat = [];
  for (const q of queries.slice(0, 100)) {
    const s = process.hrtime.bigint();
    const r = await search(hreader, q, { topK: 5, vector });
    if (r.tier.kind !== 'hybrid') throw new Error(`expected hybrid, got ${r.tier.kind}`);
    hlat.push(ms(s));
  }
  hlat.sort((a, b) => a - b);
  hreader.close();
  await fake.close();

  // 7. in-process ratio rounds: fisk's indexer against the bare two-table insert of its chunks
  const ratioCorpus = join(root, 'ratio');
  generate(ratioCorpus, RATIO_FILES);
  const ratioChunks = [];
  {
    const { readdirSync, readFileSync } = await import('node:fs');
    for (const d of readdirSync(ratioCorpus))
      for (const f of readdirSync(join(ratioCorpus, d)))
        ratioChunks.push(...chunkMarkdown(readFileSync(join(ratioCorpus, d, f), 'utf8')).chunks);
  }
  const cpuMs = (u) => (u.user + u.system) / 1000;
  const indexCpu = [];
  const bareTwoCpu = [];
  for (let i = 0; i < RATIO_ROUNDS; i++) {
    const dir = join(root, `ratio-store-${i}`);
    global.gc?.();
    let u = process.cpuUsage();
    const rw = openWriter(dir, { bulk: true });
    await indexCorpus(rw.db, { roots: [ratioCorpus], cwd: root, excludeDirs: [], bulk: rw.bulk });
    rw.close();
    indexCpu.push(cpuMs(process.cpuUsage(u)));
    global.gc?.();
    const file = join(root, `ratio-bare-${i}.db`);
    u = process.cpuUsage();
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(`CREATE VIRTUAL TABLE f USING fts5(content, heading_path, tokenize='porter unicode61');
CREATE VIRTUAL TABLE e USING fts5(content, heading_path, tokenize='unicode61');`);
    const a = db.prepare('INSERT INTO f(content, heading_path) VALUES (?, ?)');
    const b = db.prepare('INSERT INTO e(content, heading_path) VALUES (?, ?)');
    db.transaction(() => {
      for (const c of ratioChunks) {
        a.run(c.content, c.headingPath);
        b.run(c.content, c.headingPath);
      }
    })();
    db.close();
    bareTwoCpu.push(cpuMs(process.cpuUsage(u)));
    rmSync(dir, { recursive: true, force: true });
  }
  const ratioSpread = (xs) => {
    const s = [...xs].sort((x, y) => x - y);
    const q = (p) => s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))];
    return { median: round(q(0.5)), p10: round(q(0.1)), p90: round(q(0.9)) };
  };

  const ratio = fullMs / bareMs;
  console.log(
    JSON.stringify({
      files: full.files,
      corpus_mb: round(corpusBytes / 1e6, 1),
      chunks: full.chunks,
      full_index_s: round(fullMs / 1000),
      full_index_files_per_s: Math.round(full.files / (fullMs / 1000)),
      full_index_mb_per_s: round(corpusBytes / 1e6 / (fullMs / 1000)),
      bare_fts5_insert_s: round(bareMs / 1000),
      index_vs_bare_ratio: round(ratio),
      index_vs_bare_target: 1.5,
      bare_two_fts5_insert_s: round(bare2Ms / 1000),
      index_vs_bare_two_tables_ratio: round(fullMs / bare2Ms),
      ratio_rounds: { rounds: RATIO_ROUNDS, files: RATIO_FILES, chunks: ratioChunks.length },
      index_vs_bare_two_tables_cpu: ratioSpread(indexCpu.map((x, i) => x / bareTwoCpu[i])),
      index_vs_bare_two_tables_goal: 1.15,
      unchanged_reindex_s: round(unchangedMs / 1000),
      unchanged_reindex_target_s: 3,
      unchanged_skipped: again.unchanged,
      search_p50_ms: round(pct(lat, 50), 3),
      search_p99_ms: round(pct(lat, 99), 3),
      search_targets_ms: { p50: 5, p99: 25 },
      enumerate_p50_ms: round(pct(elat, 50), 3),
      enumerate_p99_ms: round(pct(elat, 99), 3),
      peak_rss_mb: Math.round(peakRssMb),
      rss_before_index_mb: Math.round(rssBefore / 1048576),
      peak_rss_target_mb: 300,
      hybrid_files: hybrid.files,
      hybrid_embeddings: hybrid.embeddings,
      hybrid_index_s: round(hybridMs / 1000),
      hybrid_search_p50_ms: round(pct(hlat, 50), 3),
      hybrid_search_p99_ms: round(pct(hlat, 99), 3),
    }),
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
