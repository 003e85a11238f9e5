// Retrieval quality on real documentation nobody here wrote: every Markdown file that the
// installed packages ship under node_modules, and questions a reader would ask, each with the
// document(s) that answer it. Reports recall@1, recall@5 and MRR for this index (lexical), a bare
// FTS5 BM25 baseline and hybrid search with a toy embedder, on the tuning half and on the held-out
// half (the figure to judge by). Prints one JSON line.
//
// Evaluate your own corpus: KNOWLEDGE_QUALITY_CORPUS=<dir> KNOWLEDGE_QUALITY_QUESTIONS=<file.tsv>
// (one question per line: the question, a tab, then answering paths relative to the corpus
// separated by '|'; a path also matches any document whose path ends with '/<path>', except under '@types/').
import Database from 'better-sqlite3';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  EmbeddingsClient,
  KnowledgeReader,
  indexCorpus,
  openWriter,
  rankOfFirstAnswer,
  scoreRanks,
  search,
} from '../../dist/knowledge/index.js';
import { listDocs } from '../lib/docs.mjs';
import { fakeEmbeddings } from '../lib/toy-embeddings.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const corpusSource = process.env.KNOWLEDGE_QUALITY_CORPUS ?? join(repo, 'node_modules');
const questionsFile = process.env.KNOWLEDGE_QUALITY_QUESTIONS ?? join(here, 'questions.tsv');
const TOP = 10;
// KNOWLEDGE_QUALITY_TUNE_DETAIL=1: one line per tuning question on stderr (what ranked 1..5)
const tuneDetail = process.env.KNOWLEDGE_QUALITY_TUNE_DETAIL === '1';
const DOC_EXT = /\.(md|markdown|txt|text)$/i;

