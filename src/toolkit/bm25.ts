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
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'can', 'do', 'for', 'from', 'given', 'i', 'in', 'into', 'is', 'it', 'its', 'me',
  'my', 'of', 'on', 'or', 'so', 'that', 'the', 'their', 'them', 'then', 'this', 'to', 'use', 'want', 'was', 'we', 'what', 'which',
  'will', 'with', 'you', 'your', 'tags', 'tool', 'tools',
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
  const spaced = text.replace(/([a-z0-9])([A-Z])/g, '$1 $2');
  const out: string[] = [];
  for (const raw of spaced.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
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

interface Indexed {
  readonly id: string;
  readonly tf: ReadonlyMap<string, number>;
  readonly length: number;
}

/** An immutable BM25 index, built once per tool set. */
export class Bm25Index {
  readonly #docs: readonly Indexed[];
  readonly #df: ReadonlyMap<string, number>;
  readonly #avgLength: number;

  constructor(documents: readonly Bm25Document[]) {
    const df = new Map<string, number>();
    const docs: Indexed[] = [];
    let total = 0;
    for (const d of documents) {
      const tf = new Map<string, number>();
      let length = 0;
      for (const f of d.fields) {
        for (const term of tokenize(f.text)) {
          tf.set(term, (tf.get(term) ?? 0) + f.weight);
          length += f.weight;
        }
      }
      for (const term of tf.keys()) df.set(term, (df.get(term) ?? 0) + 1);
      docs.push({ id: d.id, tf, length });
      total += length;
    }
    this.#docs = docs;
    this.#df = df;
    this.#avgLength = docs.length === 0 ? 0 : total / docs.length;
  }

  /** The number of documents indexed. */
  get size(): number {
    return this.#docs.length;
  }

  /**
   * The documents matching any term of `query`, best first, at most `limit`. Ties keep index order,
   * so equal queries always answer alike.
   */
  search(query: string, limit: number): Bm25Hit[] {
    const terms = [...new Set(tokenize(query))];
    if (terms.length === 0 || limit <= 0) return [];
    const n = this.#docs.length;
    const idf = new Map<string, number>();
    for (const t of terms) {
      const df = this.#df.get(t) ?? 0;
      if (df > 0) idf.set(t, Math.log(1 + (n - df + 0.5) / (df + 0.5)));
    }
    if (idf.size === 0) return [];
    const scored: { id: string; score: number; order: number }[] = [];
    this.#docs.forEach((d, order) => {
      let score = 0;
      const norm = K1 * (1 - B + (B * d.length) / (this.#avgLength || 1));
      for (const [t, w] of idf) {
        const tf = d.tf.get(t);
        if (tf === undefined) continue;
        score += (w * tf * (K1 + 1)) / (tf + norm);
      }
      if (score > 0) scored.push({ id: d.id, score, order });
    });
    scored.sort((a, b) => b.score - a.score || a.order - b.order);
    return scored.slice(0, limit).map(({ id, score }) => ({ id, score }));
  }
}
