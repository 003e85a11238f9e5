/**
 * Measuring retrieval on an operator's own corpus: questions a reader would ask, each with the
 * documents that answer it, searched the way `knowledge_search` searches, scored by where the first
 * right document lands (recall@1, recall@5, mean reciprocal rank).
 */
import { KnowledgeError } from './errors.js';
import { search } from './search.js';
import type { SearchVector } from './search.js';
import type { KnowledgeReader } from './store.js';
import type { Tier } from './tier.js';

/** One question and the paths (as the index stores them) of the documents that answer it. */
export interface EvalQuestion {
  readonly question: string;
  readonly answers: readonly string[];
  /** The question's line in its file, for messages. */
  readonly line: number;
}

/** Where a question's first right document ranked (0: not among the documents searched). */
export interface EvalOutcome extends EvalQuestion {
  readonly rank: number;
  /** The documents answered, best first. */
  readonly ranked: readonly string[];
}

/** The three figures over a set of ranks. */
export interface EvalScore {
  readonly questions: number;
  readonly recallAt1: number;
  readonly recallAt5: number;
  readonly mrr: number;
}

/** A whole evaluation: every question's outcome, the score, and answers the index does not hold. */
export interface EvalReport {
  readonly tier: Tier;
  /** How many documents were asked for per question. */
  readonly depth: number;
  readonly outcomes: readonly EvalOutcome[];
  readonly score: EvalScore;
  /** Answer paths that name no indexed document: a typo, or a file not indexed yet. */
  readonly unknownAnswers: readonly string[];
}

/** Documents asked for per question unless told otherwise: enough to see a near miss. */
export const EVAL_DEPTH = 10;

/**
 * Reads a questions file: one question per line, a tab, then the answering paths separated by `|`.
 * Blank lines and lines starting with `#` are skipped. Throws `KnowledgeError` (`bad_questions`)
 * naming the line that is not in that form, or the file when it holds no question.
 */
export function parseQuestions(text: string, source: string): EvalQuestion[] {
  const out: EvalQuestion[] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) continue;
    const tab = raw.indexOf('\t');
    const question = tab < 0 ? '' : raw.slice(0, tab).trim();
    const answers =
      tab < 0
        ? []
        : raw
            .slice(tab + 1)
            .split('|')
            .map((a) => a.trim())
            .filter((a) => a !== '');
    if (question === '' || answers.length === 0) {
      throw new KnowledgeError(
        'bad_questions',
        `${source}:${i + 1}: expected a question, a tab, then the answering paths separated by "|" (as 'fisk knowledge sources' lists them)`,
      );
    }
    out.push({ question, answers, line: i + 1 });
  }
  if (out.length === 0)
    throw new KnowledgeError(
      'bad_questions',
      `${source} holds no question; write one per line: the question, a tab, then the answering paths separated by "|"`,
    );
  return out;
}

/** Whether an indexed path is one of the answers: the same path, or a path ending in `/<answer>`. */
export function isAnswer(path: string, answers: readonly string[]): boolean {
  return answers.some((a) => path === a || path.endsWith(`/${a}`));
}

/** Rank (1-based) of the first answer in a ranked list of paths, or 0 when none is there. */
export function rankOfFirstAnswer(
  ranked: readonly string[],
  answers: readonly string[],
  right: (path: string, answers: readonly string[]) => boolean = isAnswer,
): number {
  const i = ranked.findIndex((p) => right(p, answers));
  return i < 0 ? 0 : i + 1;
}

/** Recall@1, recall@5 and MRR over a list of ranks (0 counts as a miss). */
export function scoreRanks(ranks: readonly number[]): EvalScore {
  const n = Math.max(1, ranks.length);
  return {
    questions: ranks.length,
    recallAt1: ranks.filter((r) => r === 1).length / n,
    recallAt5: ranks.filter((r) => r >= 1 && r <= 5).length / n,
    mrr: ranks.reduce((s, r) => s + (r > 0 ? 1 / r : 0), 0) / n,
  };
}

/** What an evaluation needs besides the questions: the depth, the vector tier when configured, a signal. */
export interface EvaluateOptions {
  readonly depth?: number;
  readonly vector?: SearchVector | undefined;
  readonly signal?: AbortSignal;
  /** The indexed paths, to report answers that name none of them. */
  readonly indexedPaths: readonly string[];
}

/**
 * Asks every question of the index, as `knowledge_search` would, and scores where the first right
 * document lands. Throws `KnowledgeError` (`not_built`) when there is no index to ask.
 */
export async function evaluateQuestions(
  reader: KnowledgeReader,
  questions: readonly EvalQuestion[],
  opts: EvaluateOptions,
): Promise<EvalReport> {
  const depth = opts.depth ?? EVAL_DEPTH;
  const outcomes: EvalOutcome[] = [];
  let tier: Tier = { kind: 'lexical' };
  for (const q of questions) {
    opts.signal?.throwIfAborted();
    const res = await search(reader, q.question, {
      topK: depth,
      vector: opts.vector,
      ...(opts.signal === undefined ? {} : { signal: opts.signal }),
    });
    if (res.status === 'not_built')
      throw new KnowledgeError('not_built', 'the knowledge index has not been built yet; run: fisk knowledge index');
    tier = res.tier;
    const ranked = res.hits.map((h) => h.path);
    outcomes.push({ ...q, rank: rankOfFirstAnswer(ranked, q.answers), ranked });
  }
  const unknown = new Set<string>();
  for (const q of questions) for (const a of q.answers) if (!opts.indexedPaths.some((p) => isAnswer(p, [a]))) unknown.add(a);
  return { tier, depth, outcomes, score: scoreRanks(outcomes.map((o) => o.rank)), unknownAnswers: [...unknown] };
}
