/**
 * A small BM25 index over weighted text fields, for finding deferred tool definitions by words.
 * Scores are Okapi BM25 with per-field weights folded into the term frequency and the document
 * length (the BM25F simplification), so a word in a tool's name counts for more than the same word
 * in its description.
 */

/** Okapi BM25 term-frequency saturation. */
const K1 = 1.2;
/** Okapi BM25 length normalisation. */
const B = 0.75;

/** Words too common in tool descriptions to tell tools apart. */
const STOP_WORDS: ReadonlySet<string> = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'by',
  'can',
  'do',
  'for',
  'from',
  'given',
  'i',
  'in',
  'into',
  'is',
  'it',
  'its',
  'me',
  'my',
  'of',
  'on',
  'or',
  'so',
  'that',
  'the',
  'their',
  'them',
  'then',
  'this',
  'to',
  'use',
  'want',
  'was',
  'we',
  'what',
  'which',
  'will',
  'with',
  'you',
  'your',
  'tags',
  'tool',
  'tools',
]);

/** Reduces a plural to its singular in the common English shapes (streams, entries, boxes). */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && /(?:ch|sh|x|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/**
 * Splits text into search terms: camelCase and snake_case are separated, letters are lower-cased,
 * one-letter words and stop words are dropped, and plurals are reduced.
 */
export function tokenize(text: string): string[] {
  const spaced = text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  // plain ASCII text splits without the Unicode tables
  const words = /[\u0080-\uffff]/.test(spaced) ? spaced.split(/[^\p{L}\p{N}]+/u) : spaced.split(/[^a-z0-9]+/);
  const out: string[] = [];
  for (const raw of words) {
    if (raw.length < 2 || STOP_WORDS.has(raw)) continue;
    out.push(stem(raw));
  }
  return out;
}

/** One field of a document and how much a word in it counts. */
export interface WeightedText {
  readonly text: string;
  readonly weight: number;
}

/** A document to index: an id and its weighted fields. */
export interface Bm25Document {
  readonly id: string;
  readonly fields: readonly WeightedText[];
}

/** One hit, best first. */
export interface Bm25Hit {
  readonly id: string;
  readonly score: number;
}

interface Posting {
  readonly doc: number;
  readonly tf: number;
}

/** An immutable BM25 index, built once per tool set. */
export class Bm25Index {
  readonly #ids: readonly string[];
  readonly #lengths: Float64Array;
  readonly #postings: ReadonlyMap<string, readonly Posting[]>;
  readonly #avgLength: number;

  constructor(documents: readonly Bm25Document[]) {
    const postings = new Map<string, Posting[]>();
    this.#ids = documents.map((d) => d.id);
    this.#lengths = new Float64Array(documents.length);
    let total = 0;
    documents.forEach((d, doc) => {
      const tf = new Map<string, number>();
      let length = 0;
      for (const f of d.fields) {
        for (const term of tokenize(f.text)) {
          tf.set(term, (tf.get(term) ?? 0) + f.weight);
          length += f.weight;
        }
      }
      for (const [term, n] of tf) {
        const list = postings.get(term);
        if (list === undefined) postings.set(term, [{ doc, tf: n }]);
        else list.push({ doc, tf: n });
      }
      this.#lengths[doc] = length;
      total += length;
    });
    this.#postings = postings;
    this.#avgLength = documents.length === 0 ? 0 : total / documents.length;
  }

  /** The number of documents indexed. */
  get size(): number {
    return this.#ids.length;
  }

  /**
   * The documents matching any term of `query`, best first, at most `limit`. Ties keep index order,
   * so equal queries always answer alike.
   */
  search(query: string, limit: number): Bm25Hit[] {
    const n = this.#ids.length;
    if (limit <= 0 || n === 0) return [];
    const scores = new Float64Array(n);
    const touched: number[] = [];
    const avg = this.#avgLength || 1;
    for (const term of new Set(tokenize(query))) {
      const list = this.#postings.get(term);
      if (list === undefined) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const { doc, tf } of list) {
        if (scores[doc] === 0) touched.push(doc);
        const norm = K1 * (1 - B + (B * (this.#lengths[doc] ?? 0)) / avg);
        scores[doc] = (scores[doc] ?? 0) + (idf * tf * (K1 + 1)) / (tf + norm);
      }
    }
    touched.sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || a - b);
    return touched.slice(0, limit).map((doc) => ({ id: this.#ids[doc] ?? '', score: scores[doc] ?? 0 }));
  }
}
