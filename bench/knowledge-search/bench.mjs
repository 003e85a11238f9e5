// Knowledge search latency against its floor: a bare FTS5 top-5 query with the same OR'ed terms
// as the ranking matches (stop words and words too common to weigh left out, as fisk does) on the
// same index (`SELECT rowid ... MATCH <terms OR'ed> ORDER BY bm25 LIMIT 5` against the
// index's own chunks_fts table), so what is compared is the ranking and everything around it.
//   - real_1k: the first 1,000 Markdown files the installed packages ship under node_modules,
//     searched with the questions of bench/knowledge-quality;
//   - synthetic_10k: the 10,000-file synthetic corpus of bench/knowledge, searched with 200
//     generated queries.
// Beside them, the ranking's own first step: its candidate query alone (the same terms, the
// weighted BM25 the ranking asks for, and as many rows as it takes as candidates), the floor of
// this ranking, reported as `candidates_p50_ratio` against the bare query.
// Rounds interleave the sides query by query (the order rotating); each round gives each side its
// p50 and p99, and the ratios are taken per round and reported as median and spread (p10 to p90)
// over the rounds.
// KNOWLEDGE_SEARCH_ROUNDS (default 9), KNOWLEDGE_SEARCH_SYNTHETIC_FILES (default 10000).
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KnowledgeReader, indexCorpus, openWriter, search } from '../../dist/knowledge/index.js';
import { freeTextQuery, quoteTerm } from '../../dist/knowledge/query.js';
import { LEXICAL_CANDIDATES, isStopWord } from '../../dist/knowledge/rank.js';
import { BM25_WEIGHTS } from '../../dist/knowledge/schema.js';
import { splitCommonTerms } from '../../dist/knowledge/term-stats.js';
import { syntheticCorpus } from '../lib/corpus.mjs';
import { listDocs } from '../lib/docs.mjs';
import { stats } from '../lib/process-time.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const ROUNDS = Number(process.env.KNOWLEDGE_SEARCH_ROUNDS ?? 9);
const SYNTHETIC_FILES = Number(process.env.KNOWLEDGE_SEARCH_SYNTHETIC_FILES ?? 10_000);
const DOC_EXT = /\.(md|markdown)$/i;
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;
const quantile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

async function build(work, name, fill) {
  const corpus = join(work, `${name}-corpus`);
  const files = fill(corpus);
  const store = join(work, `${name}-store`);
  const w = openWriter(store, { bulk: true });
  const built = await indexCorpus(w.db, { roots: ['.'], cwd: corpus, excludeDirs: [store], bulk: w.bulk });
  w.close();
  return { store, files, chunks: built.chunks };
}

/**
 * The floor: the terms fisk's ranking matches (the query's words less stop words and words too
 * common to weigh, worked out beforehand, once per query), OR'ed, in FTS5's own BM25 order, five
 * rows, on the same index.
 */
function bareSearcher(
  reader,
  queries,
  sql = 'SELECT rowid AS id FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts) LIMIT 5',
) {
  const db = reader.handle();
  const st = db.prepare(sql);
  const expressions = new Map();
  for (const q of queries) {
    const { keep } = splitCommonTerms(db, freeTextQuery(q).terms);
    const content = keep.filter((t) => !isStopWord(t));
    const base = content.length > 0 ? content : keep;
    expressions.set(q, base.length === 0 ? undefined : base.map(quoteTerm).join(' OR '));
  }
  return (q) => {
    const e = expressions.get(q);
    return e === undefined ? [] : st.all(e);
  };
}

/** The ranking's candidate query alone, on the terms the bare query uses. */
function candidateSearcher(reader, queries) {
  const sql = `SELECT rowid AS id, bm25(chunks_fts, ${BM25_WEIGHTS.join(', ')}) AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT ${LEXICAL_CANDIDATES}`;
  return bareSearcher(reader, queries, sql);
}

