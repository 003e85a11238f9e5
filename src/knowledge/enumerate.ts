import type { Database as Db } from 'better-sqlite3';
import { KnowledgeError } from './errors.js';
import { quoteTerm } from './query.js';
import { Stemmer, wordsForStem } from './stems.js';
import type { KnowledgeReader } from './store.js';

/** Where a term must occur. */
export const TERM_SCOPES = ['any', 'heading', 'body'] as const;
export type TermScope = (typeof TERM_SCOPES)[number];

/** One term of an enumeration query. */
export interface EnumTerm {
  readonly text: string;
  readonly phrase: boolean;
  readonly negated: boolean;
  readonly scope: TermScope;
}

/** FTS5 operators the language refuses by name: FTS5 would answer a different question. */
const OPERATORS = new Set(['OR', 'AND', 'NOT', 'NEAR']);

/**
 * Parses the enumeration language: bare words, `"quoted phrases"`, a leading `-` to exclude, and
 * `heading:` / `body:` scoping. Refuses OR, AND, NOT and NEAR (every term already must hold, and
 * FTS5 would otherwise read them as operators) and a trailing `*` (a prefix over a stemmed index
 * can match fewer documents as the prefix grows).
 */
export function parseEnumQuery(query: string): EnumTerm[] {
  const terms: EnumTerm[] = [];
  let i = 0;
  const queryText = query;
  while (i < queryText.length) {
    while (i < queryText.length && /\s/u.test(queryText[i] ?? '')) i++;
    if (i >= queryText.length) break;
    let negated = false;
    let scope: TermScope = 'any';
    if (queryText[i] === '-') {
      negated = true;
      i++;
    }
    const rest = queryText.slice(i);
    const sc = /^(heading|body):/u.exec(rest);
    if (sc !== null) {
      scope = sc[1] === 'heading' ? 'heading' : 'body';
      i += sc[0].length;
    }
    if (queryText[i] === '"') {
      const end = queryText.indexOf('"', i + 1);
      if (end === -1) throw new KnowledgeError('bad_query', `unterminated quote in ${JSON.stringify(query)}; close the phrase with "`);
      const text = queryText.slice(i + 1, end);
      i = end + 1;
      if (queryText[i] === '*')
        throw new KnowledgeError(
          'bad_query',
          'a trailing * is not supported: prefix matching over stemmed words can find fewer documents as the prefix grows; write the whole word',
        );
      terms.push({ text, phrase: true, negated, scope });
      continue;
    }
    let j = i;
    while (j < queryText.length && !/\s/u.test(queryText[j] ?? '')) j++;
    const word = queryText.slice(i, j);
    i = j;
    if (word === '') continue;
    if (OPERATORS.has(word) || word.startsWith('NEAR(')) {
      const op = word.startsWith('NEAR') ? 'NEAR' : word;
      throw new KnowledgeError(
        'bad_query',
        `${op} is not part of the enumeration language: every term must already hold, "-word" excludes, and alternatives need one query each`,
      );
    }
    if (word.endsWith('*')) {
      throw new KnowledgeError(
        'bad_query',
        `a trailing * is not supported (${JSON.stringify(word)}): prefix matching over stemmed words can find fewer documents as the prefix grows; write the whole word`,
      );
    }
    terms.push({ text: word, phrase: false, negated, scope });
  }
  return terms;
}

/** How an enumeration ended; an empty corpus and an empty query are different answers. */
export const ENUMERATE_STATUSES = ['ok', 'no_match', 'empty_query', 'empty_corpus', 'not_built'] as const;
export type EnumerateStatus = (typeof ENUMERATE_STATUSES)[number];

/** A document holding every positive term and none of the negated ones. */
export interface MatchedDocument {
  readonly path: string;
  /** Chunks whose body matched a positive term, summed over terms. */
  readonly bodyMatches: number;
  /** Chunks whose heading breadcrumb matched a positive term, summed over terms. */
  readonly headingMatches: number;
}

/** What a term matched on: its stems and the real words behind them. */
export interface TermReport {
  readonly term: string;
  readonly negated: boolean;
  readonly scope: TermScope;
  readonly stems: readonly string[];
  readonly words: readonly string[];
  /** Documents this term alone matched. */
  readonly documents: number;
}

/** An enumeration's answer: matching documents (possibly limited) and how each term matched. */
export interface EnumerateResult {
  readonly status: EnumerateStatus;
  /** Matching documents before any limit: a budget never hides the size of the answer. */
  readonly total: number;
  readonly documents: readonly MatchedDocument[];
  readonly terms: readonly TermReport[];
  /** Terms with no letters or digits, dropped. */
  readonly dropped: readonly string[];
  /** Documents in the corpus. */
  readonly corpus: number;
}

