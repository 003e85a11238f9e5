import type { Database as Db, Statement } from 'better-sqlite3';
import { HEADING_SEPARATOR } from './chunker.js';
import { dataVersion } from './data-version.js';
import { quoteTerm } from './query.js';
import { BM25_WEIGHTS, chunkIdsCarryDocument, documentOfChunk, ordinalOfChunk } from './schema.js';
import { Stemmer } from './stems.js';

/**
 * Lexical ranking: BM25 over chunks as the base, then shaped by what a reader's question carries.
 *
 * - Stop words ("how", "do", "the") do not pick chunks on their own: they stay out of the BM25
 *   expression and out of coverage while a content word remains.
 * - Coverage: a chunk's score is scaled by the share of the query's distinct content stems that it
 *   (with its heading path) holds, so one repeated word does not beat the whole question.
 * - Documents, not chunks: each document is represented by its best chunk, its second-best
 *   matching chunk adds half of its score, and its introduction (those of its first chunks that sit
 *   under at most one heading, which say what it is about) counts a little more than the others.
 * - What a document is about: a document whose title or path holds the query's content stems is
 *   raised, and so is one whose opening chunk holds them; a long document that mentions the words
 *   in passing then ranks below a short one written about them.
 * - Change logs (`CHANGELOG`, `HISTORY`, `CHANGES`, `NEWS`, `RELEASES` files) count half: they
 *   name a feature in passing in every release that touched it, and only rarely explain it.
 *
 * Each weight was chosen on the tuning half of `bench/knowledge-quality`. Measured there and not
 * applied because they lost or changed nothing: a phrase/proximity boost (neighbouring query words
 * within a few words of each other), weighting coverage by each stem's rarity (for chunks, and
 * again for the title and opening alone), damping very short chunks, merging tiny sections into
 * the next chunk, a second BM25 over whole documents fused with this one, expanding the query
 * with words shared by the first few documents, more candidates, the share of the query's words
 * found anywhere in the document's matching chunks, an opening read past badges and HTML (the
 * first chunk with text, or the first few hundred characters of text over several chunks), a name
 * of only the title, file name and nearest folder, adding the parts (normalised) instead of
 * multiplying them, heading weights of 1 and 4, other weights for the second chunk, BM25 recomputed
 * over chunk text without link targets and HTML (badges no longer lengthening an introduction),
 * and a document-level BM25 counting the chunks of each document that hold each word.
 *
 * Also measured and not applied, because the held-out half did not gain: a hand-written thesaurus of
 * documentation words (related words searched in a second BM25 pass at half weight and counted as
 * half coverage, plus British and American spellings), which lifted the tuning half from 0.758 to
 * 0.818 at recall@1 but left the held-out half at 0.697 and lowered its recall@5; and indexing the
 * parts of camelCase names in a third, low-weight column (one tuning question gained, indexing
 * 16% slower on real documentation, hybrid fell below lexical). Joining adjacent query words,
 * splitting compounds, prefix terms and a trigram table (twice the index) changed nothing or lost.
 *
 * Measured later on the tuning half (recall@1 0.773 as it stands) and not applied, because they lost
 * or moved a question or two either way: the match widened with agentive forms the stemmer keeps
 * apart (`parser` for `parse`, `loader` for `load`: 0.742), a prior against long documents (the
 * log of their chunk count), a boost for a document whose own name (its file name, or its folder
 * for a README or index) is made only of query words, the share of a name's words the query holds,
 * the coverage of a chunk's headings alone, the coverage of the whole introduction, the document's
 * name counted in each chunk's coverage, a BM25 over a profile of each document (its name, every
 * heading and its introduction), the shares of the name and the opening normalised by their length
 * the way BM25 normalises a field, a word's exact stem instead of a stem prefix in coverage
 * (`readme` no longer counts for `read`, but neither does `parser` for `parse`: 0.758), lowering
 * chunks that are mostly code (0.712 and below), chunks of 700 to 3,000 characters, the path's
 * words in every chunk's heading column, a title read from a leading HTML `<h1>`, a bonus for the
 * unstemmed form (a BM25 over the exact table added to the chunk's), and near-copies (same name,
 * title and opening) answered once. Tuning every weight at once by coordinate ascent fitted noise: chosen on one half of the
 * tuning questions, the weights lost four questions on the other half.
 *
 * Also measured later and not applied, because the held-out half did not gain: question filler
 * (`also`, `way`, `thing`, `something`, `work`) as stop words (tuning 0.803, held-out 0.712 to
 * 0.697); and counting the document's opening in each chunk's coverage with the coverage raised to
 * the power 1.5 (tuning 0.818, both of its halves gaining), which on the held-out half moved recall@1
 * from 0.712 to 0.727 and MRR from 0.794 to 0.811 but lowered recall@5 from 0.939 to 0.924 and put
 * hybrid just below lexical.
 *
 * Measured later still, on the tuning half, with the candidates re-scored outside FTS5 (which
 * reproduced its `bm25()` exactly at its own settings): BM25 with k1 from 0.6 to 3 and b from 0.3
 * to 0.9, BM25+ and BM25L lower bounds, other idf forms (Lucene's, per document, copies counted
 * once), and a BM25F with separately normalised content, heading and title/path fields. None moved
 * more than one question. Weighting the question's operation word (the first content word of a
 * "how do I" question) lower lost; weighting it higher gained two tuning questions (0.803) but on
 * the held-out half left recall@1 at 0.712 and lowered recall@5 from 0.939 to 0.879. Most misses
 * left are a reader's word for what the document calls otherwise ("remove" for strip-ansi's
 * "strip"), which no lexical weight reaches.
 *
 * Measured last, each settled on the tuning half and then checked once on the held-out half:
 * - Words associated with each query word in the index itself (stems found near it, in the chunks
 *   that rank highest for it, far more often than in the whole index), searched in a second BM25
 *   pass at low weight and counted as part coverage: tuning 0.803, held-out recall@1 unchanged
 *   at 0.712 and recall@5 down to 0.924, search five times slower. The associates were noisy
 *   ("remove" gave "major", "chore").
 * - A query-likelihood score (Dirichlet smoothing) over the candidate chunks, mixed in at a fifth
 *   of the weight after normalising both: tuning 0.803, held-out recall@1 0.727 but recall@5
 *   0.909. Fused by reciprocal rank instead, it lost eight to ten tuning questions.
 * - Reciprocal rank fusion with the plain chunk BM25 order, or with BM25 over the headings alone:
 *   no tuning gain at any weight.
 * - Lowering documents nested deep in folders: tuning 0.803, held-out recall@1 0.697.
 * A gain of two tuning questions has not once carried over to the held-out half: at 66 questions
 * a half, that is noise.
 */

