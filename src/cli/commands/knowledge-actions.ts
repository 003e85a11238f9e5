/** What each `fisk knowledge` subcommand does; loaded only when one of them runs. */
import type { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { oneLine, stripControl } from '../../agent/sanitize.js';
import { ConfigError, parseConfigForMode, parseGoDuration } from '../../config/index.js';
import type { Config } from '../../config/index.js';
import { indexCorpus } from '../../knowledge/indexer.js';
import type { IndexProgress, IndexResult, PruneScope } from '../../knowledge/indexer.js';
import type { CheckState } from '../../knowledge/maintenance.js';
import { knowledgeSetup } from '../../knowledge/setup.js';
import type { KnowledgeSetup } from '../../knowledge/setup.js';
import { readGap } from '../../knowledge/fulltext.js';
import { damagedIndex } from '../../knowledge/errors.js';
import { KnowledgeReader, openWriter } from '../../knowledge/store.js';
import { DB_FILE } from '../../knowledge/store-files.js';
import { configuredTier, tierLine, tierText } from '../../knowledge/tier.js';
import { MAX_FILE_BYTES } from '../../knowledge/walk.js';
import type { SkipReason } from '../../knowledge/walk.js';
import { memoryStorePaths } from '../../memory/backends.js';
import { sessionStorePaths } from '../../runstate/registry.js';
import { CliError, ExitWith, UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { println } from '../io.js';
import { counted } from '../../util/count.js';

const NOT_BUILT = 'the knowledge index has not been built yet; run: fisk knowledge index';

export interface Ctx {
  readonly io: Io;
  readonly config: Config;
  readonly setup: KnowledgeSetup;
  readonly excludeDirs: readonly string[];
  /** The directory holding agent.yaml: relative configured paths and stored keys resolve here. */
  readonly root: string;
}

/**
 * The directories the memory and session stores keep on this machine, asked of their backends, so
 * indexing never reads them. A backend that refuses its options keeps nothing out here: a run
 * opening it reports that.
 */
function storeDirs(config: Config, env: Io['env'], storeBase: string | undefined): readonly string[] {
  return [
    ...askLeniently(() => memoryStorePaths(config.harness.memory, { identity: config.identity, baseDir: storeBase ?? config.baseDir })),
    ...askLeniently(() => sessionStorePaths(config.harness.sessions, { env, cwd: config.baseDir })),
  ];
}

function askLeniently(ask: () => readonly string[]): readonly string[] {
  try {
    return ask();
  } catch (err) {
    if (err instanceof ConfigError) return [];
    throw err;
  }
}

export function context(cmd: Command, io: Io): Ctx {
  const opts = cmd.optsWithGlobals<{ config: string; storeDir?: string }>();
  const storeBase = opts.storeDir ?? io.env['FISK_AI_STORE_DIR'];
  if (storeBase !== undefined && storeBase !== '' && !isAbsolute(storeBase)) {
    throw new UsageError(`--store-dir must be an absolute path, got ${JSON.stringify(storeBase)} (also read from FISK_AI_STORE_DIR)`);
  }
  const config = parseConfigForMode({ path: resolve(io.cwd, opts.config) }, 'knowledge');
  const kc = config.harness.knowledge;
  const base = storeBase === '' ? undefined : storeBase;
  const setup = knowledgeSetup(
    { directory: kc.directory, embeddings: kc.embeddings },
    { cwd: config.baseDir, storeBase: base, env: io.env },
  );
  const excludeDirs = [setup.storeDir, ...storeDirs(config, io.env, base)];
  return { io, config, setup, excludeDirs, root: config.baseDir };
}

/**
 * Runs a subcommand on its context. SQLite finding the index damaged part way through (a page it
 * cannot read) is said as the knowledge error naming the file and how to build it again.
 */
export async function act(cmd: Command, io: Io, body: (ctx: Ctx) => Promise<void>): Promise<void> {
  const ctx = context(cmd, io);
  try {
    await body(ctx);
  } catch (err) {
    throw damagedIndex(join(ctx.setup.storeDir, DB_FILE), err);
  }
}

/** Runs a command body with a signal that the first Ctrl-C aborts (a second one kills as usual). */
async function withInterrupt<T>(body: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  const onSig = (): void => ac.abort();
  process.once('SIGINT', onSig);
  process.once('SIGTERM', onSig);
  try {
    return await body(ac.signal);
  } finally {
    process.off('SIGINT', onSig);
    process.off('SIGTERM', onSig);
  }
}

function reader(ctx: Ctx): KnowledgeReader {
  return new KnowledgeReader(ctx.setup.storeDir);
}

/** Which tier answers goes to standard error: a note beside the output, never a line of it. */
function printTier(ctx: Ctx, r: KnowledgeReader): void {
  println(ctx.io.err, tierLine(configuredTier(r.handle(), ctx.setup.vector)));
}

/**
 * A path typed on the command line, relative to the working directory, spelled as the index
 * stores it: relative to the directory holding agent.yaml when it lies under it, else absolute.
 */
function anchored(ctx: Ctx, typed: string): string {
  const abs = resolve(ctx.io.cwd, typed);
  const rel = relative(ctx.root, abs);
  if (rel === '') return '.';
  return isAbsolute(rel) || rel.split(sep)[0] === '..' ? abs : rel;
}

function rootsFor(ctx: Ctx, paths: readonly string[]): { roots: readonly string[]; fromConfig: boolean } {
  if (paths.length > 0) return { roots: paths.map((p) => anchored(ctx, p)), fromConfig: false };
  const configured = ctx.config.harness.knowledge.paths;
  if (configured.length === 0) {
    throw new UsageError('no paths given and harness.knowledge.paths is empty; pass a path or set harness.knowledge.paths');
  }
  return { roots: configured, fromConfig: true };
}

const SKIP_WORDS: Record<SkipReason, string> = {
  symlink: 'a symlink',
  too_large: `larger than ${MAX_FILE_BYTES / 1024} KiB`,
  not_utf8: 'not UTF-8 text',
  name_not_utf8: 'its file name is not UTF-8 (rename it to index it)',
  not_documentation: 'not a documentation file (see harness.knowledge.extensions)',
  unreadable: 'unreadable',
  missing: 'does not exist',
};

function progressPrinter(ctx: Ctx): ((p: IndexProgress) => void) | undefined {
  if (ctx.io.err.isTTY !== true || ctx.config.harness.noProgress) return undefined;
  const start = Date.now();
  let last = 0;
  return (p) => {
    const now = Date.now();
    if (now - last < 200 && p.filesDone !== p.filesTotal) return;
    last = now;
    const secs = Math.max(0.001, (now - start) / 1000);
    const rate = p.filesDone / secs;
    const eta = rate > 0 ? Math.round((p.filesTotal - p.filesDone) / rate) : 0;
    ctx.io.err.write(`\r\x1b[Kindexing: ${p.filesDone}/${p.filesTotal} files, ${p.chunks} chunks, ${rate.toFixed(0)} files/s, ETA ${eta}s`);
  };
}

function reportIndex(ctx: Ctx, res: IndexResult): void {
  const { io } = ctx;
  const shown = res.skipped.slice(0, 20);
  for (const s of shown) println(io.err, `skipped ${oneLine(s.path)}: ${SKIP_WORDS[s.reason]}`);
  if (res.skipped.length > shown.length) println(io.err, `skipped ${counted(res.skipped.length - shown.length, 'more file')}`);
  if (res.pruneSkipped !== undefined) println(io.err, `warning: ${res.pruneSkipped}`);
  const emb = res.embeddings > 0 ? `, ${counted(res.embeddings, 'embedding')}` : '';
  println(
    io.out,
    `${res.dryRun ? 'would index' : 'indexed'}: added=${res.added} updated=${res.updated} skipped=${res.unchanged} removed=${res.removed} (${counted(res.files, 'file')}, ${counted(res.chunks, 'chunk')}${emb})`,
  );
}

export async function runIndex(
  ctx: Ctx,
  paths: readonly string[],
  options: { reindex?: boolean; dryRun?: boolean; prune?: boolean },
): Promise<void> {
  const { roots, fromConfig } = rootsFor(ctx, paths);
  const prune: PruneScope = fromConfig ? 'all' : options.prune === true ? 'under_roots' : 'none';
  const progress = progressPrinter(ctx);
  const common = {
    roots,
    cwd: ctx.root,
    excludeDirs: ctx.excludeDirs,
    extensions: ctx.config.harness.knowledge.extensions,
    reindex: options.reindex === true,
    prune,
    vector: ctx.setup.vector,
    onNote: (n: string) => println(ctx.io.err, n),
    ...(progress === undefined ? {} : { onProgress: progress }),
  };
  if (options.dryRun === true) {
    const indexReader = reader(ctx);
    printTier(ctx, indexReader);
    reportIndex(ctx, await indexCorpus(indexReader.handle(), { ...common, dryRun: true }));
    indexReader.close();
    return;
  }
  const store = openWriter(ctx.setup.storeDir, { bulk: true });
  try {
    const res = await withInterrupt((signal) => indexCorpus(store.db, { ...common, signal, bulk: store.bulk }));
    if (progress !== undefined) ctx.io.err.write('\n');
    // printed after the pass so it shows the identity the pass pinned
    println(ctx.io.err, tierLine(configuredTier(store.db, ctx.setup.vector)));
    if (res.canceled) {
      println(
        ctx.io.err,
        `\nindex interrupted after ${counted(res.added + res.updated + res.unchanged, 'file')}; what was indexed stays, and a re-run skips it`,
      );
      if (readGap(store.db) !== undefined)
        println(
          ctx.io.err,
          "the full-text index is incomplete, so search misses words until 'fisk knowledge index' runs again and completes it",
        );
      throw new ExitWith(EXIT.aborted);
    }
    reportIndex(ctx, res);
  } finally {
    store.close();
  }
}

export async function runSearch(ctx: Ctx, query: string, options: { topK?: string; full?: boolean; json?: boolean }): Promise<void> {
  const { search } = await import('../../knowledge/search.js');
  const topK = options.topK === undefined || Number(options.topK) === 0 ? ctx.config.harness.knowledge.topK : Number(options.topK);
  if (!Number.isInteger(topK) || topK < 0) throw new UsageError(`--top-k must be a whole number, got ${JSON.stringify(options.topK)}`);
  const indexReader = reader(ctx);
  try {
    const res = await withInterrupt((signal) => search(indexReader, query, { topK: Math.min(topK, 50), vector: ctx.setup.vector, signal }));
    const out = ctx.io.out;
    // a script must not read an index that was never built as an empty answer
    if (options.json === true && res.status === 'not_built') throw new CliError(NOT_BUILT);
    if (options.json === true) {
      println(
        out,
        JSON.stringify(
          {
            tier: tierText(res.tier),
            status: res.status,
            dropped_terms: res.dropped,
            common_terms: res.common,
            results: res.hits.map((h) => ({ citation: h.citation, section: h.headingPath, content: h.content, score: h.score })),
          },
          null,
          2,
        ),
      );
      return;
    }
    println(ctx.io.err, tierLine(res.tier));
    if (res.dropped.length > 0)
      println(ctx.io.err, `note: dropped terms shorter than two characters: ${res.dropped.map((d) => oneLine(d)).join(' ')}`);
    if (res.common.length > 0)
      println(
        ctx.io.err,
        `note: left out of the ranking because more than half of all chunks hold them: ${res.common.map((d) => oneLine(d)).join(' ')}`,
      );
    switch (res.status) {
      case 'not_built':
        throw new CliError(NOT_BUILT);
      // nothing found is said on stderr: the answer itself is empty
      case 'empty_index':
        println(ctx.io.err, "the knowledge index is empty; add documents with 'fisk knowledge index'");
        return;
      case 'no_terms':
        println(ctx.io.err, 'the query has no searchable terms (words of two or more letters or digits)');
        return;
      case 'no_results':
        println(ctx.io.err, 'no results');
        return;
      case 'ok':
        break;
      default: {
        const never: never = res.status;
        return never;
      }
    }
    res.hits.forEach((hit, i) => {
      if (i > 0) println(out);
      println(out, oneLine(hit.citation));
      if (hit.headingPath !== '') println(out, `  Section  ${oneLine(hit.headingPath)}`);
      if (options.full === true) {
        println(out, `  Chunk`);
        for (const line of stripControl(hit.content).split('\n')) println(out, `    ${line}`);
      } else {
        const one = oneLine(hit.content);
        println(out, `  Chunk    ${one.length > 100 ? `${one.slice(0, 100)}...` : one}`);
      }
    });
  } finally {
    indexReader.close();
  }
}

/** Figures to three places, as the evaluation prints them. */
const fig = (x: number): string => x.toFixed(3);

export async function runEval(ctx: Ctx, file: string, options: { depth?: string; json?: boolean; missesOnly?: boolean }): Promise<void> {
  const { evaluateQuestions, parseQuestions, EVAL_DEPTH } = await import('../../knowledge/evaluate.js');
  const { listSources } = await import('../../knowledge/maintenance.js');
  const depth = options.depth === undefined ? EVAL_DEPTH : Number(options.depth);
  if (!Number.isInteger(depth) || depth < 5 || depth > 50)
    throw new UsageError(`--depth must be a whole number from 5 to 50, got ${JSON.stringify(options.depth)}`);
  const path = resolve(ctx.io.cwd, file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'it does not exist'
        : code === 'EISDIR'
          ? 'it is a directory; name the file of questions'
          : (err as Error).message;
    throw new UsageError(`cannot read the questions file ${JSON.stringify(file)}: ${why}`);
  }
  const questions = parseQuestions(text, file);
  const indexReader = reader(ctx);
  try {
    const sources = listSources(indexReader);
    if (sources === undefined) throw new CliError(NOT_BUILT);
    const report = await withInterrupt((signal) =>
      evaluateQuestions(indexReader, questions, { depth, vector: ctx.setup.vector, signal, indexedPaths: sources.map((s) => s.path) }),
    );
    const out = ctx.io.out;
    const score = report.score;
    if (options.json === true) {
      println(
        out,
        JSON.stringify(
          {
            tier: tierText(report.tier),
            depth: report.depth,
            questions: score.questions,
            recall_at_1: score.recallAt1,
            recall_at_5: score.recallAt5,
            mrr: score.mrr,
            unknown_answers: report.unknownAnswers,
            outcomes: report.outcomes.map((outcome) => ({
              line: outcome.line,
              question: outcome.question,
              answers: outcome.answers,
              rank: outcome.rank,
              first: outcome.ranked.slice(0, 5),
            })),
          },
          null,
          2,
        ),
      );
      return;
    }
    println(ctx.io.err, tierLine(report.tier));
    for (const outcome of report.outcomes) {
      if (options.missesOnly === true && outcome.rank === 1) continue;
      const rank = outcome.rank === 0 ? '-' : String(outcome.rank);
      const first = outcome.ranked[0] === undefined ? 'nothing' : oneLine(outcome.ranked[0]);
      const expected = `expected ${outcome.answers.map((a) => oneLine(a)).join(' | ')}${outcome.rank === 0 ? `, not in the first ${report.depth}` : ''}`;
      const where = outcome.rank === 1 ? first : `${first} (${expected})`;
      println(out, `${rank.padStart(3)}  ${oneLine(outcome.question)}  -> ${where}`);
    }
    const count = (share: number): number => Math.round(share * score.questions);
    println(out);
    println(
      out,
      `${counted(score.questions, 'question')}: recall@1 ${fig(score.recallAt1)} (${count(score.recallAt1)}), recall@5 ${fig(score.recallAt5)} (${count(score.recallAt5)}), MRR ${fig(score.mrr)}`,
    );
    if (report.unknownAnswers.length > 0) {
      println(
        ctx.io.err,
        `note: ${report.unknownAnswers.length === 1 ? 'this answer names' : 'these answers name'} no indexed document (see 'fisk knowledge sources'): ${report.unknownAnswers.map((a) => oneLine(a)).join(', ')}`,
      );
    }
  } finally {
    indexReader.close();
  }
}

export async function runMatch(ctx: Ctx, query: string, options: { exitCode?: boolean; json?: boolean; limit?: string }): Promise<void> {
  const { enumerate } = await import('../../knowledge/enumerate.js');
  const limit = options.limit === undefined ? undefined : Number(options.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
    throw new UsageError(`--limit must be a whole number of at least 1, got ${JSON.stringify(options.limit)}`);
  const indexReader = reader(ctx);
  try {
    const res = enumerate(indexReader, query, limit);
    const out = ctx.io.out;
    if (options.json === true) {
      if (res.status === 'not_built') throw new CliError(NOT_BUILT);
      println(
        out,
        JSON.stringify(
          {
            status: res.status,
            total: res.total,
            corpus: res.corpus,
            documents: res.documents.map((d) => ({ path: d.path, body_matches: d.bodyMatches, heading_matches: d.headingMatches })),
            terms: res.terms,
            dropped_terms: res.dropped,
          },
          null,
          2,
        ),
      );
    } else {
      switch (res.status) {
        case 'not_built':
          throw new CliError(NOT_BUILT);
        case 'empty_corpus':
          println(out, "the knowledge index holds no documents; add some with 'fisk knowledge index'");
          break;
        case 'empty_query':
          println(out, 'the query has no searchable terms');
          break;
        case 'no_match':
        case 'ok':
          for (const term of res.terms) {
            const words = term.words.length > 0 ? ` (words: ${term.words.map(oneLine).join(', ')})` : '';
            println(
              ctx.io.err,
              `term ${term.negated ? '-' : ''}${term.scope === 'any' ? '' : `${term.scope}:`}${oneLine(term.term)}: stems ${term.stems.map(oneLine).join(' ') || '(none)'}${words}, ${counted(term.documents, 'document')}`,
            );
          }
          println(
            out,
            `${res.total} of ${res.corpus} documents match${res.documents.length < res.total ? ` (showing ${res.documents.length})` : ''}`,
          );
          for (const doc of res.documents) println(out, `${oneLine(doc.path)}  heading=${doc.headingMatches} body=${doc.bodyMatches}`);
          break;
        default: {
          const never: never = res.status;
          return never;
        }
      }
    }
    if (options.exitCode === true && res.total === 0) throw new ExitWith(EXIT.noMatch);
  } finally {
    indexReader.close();
  }
}

export async function runShow(ctx: Ctx, citation: string): Promise<void> {
  const { parseCitation } = await import('../../knowledge/citation.js');
  const { chunkAt } = await import('../../knowledge/read.js');
  const c = parseCitation(citation);
  const r = reader(ctx);
  try {
    const db = r.handle();
    if (db === undefined) throw new CliError(NOT_BUILT);
    const chunk = chunkAt(db, c);
    if (chunk === undefined) {
      throw new CliError(
        `no chunk found for citation ${JSON.stringify(citation)}: the file may have changed since the last index; run 'fisk knowledge sources' to list files`,
      );
    }
    if (chunk.headingPath !== '') println(ctx.io.out, `# ${oneLine(chunk.headingPath)}\n`);
    println(ctx.io.out, stripControl(chunk.content));
  } finally {
    r.close();
  }
}

function date(ms: number | undefined): string {
  return ms === undefined ? '-' : new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

export async function runSources(ctx: Ctx): Promise<void> {
  const { listSources } = await import('../../knowledge/maintenance.js');
  const r = reader(ctx);
  try {
    printTier(ctx, r);
    const list = listSources(r);
    if (list === undefined) throw new CliError(NOT_BUILT);
    if (list.length === 0) {
      println(ctx.io.out, 'no indexed files');
      return;
    }
    const w = Math.max(4, ...list.map((s) => s.path.length));
    println(ctx.io.out, `${'Path'.padEnd(w)}  Chunks  Last Indexed`);
    for (const s of list) println(ctx.io.out, `${oneLine(s.path).padEnd(w)}  ${String(s.chunks).padStart(6)}  ${date(s.indexedMs)}`);
  } finally {
    r.close();
  }
}

export async function runRm(ctx: Ctx, paths: readonly string[]): Promise<void> {
  const { removeSources } = await import('../../knowledge/maintenance.js');
  if (!new KnowledgeReader(ctx.setup.storeDir).built()) throw new CliError(NOT_BUILT);
  const { fillGap } = await import('../../knowledge/fulltext.js');
  const store = openWriter(ctx.setup.storeDir);
  try {
    // an interrupted first build's full-text tables are finished before any chunk is deleted
    const filled = await withInterrupt((signal) =>
      fillGap(store.db, signal, (n) => println(ctx.io.err, `completing the full-text index: ${counted(n, 'chunk')}`)),
    );
    if (!filled) {
      println(
        ctx.io.err,
        "\ninterrupted while completing the full-text index; nothing was removed, and 'fisk knowledge rm' or 'fisk knowledge index' resumes it",
      );
      throw new ExitWith(EXIT.aborted);
    }
    // a file indexed through a relative root is stored relative to the directory holding
    // agent.yaml, and one indexed through an absolute root absolutely: try both spellings
    const res = paths.map((path) => {
      const abs = resolve(ctx.io.cwd, path);
      const rel = relative(ctx.root, abs);
      const forms = [...new Set([abs, rel.startsWith('..') || rel === '' ? abs : rel])];
      return { source: path, removed: removeSources(store, forms).reduce((n, r) => n + r.removed, 0) };
    });
    for (const row of res)
      println(
        ctx.io.out,
        row.removed > 0
          ? `removed ${oneLine(row.source)}${row.removed > 1 ? ` (${row.removed} files)` : ''}`
          : `not indexed: ${oneLine(row.source)}`,
      );
    println(ctx.io.out, `removed ${res.filter((r) => r.removed > 0).length} of ${res.length} sources`);
  } finally {
    store.close();
  }
}

const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'] as const;

/** A byte count as a person reads it, with the exact figure beside a rounded one. */
function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  let v = n / 1024;
  let unit: (typeof UNITS)[number] = 'KiB';
  for (const u of UNITS.slice(1)) {
    if (v < 1024) break;
    v /= 1024;
    unit = u;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${unit} (${n} bytes)`;
}

export async function runStats(ctx: Ctx): Promise<void> {
  const { storeStats } = await import('../../knowledge/maintenance.js');
  const r = reader(ctx);
  try {
    printTier(ctx, r);
    const s = storeStats(r);
    const out = ctx.io.out;
    println(out, `Store       ${s.built ? s.path : `${s.path} (not built; run: fisk knowledge index)`}`);
    println(out, `Documents   ${s.documents}`);
    println(out, `Chunks      ${s.chunks}`);
    println(out, `Vectors     ${s.vectors === undefined ? '(lexical-only index)' : s.vectors}`);
    if (s.identity !== undefined) {
      println(out, `Model       ${s.identity.model}`);
      println(out, `Dimension   ${s.identity.dimension}`);
      println(out, `Normalized  ${s.identity.normalized}`);
    }
    println(out, `DB size     ${formatBytes(s.dbBytes)}`);
    println(out, `WAL size    ${formatBytes(s.walBytes)}`);
    println(out, `Modified    ${date(s.modifiedMs)}`);
    if (s.fullTextIncomplete)
      println(out, "Full-text   incomplete (a first build was interrupted; run 'fisk knowledge index' to complete it)");
  } finally {
    r.close();
  }
}

const STATE_MARK: Record<CheckState, string> = { ok: '[ ok ]', fail: '[FAIL]', not_run: '[ -- ]' };

export async function runDoctor(ctx: Ctx): Promise<void> {
  const { runDoctor: doctor } = await import('../../knowledge/doctor.js');
  const r = reader(ctx);
  try {
    let tier: string;
    try {
      tier = tierLine(configuredTier(r.handle(), ctx.setup.vector));
    } catch {
      tier = tierLine(configuredTier(undefined, ctx.setup.vector));
    }
    println(ctx.io.err, tier);
    const report = await withInterrupt((signal) => doctor(r, ctx.setup.vector, signal));
    const w = Math.max(...report.checks.map((c) => c.name.length));
    for (const c of report.checks) println(ctx.io.out, `${c.name.padEnd(w)}  ${STATE_MARK[c.state]}  ${oneLine(c.detail)}`);
    if (!report.healthy) throw new CliError('knowledge doctor found problems that must be fixed');
  } finally {
    r.close();
  }
}

export async function runCheck(ctx: Ctx): Promise<void> {
  const { checkIntegrity } = await import('../../knowledge/maintenance.js');
  if (!new KnowledgeReader(ctx.setup.storeDir).built()) throw new CliError(NOT_BUILT);
  const store = openWriter(ctx.setup.storeDir);
  try {
    const items = checkIntegrity(store);
    for (const i of items) println(ctx.io.out, `${i.name.padEnd(12)}  ${STATE_MARK[i.state]}  ${oneLine(i.detail)}`);
    if (items.some((i) => i.state === 'fail'))
      throw new CliError(
        "the knowledge index failed its integrity check; run 'fisk knowledge rebuild' (FTS) or 'fisk knowledge index --reindex' (vectors)",
      );
  } finally {
    store.close();
  }
}

export async function runRebuild(ctx: Ctx): Promise<void> {
  const { rebuildIndexes } = await import('../../knowledge/maintenance.js');
  if (!new KnowledgeReader(ctx.setup.storeDir).built()) throw new CliError(NOT_BUILT);
  const store = openWriter(ctx.setup.storeDir);
  try {
    rebuildIndexes(store);
    println(ctx.io.out, 'rebuilt both full-text indexes from the stored chunks (nothing was re-embedded)');
  } finally {
    store.close();
  }
}

export async function runReset(ctx: Ctx, force: boolean): Promise<void> {
  const { resetStore } = await import('../../knowledge/maintenance.js');
  const res = resetStore(ctx.setup.storeDir, force);
  if (!res.existed) {
    println(ctx.io.out, 'no knowledge index to reset');
    return;
  }
  if (res.damaged === true) {
    if (!res.done)
      throw new CliError(`knowledge reset would remove ${res.path}, which is damaged and cannot be read; re-run with --force to confirm`);
    println(ctx.io.out, `reset: removed ${res.path}, which was damaged; build it again with: fisk knowledge index`);
    return;
  }
  if (!res.done) {
    throw new CliError(
      `knowledge reset would delete ${counted(res.documents, 'document')} and ${counted(res.chunks, 'chunk')} from ${res.path}; re-run with --force to confirm`,
    );
  }
  println(ctx.io.out, `reset: removed ${counted(res.documents, 'document')} and ${counted(res.chunks, 'chunk')} from ${res.path}`);
}

export async function runVocab(ctx: Ctx, prefix: string, o: { json?: boolean; limit?: string }): Promise<void> {
  const { vocabulary } = await import('../../knowledge/maintenance.js');
  const limit = o.limit === undefined ? 100 : Number(o.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new UsageError(`--limit must be a whole number of at least 1, got ${JSON.stringify(o.limit)}`);
  const r = reader(ctx);
  try {
    const list = vocabulary(r, prefix, limit);
    // a pipe must never read "not built" as "no words"
    if (list === undefined) throw new CliError(NOT_BUILT);
    if (o.json === true) {
      println(ctx.io.out, JSON.stringify(list.map((v) => ({ term: v.term, chunks: v.chunks, occurrences: v.occurrences }))));
      return;
    }
    for (const v of list) println(ctx.io.out, `${oneLine(v.term)}\t${v.chunks}\t${v.occurrences}`);
  } finally {
    r.close();
  }
}

function stamp(): string {
  return new Date().toISOString().slice(11, 19);
}

export async function runWatch(ctx: Ctx, paths: readonly string[], options: { debounce: string; initial: boolean }): Promise<void> {
  const { startWatch } = await import('../../knowledge/watch.js');
  let debounceMs: number;
  try {
    debounceMs = parseGoDuration(options.debounce);
  } catch {
    throw new UsageError(`--debounce ${JSON.stringify(options.debounce)} is not a duration; write it like 2s or 500ms`);
  }
  if (debounceMs < 100) throw new UsageError('--debounce must be at least 100ms');
  const { roots, fromConfig } = rootsFor(ctx, paths);
  const io = ctx.io;
  const missing = roots.filter((p) => !existsSync(resolve(ctx.root, p)));
  if (missing.length === roots.length) {
    const source = fromConfig ? `harness.knowledge.paths in ${ctx.config.source}` : 'the command line';
    throw new CliError(
      `nothing to watch: none of the paths from ${source} exists (${roots.map((p) => JSON.stringify(p)).join(', ')}, relative to ${ctx.root}); create one or name an existing path`,
    );
  }
  for (const path of missing) println(io.err, `warning: ${JSON.stringify(path)} does not exist and is not watched`);
  const indexReader = reader(ctx);
  try {
    printTier(ctx, indexReader);
  } finally {
    indexReader.close();
  }
  const store = openWriter(ctx.setup.storeDir);
  try {
    await withInterrupt(async (signal) => {
      if (options.initial) {
        const res = await indexCorpus(store.db, {
          roots,
          cwd: ctx.root,
          excludeDirs: ctx.excludeDirs,
          extensions: ctx.config.harness.knowledge.extensions,
          vector: ctx.setup.vector,
          prune: fromConfig ? 'all' : 'none',
          signal,
          onNote: (n) => println(io.err, n),
        });
        if (res.canceled) return;
        reportIndex(ctx, res);
      }
      const watcher = await startWatch(store, {
        roots,
        cwd: ctx.root,
        excludeDirs: ctx.excludeDirs,
        extensions: ctx.config.harness.knowledge.extensions,
        vector: ctx.setup.vector,
        debounceMs,
        events: {
          onBatch: (keys) => {
            println(io.out, `[${stamp()}] change detected in ${counted(keys.length, 'file')}; reindexing:`);
            for (const key of keys) println(io.out, `  ${oneLine(key)}`);
          },
          onResult: (res, removed) => reportIndex(ctx, { ...res, removed }),
          onWarning: (m) => println(io.err, `[${stamp()}] warning: ${m}`),
          onError: (e) => println(io.err, `[${stamp()}] index pass failed: ${e instanceof Error ? e.message : String(e)}`),
        },
      });
      println(
        io.out,
        `watching ${counted(watcher.watchedDirectories(), 'directory', 'directories')} under ${counted(roots.length, 'path')} (debounce ${options.debounce}); press Ctrl-C to stop`,
      );
      await new Promise<void>((res) => {
        if (signal.aborted) res();
        signal.addEventListener('abort', () => res(), { once: true });
      });
      await watcher.stop();
    });
    println(io.out, 'stopped watching');
  } finally {
    store.close();
  }
}
