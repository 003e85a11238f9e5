import type { Database as Db, Statement } from 'better-sqlite3';
import { formatCitation } from './citation.js';
import { EmbeddingsError } from './embeddings.js';
import type { EmbeddingsClient } from './embeddings.js';
import { KnowledgeError } from './errors.js';
import { readIdentity, requireCompatibleIdentity } from './identity.js';
import type { VectorSettings } from './identity.js';
import { freeTextQuery } from './query.js';
import { rankDocuments } from './rank.js';
import { splitCommonTerms } from './term-stats.js';
import { configuredTier } from './tier.js';
import type { KnowledgeReader } from './store.js';
import type { DegradeStep, Tier } from './tier.js';

/** How many candidates each tier fans out before fusion. */
export const CANDIDATES = 50;
/** The reciprocal rank fusion constant. */
export const RRF_K = 60;
/**
 * The rank constant of document fusion: small, so the lexical order of the first few documents
 * holds unless the vectors agree on a neighbour. (With the classic 60 the top ranks are nearly
 * level and a weak embedding model reorders them at will.)
 */
export const FUSE_K = 1;
/**
 * The vector list's weight in fusion against the lexical list's 1. Below one because the lexical
 * ranking is shaped (titles, phrases, documents) and a weak embedding model must not outvote it;
 * the vectors still lift documents the words missed.
 */
export const VECTOR_WEIGHT = 0.2;
/**
 * The lexical head: the vectors may reorder the lexical ranking's first this-many documents among
 * themselves but never push one of them out, and the documents only they found join after the
 * head. A document the words ranked fifth is still in the first five of the hybrid answer.
 */
export const LEXICAL_HEAD = 5;

/**
 * How a search ended. `not_built` and `empty_index` are kept apart from `no_results`, and
 * `no_terms` from both, so an absence never reads as an answer.
 */
export const SEARCH_STATUSES = ['ok', 'no_results', 'no_terms', 'empty_index', 'not_built'] as const;
export type SearchStatus = (typeof SEARCH_STATUSES)[number];

/** One retrieved chunk. */
export interface SearchHit {
  readonly chunkId: number;
  readonly path: string;
  readonly ordinal: number;
  /** `path#ordinal`. */
  readonly citation: string;
  readonly headingPath: string;
  readonly content: string;
  /** The fused score (higher is better). */
  readonly score: number;
}

/** A search's answer. */
export interface SearchResult {
  readonly status: SearchStatus;
  readonly tier: Tier;
  readonly hits: readonly SearchHit[];
  readonly terms: readonly string[];
  /** Terms under two characters that were dropped. */
  readonly dropped: readonly string[];
  /** Terms left out of the ranking because more than half of all chunks hold them. */
  readonly common: readonly string[];
}

/** The hybrid tier for a search: a client and the configured identity. */
export interface SearchVector {
  readonly client: EmbeddingsClient;
  readonly settings: VectorSettings;
}

/** How a search runs: result count, the optional vector tier, and a cancellation signal. */
export interface SearchOptions {
  /** How many documents to answer with: a whole number (below 1 counts as 1; anything else is refused). */
  readonly topK: number;
  readonly vector?: SearchVector | undefined;
  readonly signal?: AbortSignal;
}

/**
 * Fuses ranked lists with reciprocal rank fusion (k = 60); ties go to the lower chunk id so the
 * order is the same on every run.
 */
export function fuse(lists: readonly (readonly number[])[]): { id: number; score: number }[] {
  const scores = new Map<number, number>();
  for (const list of lists) {
    list.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + rank + 1)));
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
}

/**
 * Fuses the lexical document ranking with the vector one, keeping the lexical head: its first
 * `head` documents come first, in their fused order, then every other document in fused order
 * (weighted reciprocal rank: the lexical list 1, the vectors `VECTOR_WEIGHT`, constant `FUSE_K`).
 * Scores never rise down the list: a document after the head shows at most the score before it.
 */