/** Chunk candidates fetched from BM25 before ranking by document. */
export const LEXICAL_CANDIDATES = 200;
/** Weight of the share of content stems found in a document's title and path. */
export const TITLE_WEIGHT = 0.6;
/**
 * Weight of a document's second-best matching chunk (its best chunk counts whole). Only the
 * second counts: summing every other match made a long document with many weak matches beat a
 * short one that answers the question outright.
 */
export const SPREAD_WEIGHT = 0.5;
/** How strongly a chunk holding only part of the query's content words is lowered. */
export const COVERAGE_POWER = 1;
/** A document's introduction says what it is about: the weight of its chunks above the others. */
export const LEAD_WEIGHT = 0.3;
/** The introduction: those of a document's first this-many chunks that sit under at most one heading. */
export const INTRO_CHUNKS = 3;
/** Weight of the share of content stems found in a document's opening chunk (with its heading). */
export const ABOUT_WEIGHT = 2;
/** A change log's score is multiplied by this. */
export const CHANGE_LOG_WEIGHT = 0.5;
/** A change log by its file name: `CHANGELOG.md`, `HISTORY.md`, `CHANGES`, `NEWS.txt`, `RELEASES.md`, any case. */
export const CHANGE_LOG_NAME = /(?:^|\/)(?:change[-_]?log|changes|history|news|releases)(?:\.[^/]*)?$/i;

/** Whether a document's path names a change log. */
export function isChangeLog(path: string): boolean {
  return CHANGE_LOG_NAME.test(path);
}