function matchFor(term: EnumTerm, column: 'content' | 'heading_path'): string {
  return `{${column}} : ${quoteTerm(term.text)}`;
}

function countsFor(db: Db, match: string): Map<number, number> {
  const rows = db
    .prepare(
      'SELECT c.document_id AS d, count(*) AS n FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ? GROUP BY c.document_id',
    )
    .all(match) as { d: number; n: number }[];
  return new Map(rows.map((r) => [r.d, r.n]));
}

/**
 * Answers set membership: which documents hold all these words, across chunks. FTS5 booleans work
 * within one row (one chunk), so each term runs as its own document-set query and the sets are
 * intersected and subtracted here, holding only document ids.
 */
export function enumerate(reader: KnowledgeReader, query: string, limit?: number): EnumerateResult {
  const parsed = parseEnumQuery(query);
  const db = reader.handle();
  const usable = parsed.filter((t) => /[\p{L}\p{N}]/u.test(t.text));
  const dropped = parsed.filter((t) => !usable.includes(t)).map((t) => t.text);
  const empty = (status: EnumerateStatus, corpus: number): EnumerateResult => ({
    status,
    total: 0,
    documents: [],
    terms: [],
    dropped,
    corpus,
  });
  if (db === undefined) return empty('not_built', 0);
  const corpus = (db.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n;
  if (corpus === 0) return empty('empty_corpus', 0);
  if (usable.length === 0) return empty('empty_query', corpus);
  if (!usable.some((t) => !t.negated)) {
    throw new KnowledgeError(
      'bad_query',
      'an enumeration needs at least one term without a leading "-": exclusions alone would list the whole corpus',
    );
  }

  const stemmer = new Stemmer();
  try {
    let set: Set<number> | undefined;
    const body = new Map<number, number>();
    const heading = new Map<number, number>();
    const reports: TermReport[] = [];
    const stems = stemmer.stems(usable.map((t) => t.text));
    usable.forEach((term, idx) => {
      const bodyCounts = term.scope === 'heading' ? new Map<number, number>() : countsFor(db, matchFor(term, 'content'));
      const headingCounts = term.scope === 'body' ? new Map<number, number>() : countsFor(db, matchFor(term, 'heading_path'));
      const docs = new Set([...bodyCounts.keys(), ...headingCounts.keys()]);
      const termStems = stems[idx] ?? [];
      reports.push({
        term: term.text,
        negated: term.negated,
        scope: term.scope,
        stems: termStems,
        words: termStems.length === 1 && termStems[0] !== undefined ? wordsForStem(db, stemmer, termStems[0]) : [],
        documents: docs.size,
      });
      if (term.negated) return;
      set = set === undefined ? docs : new Set([...set].filter((d) => docs.has(d)));
      for (const [doc, count] of bodyCounts) body.set(doc, (body.get(doc) ?? 0) + count);
      for (const [doc, count] of headingCounts) heading.set(doc, (heading.get(doc) ?? 0) + count);
    });
    usable.forEach((term) => {
      if (!term.negated || set === undefined) return;
      const excl = new Set([
        ...(term.scope === 'heading' ? [] : countsFor(db, matchFor(term, 'content')).keys()),
        ...(term.scope === 'body' ? [] : countsFor(db, matchFor(term, 'heading_path')).keys()),
      ]);
      for (const doc of excl) set.delete(doc);
    });
    const ids = [...(set ?? [])];
    const paths = new Map<number, string>();
    const getPath = db.prepare('SELECT path FROM documents WHERE id = ?');
    for (const id of ids) {
      const row = getPath.get(id) as { path: string } | undefined;
      if (row !== undefined) paths.set(id, row.path);
    }
    // heading matches first, then body matches: a combined count inverted the ranking
    const documents = ids
      .filter((id) => paths.has(id))
      .map((id) => ({ path: paths.get(id) ?? '', bodyMatches: body.get(id) ?? 0, headingMatches: heading.get(id) ?? 0 }))
      .sort(
        (a, b) => b.headingMatches - a.headingMatches || b.bodyMatches - a.bodyMatches || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
      );
    const total = documents.length;
    const limited = limit === undefined ? documents : documents.slice(0, Math.max(0, limit));
    return { status: total === 0 ? 'no_match' : 'ok', total, documents: limited, terms: reports, dropped, corpus };
  } finally {
    stemmer.close();
  }
}