async function measure(store, queries) {
  const reader = new KnowledgeReader(store);
  const bare = bareSearcher(reader, queries);
  const candidates = candidateSearcher(reader, queries);
  for (const q of queries.slice(0, 20)) {
    await search(reader, q, { topK: 5 });
    bare(q);
    candidates(q);
  }
  const p50 = [];
  const p99 = [];
  const candidatesP50 = [];
  const fiskP50 = [];
  const bareP50 = [];
  const fiskP99 = [];
  const bareP99 = [];
  const order = ['fisk', 'bare', 'candidates'];
  for (let r = 0; r < ROUNDS; r++) {
    const times = { fisk: [], bare: [], candidates: [] };
    for (let i = 0; i < queries.length; i++) {
      const q = queries[i];
      // the side that goes first rotates query by query
      for (let j = 0; j < order.length; j++) {
        const side = order[(i + r + j) % order.length];
        const t = process.hrtime.bigint();
        if (side === 'fisk') await search(reader, q, { topK: 5 });
        else if (side === 'bare') bare(q);
        else candidates(q);
        times[side].push(ms(t));
      }
    }
    const { fisk: f, bare: b, candidates: c } = times;
    fiskP50.push(quantile(f, 0.5));
    bareP50.push(quantile(b, 0.5));
    fiskP99.push(quantile(f, 0.99));
    bareP99.push(quantile(b, 0.99));
    p50.push(quantile(f, 0.5) / quantile(b, 0.5));
    p99.push(quantile(f, 0.99) / quantile(b, 0.99));
    candidatesP50.push(quantile(c, 0.5) / quantile(b, 0.5));
  }
  reader.close();
  const s3 = (xs) => {
    const s = stats(xs.map((x) => x * 100));
    return { median: s.median / 100, p10: s.p10 / 100, p90: s.p90 / 100 };
  };
  return {
    queries: queries.length,
    rounds: ROUNDS,
    fisk_p50_ms: s3(fiskP50),
    bare_p50_ms: s3(bareP50),
    fisk_p99_ms: s3(fiskP99),
    bare_p99_ms: s3(bareP99),
    p50_ratio: s3(p50),
    p99_ratio: s3(p99),
    candidates_p50_ratio: s3(candidatesP50),
  };
}

const work = mkdtempSync(join(tmpdir(), 'fisk-knowledge-search-'));
try {
  const source = join(repo, 'node_modules');
  const real = await build(work, 'real', (corpus) => {
    const files = listDocs(source, { ext: DOC_EXT, limit: 1000 });
    for (const rel of files) {
      mkdirSync(dirname(join(corpus, rel)), { recursive: true });
      copyFileSync(join(source, rel), join(corpus, rel));
    }
    return files.length;
  });
  const questions = readFileSync(join(here, '..', 'knowledge-quality', 'questions.tsv'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
    .map((l) => l.split('\t')[0]);
  const realOut = { files: real.files, chunks: real.chunks, ...(await measure(real.store, questions)) };

  const { rand, pick, COMMON, queryWord, generate } = syntheticCorpus(42);
  const synthetic = await build(work, 'synthetic', (corpus) => {
    generate(corpus, SYNTHETIC_FILES);
    return SYNTHETIC_FILES;
  });
  const queries = Array.from({ length: 200 }, () =>
    rand() < 0.5 ? `${queryWord()} ${pick(COMMON)} ${queryWord()}` : `${queryWord()} ${queryWord()}`,
  );
  const syntheticOut = { files: synthetic.files, chunks: synthetic.chunks, ...(await measure(synthetic.store, queries)) };
  console.log(
    JSON.stringify({
      real_1k: realOut,
      synthetic_10k: syntheticOut,
      goals: { real_1k_p50_ratio: 2, synthetic_10k_p50_ratio: 1.5, synthetic_10k_p99_ratio: 1.5 },
    }),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