/**
 * English function words. Closed on purpose: a word outside it is ranked as content even when it is
 * common in one corpus; frequency-based demotion (`splitCommonTerms`) covers the rest.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again all am an and any are as at be because been before being below between both but by can
could did do does doing down during each either else few for from further get gets got had has have having he her here
hers him his how i if in into is it its itself just let lets like make me might more most much must my no nor not of
off on once only or other our ours out over own same she should so some such than that the their them then there these
they this those through to too under until up use used using very via want was we were what when where which while who
whom why will with within without would you your yours`
    .split(/\s+/)
    .filter((w) => w !== ''),
);

/** Whether a query word is a stop word. */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase());
}

/** One document's best chunk and its score (higher is better). */
export interface RankedDocument {
  readonly documentId: number;
  readonly chunkId: number;
  readonly score: number;
  /** The document's content hash: copies of one file under several paths share it. */
  readonly hash: string;
}

interface Statements {
  /** The BM25 candidates: row ids (which say the document and position) and scores, no text. */
  readonly candidates: Statement;
  /** The same for an index whose chunk ids are numbered in order (format 2): each row read for its document. */
  readonly candidatesJoined: Statement;
  /** A document's title, path and opening chunk. */
  readonly doc: Statement;
  /** The headings of a document's first chunks. */
  readonly intro: Statement;
  /** One chunk's heading path and text. */
  readonly text: Statement;
}

/** What a document says it is about: its name (title and path) and its opening chunk. */
interface DocAbout {
  readonly hash: string;
  readonly name: string;
  readonly opening: string;
  readonly changeLog: boolean;
  /** Bit `n` is set when chunk `n` (below `INTRO_CHUNKS`) belongs to the introduction. */
  readonly lead: number;
}

interface Cache {
  version: number;
  /** Whether chunk ids say their document and position (format 3), for the current data version. */
  idsCarryDocument: boolean;
  readonly st: Statements;
  /** Each document's name and opening, by document id, for the current data version. */
  readonly docs: Map<number, DocAbout>;
}

/** The most of an opening chunk kept for matching (chunks are packed smaller, bar a long code block). */
const OPENING_CHARS = 2000;

const caches = new WeakMap<Db, Cache>();
let sharedStemmer: Stemmer | undefined;

function stemmer(): Stemmer {
  sharedStemmer ??= new Stemmer();
  return sharedStemmer;
}

/** Each query word's stems, shared across searches; bounded, and emptied when full. */
const wordStems = new Map<string, readonly string[]>();
const WORD_STEMS_KEPT = 4096;

/** The stems of query words, in order: each word is stemmed once (one tokenizer pass for the new ones). */
function stemsOf(words: readonly string[]): string[] {
  let fresh = [...new Set(words.filter((word) => !wordStems.has(word)))];
  if (fresh.length > 0) {
    if (wordStems.size + fresh.length > WORD_STEMS_KEPT) {
      wordStems.clear();
      fresh = [...new Set(words)];
    }
    const stemmed = stemmer().stems(fresh);
    fresh.forEach((word, at) => wordStems.set(word, stemmed[at] ?? []));
  }
  return words.flatMap((word) => wordStems.get(word) ?? []);
}

function cacheFor(db: Db): Cache {
  const version = dataVersion(db);
  let cache = caches.get(db);
  if (cache === undefined) {
    const weights = BM25_WEIGHTS.join(', ');
    const candidates = `SELECT rowid AS id, bm25(chunks_fts, ${weights}) AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT ${LEXICAL_CANDIDATES}`;
    cache = {
      version,
      idsCarryDocument: chunkIdsCarryDocument(db),
      st: {
        candidates: db.prepare(candidates),
        candidatesJoined: db.prepare(
          `SELECT f.id AS id, f.s AS s, c.document_id AS doc, c.ordinal AS ordinal FROM (${candidates}) f JOIN chunks c ON c.id = f.id`,
        ),
        doc: db.prepare(
          'SELECT d.title AS title, d.path AS path, d.hash AS hash, c.heading_path AS heading, substr(c.content, 1, ?) AS content FROM documents d LEFT JOIN chunks c ON c.document_id = d.id AND c.ordinal = 0 WHERE d.id = ?',
        ),
        intro: db.prepare('SELECT ordinal, heading_path AS heading FROM chunks WHERE document_id = ? AND ordinal < ?'),
        text: db.prepare('SELECT heading_path AS heading, content FROM chunks WHERE id = ?'),
      },
      docs: new Map(),
    };
    caches.set(db, cache);
  }
  if (cache.version !== version) {
    cache.version = version;
    // a reset and a new index can change the format under an open reader
    cache.idsCarryDocument = chunkIdsCarryDocument(db);
    cache.docs.clear();
  }
  return cache;
}

