/** The most terms a free-text query keeps; the rest are dropped and reported. */
export const MAX_QUERY_TERMS = 40;

/** A free-text query reduced to an FTS5 expression. */
export interface FreeTextQuery {
  /** The MATCH expression, or `undefined` when no term survived. */
  readonly match: string | undefined;
  readonly terms: readonly string[];
  /** Terms under two characters, dropped rather than silently ignored (bar the words "a" and "I"). */
  readonly dropped: readonly string[];
  /** Terms past the cap of forty. */
  readonly overflow: number;
}

/** Quotes a term for FTS5: inside double quotes, with any inner quote doubled. */
export function quoteTerm(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/** One-letter words of ordinary prose: dropped without a report, since no search could use them. */
const QUIET_WORDS: ReadonlySet<string> = new Set(['a', 'i']);

/**
 * Reduces free text to OR-ed quoted terms. Splitting on everything that is not a letter or digit
 * and quoting each term means no character of the model's text can reach FTS5 as syntax.
 */
export function freeTextQuery(text: string): FreeTextQuery {
  const terms: string[] = [];
  const dropped: string[] = [];
  let overflow = 0;
  for (const raw of text.split(/[^\p{L}\p{N}]+/u)) {
    if (raw === '') continue;
    if ([...raw].length < 2) {
      if (!QUIET_WORDS.has(raw.toLowerCase())) dropped.push(raw);
      continue;
    }
    if (terms.length >= MAX_QUERY_TERMS) {
      overflow++;
      continue;
    }
    terms.push(raw);
  }
  return { match: terms.length === 0 ? undefined : terms.map(quoteTerm).join(' OR '), terms, dropped, overflow };
}