export function fuseWithLexicalHead(
  lexical: readonly number[],
  vector: readonly number[],
  head: number = LEXICAL_HEAD,
): { id: number; score: number }[] {
  const fused = fuseWeighted([
    { ids: lexical, weight: 1 },
    { ids: vector, weight: VECTOR_WEIGHT },
  ]);
  const inHead = new Set(lexical.slice(0, Math.max(0, head)));
  const out = [...fused.filter((f) => inHead.has(f.id)), ...fused.filter((f) => !inHead.has(f.id))];
  let floor = Infinity;
  return out.map((f) => {
    floor = Math.min(floor, f.score);
    return { id: f.id, score: floor };
  });
}

/** Reciprocal rank fusion of document lists with a weight per list; ties to the lower id. */
export function fuseWeighted(
  lists: readonly { readonly ids: readonly number[]; readonly weight: number }[],
): { id: number; score: number }[] {
  const scores = new Map<number, number>();
  for (const { ids, weight } of lists) {
    ids.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + weight / (FUSE_K + rank + 1)));
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
}

// the hydrating statement for each number of hits, compiled once per connection: compiling it
// cost a tenth of a search on a small index
const hydrating = new WeakMap<Db, Map<number, Statement>>();

function hydrateStatement(db: Db, n: number): Statement {
  let byCount = hydrating.get(db);
  if (byCount === undefined) {
    byCount = new Map();
    hydrating.set(db, byCount);
  }
  let st = byCount.get(n);
  if (st === undefined) {
    st = db.prepare(
      `SELECT c.id AS id, c.ordinal AS ordinal, c.heading_path AS heading, c.content AS content, d.path AS path
       FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id IN (${Array.from({ length: n }, () => '?').join(',')})`,
    );
    byCount.set(n, st);
  }
  return st;
}