function docAbout(cache: Cache, id: number): DocAbout {
  let about = cache.docs.get(id);
  if (about === undefined) {
    const row = cache.st.doc.get(OPENING_CHARS, id) as
      { title: string; path: string; hash: string; heading: string | null; content: string | null } | undefined;
    if (row === undefined) {
      about = { hash: `missing:${id}`, name: '', opening: '', changeLog: false, lead: 0 };
    } else {
      let lead = 0;
      for (const chunk of cache.st.intro.all(id, INTRO_CHUNKS) as { ordinal: number; heading: string }[]) {
        if (!chunk.heading.includes(HEADING_SEPARATOR)) lead |= 1 << chunk.ordinal;
      }
      about = {
        hash: row.hash,
        name: `${row.title}\n${row.path}`,
        opening: `${row.heading ?? ''}\n${row.content ?? ''}`,
        changeLog: isChangeLog(row.path),
        lead,
      };
    }
    cache.docs.set(id, about);
  }
  return about;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A letter or a digit: a stem that follows one is inside a word, not at its start. */
const WORD_CHARACTER = /[\p{L}\p{N}]/u;

/** Whether the character before `at` (a whole code point, surrogate pairs included) is a letter or digit. */
function insideWord(text: string, at: number): boolean {
  if (at === 0) return false;
  const low = text.charCodeAt(at - 1);
  const start = low >= 0xdc00 && low <= 0xdfff && at >= 2 ? at - 2 : at - 1;
  return WORD_CHARACTER.test(String.fromCodePoint(text.codePointAt(start) ?? low));
}

/** Compiled stem tests, shared across searches; bounded, and emptied when full. */
const stemTests = new Map<string, (text: string) => boolean>();
const STEM_TESTS_KEPT = 4096;

/**
 * A test for a stem at the start of a word, in any letter case. Porter mostly strips suffixes, so
 * a word starts with its stem; its one common rewrite, a final y to i, is tried both ways.
 *
 * The word start is checked beside the match rather than by a look-behind for `\p{L}\p{N}`: a
 * Unicode letter class compiled into every stem's expression cost about 0.2 ms a stem, more than a
 * whole search of a small index, each time a query brought a new word.
 */
export function stemTest(stem: string): (text: string) => boolean {
  const known = stemTests.get(stem);
  if (known !== undefined) return known;
  const forms = [stem];
  if (stem.endsWith('i') && stem.length > 2) forms.push(`${stem.slice(0, -1)}y`);
  // case-blind and global: each occurrence in turn, until one starts a word
  const re = new RegExp(forms.map(escapeRegExp).join('|'), 'gi');
  const test = (text: string): boolean => {
    re.lastIndex = 0;
    for (let found = re.exec(text); found !== null; found = re.exec(text)) {
      if (!insideWord(text, found.index)) return true;
      re.lastIndex = found.index + 1;
    }
    return false;
  };
  if (stemTests.size >= STEM_TESTS_KEPT) stemTests.clear();
  stemTests.set(stem, test);
  return test;
}

/** One BM25 candidate chunk: its id, its BM25 score (higher is better) and whether it opens its document. */
interface CandidateChunk {
  readonly id: number;
  readonly bm25: number;
  readonly lead: boolean;
  /** Its score at full coverage. */
  readonly most: number;
}

/** The weights a document's name, opening and kind multiply its chunks' part by. */
interface Weights {
  named: number;
  opening: number;
  changeLog: number;
}

/** The most the weights can be: the whole query in the name and in the opening, not a change log. */
const MOST_WEIGHTS: Weights = { named: 1 + TITLE_WEIGHT, opening: 1 + ABOUT_WEIGHT, changeLog: 1 };

/** A candidate document: its chunks among the candidates and what bounds its score. */
interface Candidate extends Weights {
  readonly documentId: number;
  readonly chunks: CandidateChunk[];
  readonly about: DocAbout;
  /** The best two chunks' scores at full coverage, which bound the document's part. */
  best: number;
  second: number;
  /** The most the document can score before its name and opening are read: every weight at its most. */
  loose: number;
  /** The most it can score with its own weights: every chunk at full coverage. */
  bound: number;
}

/**
 * A document's score from its best two chunks' scores and its weights, the bounds and the exact
 * score alike (one order of operations, so a bound is never below the score it bounds).
 */
function documentScore(weights: Weights, best: number, second: number): number {
  return (best + SPREAD_WEIGHT * second) * weights.named * weights.opening * weights.changeLog;
}

/**
 * The score of the `limit`-th distinct content among scored documents, best first (copies of one
 * file count once), or `-Infinity` while fewer than `limit` are scored.
 */
function cutoff(scored: readonly RankedDocument[], limit: number): number {
  const seen = new Set<string>();
  for (const doc of scored) {
    seen.add(doc.hash);
    if (seen.size === limit) return doc.score;
  }
  return -Infinity;
}

const byScore = (x: RankedDocument, y: RankedDocument): number => y.score - x.score || x.chunkId - y.chunkId;

/** A BM25 candidate as the query gives it: its document and position read from its row in format 2 only. */
interface CandidateRow {
  readonly id: number;
  readonly s: number;
  readonly doc?: number;
  readonly ordinal?: number;
}

/** The candidate documents, in BM25 order of their first chunk, each with its chunks and part bound. */
function candidatesOf(cache: Cache, rows: readonly CandidateRow[]): Candidate[] {
  const byDoc = new Map<number, Candidate>();
  for (const row of rows) {
    const documentId = row.doc ?? documentOfChunk(row.id);
    let candidate = byDoc.get(documentId);
    if (candidate === undefined) {
      const about = docAbout(cache, documentId);
      candidate = { documentId, chunks: [], about, named: 1, opening: 1, changeLog: 1, best: 0, second: 0, loose: 0, bound: 0 };
      byDoc.set(documentId, candidate);
    }
    const ordinal = row.ordinal ?? ordinalOfChunk(row.id);
    const lead = ordinal < INTRO_CHUNKS && (candidate.about.lead & (1 << ordinal)) !== 0;
    const bm25 = -row.s;
    // coverage can only lower a chunk: at full coverage it keeps its BM25 score and its lead
    const most = lead ? bm25 * (1 + LEAD_WEIGHT) : bm25;
    candidate.chunks.push({ id: row.id, bm25, lead, most });
    if (most > candidate.best) {
      candidate.second = candidate.best;
      candidate.best = most;
    } else if (most > candidate.second) candidate.second = most;
  }
  const candidates = [...byDoc.values()];
  for (const candidate of candidates) candidate.loose = documentScore(MOST_WEIGHTS, candidate.best, candidate.second);
  return candidates;
}

/**
 * Ranks documents for query terms (already reduced to words). `keep` are the terms worth ranking
 * (rare enough to carry weight). Returns the candidate documents, best first, each with its best
 * chunk: every one of them, or with `limit` the head of that same order, through its `limit`-th
 * distinct content (copies of one file under several paths count once).
 *
 * With a limit, a document is weighed (its name and opening tested) and a chunk's text read only
 * while the document can still reach the head. Coverage can only lower a chunk, so a document's
 * score is bounded by its chunks' BM25 scores and, more tightly, by those and its own weights;
 * documents are taken best bound first, and the work stops at the first bound below the head's
 * last score. The head is exactly the one the whole ranking gives, with fewer chunk rows read
 * (each a page of its own on a large index).
 */
export function rankDocuments(db: Db, keep: readonly string[], limit?: number): RankedDocument[] {
  const cache = cacheFor(db);
  const content = keep.filter((term) => !isStopWord(term));
  const base = content.length > 0 ? content : keep;
  if (base.length === 0) return [];
  const expression = base.map(quoteTerm).join(' OR ');
  const rows = (cache.idsCarryDocument ? cache.st.candidates : cache.st.candidatesJoined).all(expression) as CandidateRow[];
  if (rows.length === 0) return [];

  // coverage: a chunk (with its headings) holding more of the distinct content words wins
  const stems = [...new Set(stemsOf(base))];
  const tests = stems.map(stemTest);
  // the heading and the text are tested apart: a stem never spans the line between them, and
  // each test checks the word start itself, so this equals testing them joined by a new line
  const coverage = (text: string, heading = ''): number => {
    if (tests.length === 0) return 1;
    let matched = 0;
    for (const test of tests) if (test(heading) || test(text)) matched++;
    return matched / tests.length;
  };

  // what a document is about: its title and path, and its opening chunk
  const weigh = (candidate: Candidate): void => {
    const { about } = candidate;
    candidate.named = 1 + TITLE_WEIGHT * coverage(about.name);
    candidate.opening = 1 + ABOUT_WEIGHT * coverage(about.opening);
    candidate.changeLog = about.changeLog ? CHANGE_LOG_WEIGHT : 1;
    candidate.bound = documentScore(candidate, candidate.best, candidate.second);
  };

  // by document: the best chunk stands for it (the first in BM25 order among equals), its
  // second-best adds a part; chunks are read best bound first, and no further once the next
  // bound is below the second-best score found, since it can change neither
  const score = (candidate: Candidate): RankedDocument => {
    const order = candidate.chunks.map((chunk, at) => ({ chunk, at })).sort((x, y) => y.chunk.most - x.chunk.most || x.at - y.at);
    let chunkId = candidate.chunks[0]?.id ?? -1;
    let bestAt = Infinity;
    let best = -Infinity;
    let second = -Infinity;
    for (const { chunk, at } of order) {
      if (chunk.most < second) break;
      const row = cache.st.text.get(chunk.id) as { heading: string; content: string } | undefined;
      let chunkScore = chunk.bm25 * coverage(row?.content ?? '', row?.heading) ** COVERAGE_POWER;
      if (chunk.lead) chunkScore *= 1 + LEAD_WEIGHT;
      if (chunkScore > best || (chunkScore === best && at < bestAt)) {
        second = best;
        best = chunkScore;
        bestAt = at;
        chunkId = chunk.id;
      } else if (chunkScore > second) second = chunkScore;
    }
    return {
      documentId: candidate.documentId,
      chunkId,
      score: documentScore(candidate, best, second === -Infinity ? 0 : second),
      hash: candidate.about.hash,
    };
  };

  const candidates = candidatesOf(cache, rows);
  if (limit === undefined) {
    const out: RankedDocument[] = [];
    for (const candidate of candidates) {
      weigh(candidate);
      out.push(score(candidate));
    }
    return out.sort(byScore);
  }

  // best bound first: the next document unweighed (by its loose bound) or weighed (by its own)
  candidates.sort((x, y) => y.loose - x.loose);
  const weighed: Candidate[] = [];
  const out: RankedDocument[] = [];
  let next = 0;
  let floor = -Infinity;
  for (;;) {
    const loose = candidates[next]?.loose ?? -Infinity;
    const tight = weighed[0]?.bound ?? -Infinity;
    // every document left is bounded below the head's last score: none of them can enter it
    if (floor > loose && floor > tight) break;
    if (loose === -Infinity && tight === -Infinity) break;
    if (loose > tight) {
      const candidate = candidates[next++] as Candidate;
      weigh(candidate);
      if (candidate.bound < floor) continue;
      let at = weighed.length;
      while (at > 0 && (weighed[at - 1] as Candidate).bound < candidate.bound) at--;
      weighed.splice(at, 0, candidate);
      continue;
    }
    out.push(score(weighed.shift() as Candidate));
    out.sort(byScore);
    floor = cutoff(out, limit);
  }
  // the head only: past its last distinct content, unscored documents could fall in between
  const seen = new Set<string>();
  let end = 0;
  while (end < out.length && seen.size < limit) {
    seen.add(out[end]?.hash ?? '');
    end++;
  }
  return out.slice(0, end);
}