const round = (x, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;

function loadQuestions(file) {
  const rows = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'));
  return rows.map((line, i) => {
    const [q, answers] = line.split('\t');
    if (q === undefined || answers === undefined) throw new Error(`${file}:${i + 1}: expected "question<TAB>path|path"`);
    // alternate lines: even ones tune, odd ones are held out
    return { q, answers: answers.split('|').map((a) => a.trim()), half: i % 2 === 0 ? 'tune' : 'held_out' };
  });
}

// an answer names a document by its path, or by the end of its path (a copy of a package nested in
// another's node_modules); a package's type definitions (`@types/<name>`) are not its documentation
const right = (path, answers) => answers.some((a) => path === a || (path.endsWith(`/${a}`) && !path.endsWith(`@types/${a}`)));

/** Rank (1-based) of the first right document in a ranked list of paths, or 0: as `fisk knowledge eval` ranks. */
const rankOf = (paths, answers) => rankOfFirstAnswer(paths, answers, right);

/** The figures `fisk knowledge eval` reports, rounded, under the names this benchmark prints. */
function score(ranks) {
  const s = scoreRanks(ranks);
  return { questions: s.questions, recall_at_1: round(s.recallAt1), recall_at_5: round(s.recallAt5), mrr: round(s.mrr) };
}

/** The plainest baseline: heading-delimited sections in one FTS5 table, query words OR'ed, BM25 order. */
function bareBaseline(root, files) {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE f USING fts5(path UNINDEXED, body, tokenize='porter unicode61')`);
  const ins = db.prepare('INSERT INTO f(path, body) VALUES (?, ?)');
  db.transaction(() => {
    for (const rel of files) {
      let text;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(join(root, rel)));
      } catch {
        continue;
      }
      let cur = [];
      const flush = () => {
        if (cur.join('').trim() !== '') ins.run(rel, cur.join('\n'));
        cur = [];
      };
      for (const line of text.split('\n')) {
        if (/^#{1,6}\s/.test(line)) flush();
        cur.push(line);
      }
      flush();
    }
  })();
  const st = db.prepare(`SELECT path FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT ${TOP}`);
  return {
    search(q) {
      const words = q.split(/[^\p{L}\p{N}]+/u).filter((w) => [...w].length >= 2);
      if (words.length === 0) return [];
      return st.all(words.map((w) => `"${w}"`).join(' OR ')).map((r) => r.path);
    },
    close: () => db.close(),
  };
}

async function evaluate(name, questions, run) {
  const ranks = { tune: [], held_out: [] };
  const misses = [];
  const byQuestion = [];
  const times = [];
  for (const item of questions) {
    const t0 = process.hrtime.bigint();
    const paths = await run(item.q);
    times.push(ms(t0));
    const r = rankOf(paths, item.answers);
    ranks[item.half].push(r);
    byQuestion.push(r);
    if (r !== 1 && item.half === 'tune') misses.push({ q: item.q, rank: r, first: paths[0] ?? null });
    // the tuning half only: the held-out half is judged by its aggregate, never question by question
    if (tuneDetail && item.half === 'tune')
      console.error(JSON.stringify({ list: name, q: item.q, expected: item.answers, rank: r, top: paths.slice(0, 5) }));
  }
  times.sort((a, b) => a - b);
  const at = (p) => round(times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? 0, 2);
  return {
    name,
    held_out: score(ranks.held_out),
    tune: score(ranks.tune),
    all: score([...ranks.tune, ...ranks.held_out]),
    search_ms: { p50: at(0.5), p99: at(0.99) },
    tune_misses: misses,
    byQuestion,
  };
}

const work = mkdtempSync(join(tmpdir(), 'fisk-knowledge-quality-'));
try {
  const files = listDocs(corpusSource, { ext: DOC_EXT });
  const corpus = join(work, 'corpus');
  for (const rel of files) {
    mkdirSync(dirname(join(corpus, rel)), { recursive: true });
    copyFileSync(join(corpusSource, rel), join(corpus, rel));
  }
  const questions = loadQuestions(questionsFile);
  const missing = questions.flatMap((x) => x.answers).filter((a) => !files.some((f) => right(f, [a])));

  // this index, lexical
  const store = join(work, 'store');
  let w = openWriter(store);
  let t = process.hrtime.bigint();
  const built = await indexCorpus(w.db, { roots: ['.'], cwd: corpus, excludeDirs: [store] });
  const indexMs = ms(t);
  w.close();
  const reader = new KnowledgeReader(store);
  const lexical = await evaluate('lexical', questions, async (q) => (await search(reader, q, { topK: TOP })).hits.map((h) => h.path));
  reader.close();

  // the baseline
  const bare = bareBaseline(corpus, files);
  const baseline = await evaluate('bare_fts5_bm25', questions, async (q) => bare.search(q));
  bare.close();

  // hybrid with the toy embedder
  if (process.env.KNOWLEDGE_QUALITY_LEXICAL_ONLY === '1') {
    const { byQuestion: _l, ...lex } = lexical;
    const { byQuestion: _b, ...bareOut } = baseline;
    console.log(JSON.stringify({ lexical: lex, bare_fts5_bm25: bareOut }));
    rmSync(work, { recursive: true, force: true });
    process.exit(0);
  }
  const fake = await fakeEmbeddings(256);
  const vector = {
    client: new EmbeddingsClient({ baseUrl: fake.url, model: 'toy', timeoutMs: 60_000 }),
    settings: { model: 'toy', queryPrefix: '', documentPrefix: '' },
  };
  const hstore = join(work, 'hybrid-store');
  w = openWriter(hstore);
  await indexCorpus(w.db, { roots: ['.'], cwd: corpus, excludeDirs: [hstore], vector });
  w.close();
  const hreader = new KnowledgeReader(hstore);
  const hybrid = await evaluate('hybrid_toy_embedder', questions, async (q) => {
    const r = await search(hreader, q, { topK: TOP, vector });
    if (r.tier.kind !== 'hybrid') throw new Error(`expected the hybrid tier, got ${r.tier.kind}`);
    return r.hits.map((h) => h.path);
  });
  hreader.close();
  await fake.close();

  const held = lexical.held_out;
  const verbose = process.env.KNOWLEDGE_QUALITY_VERBOSE === '1';
  const strip = ({ byQuestion, ...s }) => (verbose ? s : { ...s, tune_misses: s.tune_misses.length });
  // questions (both halves) where hybrid ranks the first right document lower than lexical does
  const worse = (a, b) => (b === 0 ? false : a === 0 || a > b);
  const hybridWorse = questions.flatMap((item, i) =>
    worse(hybrid.byQuestion[i], lexical.byQuestion[i])
      ? [{ q: item.q, half: item.half, lexical: lexical.byQuestion[i], hybrid: hybrid.byQuestion[i] }]
      : [],
  );
  console.log(
    JSON.stringify({
      corpus: corpusSource === join(repo, 'node_modules') ? 'node_modules documentation' : corpusSource,
      documents: built.files,
      chunks: built.chunks,
      index_s: round(indexMs / 1000, 2),
      questions: questions.length,
      answers_missing_from_corpus: missing,
      lexical: strip(lexical),
      bare_fts5_bm25: strip(baseline),
      hybrid_toy_embedder: strip(hybrid),
      // listed for the tuning half only; the held-out half is only ever counted
      hybrid_ranks_lower_than_lexical: verbose
        ? { count: hybridWorse.length, tune: hybridWorse.filter((x) => x.half === 'tune') }
        : hybridWorse.length,
      targets: { held_out_recall_at_1: 0.8, held_out_recall_at_5: 0.95, hybrid_not_worse_than_lexical: true },
      // the held-out figures a change to search speed must keep (measured with 200 BM25 candidates;
      // 100 candidates gave 0.667 / 0.924 and 50 gave 0.667 / 0.909, so the candidates stay)
      baseline: { recall_at_1: 0.697, recall_at_5: 0.939 },
      met: {
        recall_at_1: held.recall_at_1 >= 0.8,
        recall_at_5: held.recall_at_5 >= 0.95,
        hybrid_not_worse:
          hybrid.held_out.recall_at_1 >= held.recall_at_1 &&
          hybrid.held_out.recall_at_5 >= held.recall_at_5 &&
          hybrid.held_out.mrr >= held.mrr,
      },
    }),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