function hydrate(db: Db, fused: readonly { id: number; score: number }[]): SearchHit[] {
  if (fused.length === 0) return [];
  const rows = hydrateStatement(db, fused.length).all(...fused.map((f) => f.id)) as {
    id: number;
    ordinal: number;
    heading: string;
    content: string;
    path: string;
  }[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out: SearchHit[] = [];
  for (const f of fused) {
    // a chunk replaced by a concurrent reindex between fusion and hydration is skipped
    const r = byId.get(f.id);
    if (r === undefined) continue;
    out.push({
      chunkId: r.id,
      path: r.path,
      ordinal: r.ordinal,
      citation: formatCitation(r.path, r.ordinal),
      headingPath: r.heading,
      content: r.content,
      score: f.score,
    });
  }
  return out;
}

interface Statements {
  readonly vector: Statement | undefined;
  readonly anyDocument: Statement;
}

// statements are compiled once per connection: compiling costs about as much as a small query
const cache = new WeakMap<Db, Statements>();

function statements(db: Db, withVectors: boolean): Statements {
  let st = cache.get(db);
  if (st === undefined || (withVectors && st.vector === undefined)) {
    st = {
      vector: withVectors
        ? db.prepare(
            `SELECT v.id AS id, c.document_id AS doc, d.hash AS hash FROM (SELECT chunk_id AS id, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ${CANDIDATES} ORDER BY distance) v JOIN chunks c ON c.id = v.id JOIN documents d ON d.id = c.document_id ORDER BY v.distance`,
          )
        : undefined,
      anyDocument: db.prepare('SELECT EXISTS (SELECT 1 FROM documents) AS n'),
    };
    cache.set(db, st);
  }
  return st;
}

/**
 * Copies of one file under several paths (a vendored copy, a second checkout) are one document to
 * a reader: each ranked list keeps the first of them, up to `limit`, and a later copy stands for
 * that first one. `first` maps a content hash to the document kept for it, shared across lists.
 */
function firstCopies(docs: readonly { readonly id: number; readonly hash: string }[], limit: number, first: Map<string, number>): number[] {
  const out: number[] = [];
  for (const { id, hash } of docs) {
    if (out.length >= limit) break;
    const kept = first.get(hash);
    if (kept === undefined) first.set(hash, id);
    const rep = kept ?? id;
    if (!out.includes(rep)) out.push(rep);
  }
  return out;
}

/**
 * Searches the index. The lexical tier always runs; with a vector tier configured the query is
 * embedded and the vector tier fused in. A failing embedding call or vector query degrades to the
 * lexical answer and says which step failed; a dimension mismatch is an error, because the answer
 * would be wrong rather than narrower; a cancellation by the caller is thrown.
 */
export async function search(reader: KnowledgeReader, query: string, opts: SearchOptions): Promise<SearchResult> {
  if (!Number.isInteger(opts.topK)) {
    throw new KnowledgeError('bad_query', `topK must be a whole number of results, got ${String(opts.topK)}`);
  }
  const db = reader.handle();
  const parsed = freeTextQuery(query);
  const base = { terms: parsed.terms, dropped: parsed.dropped, common: [] as string[] };
  if (db === undefined) return { ...base, status: 'not_built', tier: configuredTier(undefined, opts.vector), hits: [] };
  const pinned = readIdentity(db);
  requireCompatibleIdentity(pinned, opts.vector?.settings, reader.path);
  const tier0 = configuredTier(db, opts.vector);
  const st = statements(db, false);
  if ((st.anyDocument.get() as { n: number }).n === 0) return { ...base, status: 'empty_index', tier: tier0, hits: [] };
  if (parsed.match === undefined) return { ...base, status: 'no_terms', tier: tier0, hits: [] };

  const { keep, common } = splitCommonTerms(db, parsed.terms);
  const top = Math.max(1, opts.topK);
  // a lexical answer needs only the ranking's head; fusion with the vectors reads further down it
  const ranked = rankDocuments(db, keep, opts.vector !== undefined && pinned !== undefined ? undefined : top);
  // one chunk per document: the best one found for it
  const chunkOf = new Map<number, number>(ranked.map((r) => [r.documentId, r.chunkId]));
  let vectorDocs: { id: number; hash: string }[] | undefined;

  let tier: Tier = { kind: 'lexical' };
  const vector = opts.vector;
  if (vector !== undefined && pinned !== undefined) {
    const signal = opts.signal ?? new AbortController().signal;
    const degrade = (step: DegradeStep, failure: EmbeddingsError['failure'], detail: string): Tier => ({
      kind: 'degraded',
      model: vector.settings.model,
      step,
      failure,
      detail,
    });
    let qv: Float32Array | undefined;
    try {
      qv = await vector.client.embedQuery(`${vector.settings.queryPrefix}${query}`, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      if (!(err instanceof EmbeddingsError)) throw err;
      tier = degrade('embed_query', err.failure, err.message);
    }
    if (qv !== undefined) {
      if (qv.length !== pinned.dimension) {
        throw new KnowledgeError(
          'dimension_mismatch',
          `the embeddings model answers with dimension ${qv.length}, but the index holds dimension ${pinned.dimension}; run 'fisk knowledge index --reindex'`,
        );
      }
      try {
        const rows = statements(db, true).vector?.all(Buffer.from(qv.buffer, qv.byteOffset, qv.byteLength)) as {
          id: number;
          doc: number;
          hash: string;
        }[];
        vectorDocs = [];
        for (const row of rows) {
          if (vectorDocs.some((v) => v.id === row.doc)) continue;
          vectorDocs.push({ id: row.doc, hash: row.hash });
          if (!chunkOf.has(row.doc)) chunkOf.set(row.doc, row.id);
        }
        tier = { kind: 'hybrid', model: vector.settings.model, dimension: pinned.dimension };
      } catch (err) {
        tier = degrade('vector_search', 'failed', (err as Error).message);
      }
    }
  }
  const first = new Map<string, number>();
  const lexicalDocs = firstCopies(
    ranked.map((r) => ({ id: r.documentId, hash: r.hash })),
    vectorDocs === undefined ? top : Math.max(top, CANDIDATES),
    first,
  );
  const scoreOf = new Map<number, number>(ranked.map((r) => [r.documentId, r.score]));
  const docs =
    vectorDocs === undefined
      ? lexicalDocs.map((id) => ({ id, score: scoreOf.get(id) ?? 0 }))
      : fuseWithLexicalHead(lexicalDocs, firstCopies(vectorDocs, vectorDocs.length, first)).slice(0, top);
  const hits = hydrate(
    db,
    docs.map((d) => ({ id: chunkOf.get(d.id) ?? -1, score: d.score })),
  );
  return { ...base, common, status: hits.length === 0 ? 'no_results' : 'ok', tier, hits };
}
