import type { Command } from 'commander';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';

/** The subcommands' code, with the knowledge store behind it, loads only when one of them runs. */
const actions = () => import('./knowledge-actions.js');

/** Registers `fisk knowledge` (aliases `rag`, `k`) and its subcommands. */
export function registerKnowledge(program: Command, io: Io): void {
  const kn = program
    .command('knowledge')
    .aliases(['rag', 'k'])
    .description('build and inspect the local knowledge index behind the knowledge tools')
    .option('--config <file>', 'the agent configuration', 'agent.yaml')
    .option('--store-dir <dir>', 'absolute base directory for a relative harness.knowledge.directory (env FISK_AI_STORE_DIR)');
  kn.command('index [paths...]')
    .description('index files (default: harness.knowledge.paths, removing files that are gone)')
    .option('--reindex', 're-process unchanged files and re-embed them')
    .option('--dry-run', 'report what would change without writing')
    .option('--prune', 'with explicit paths, remove indexed files under them that no longer exist')
    .action(async (paths: string[], options: { reindex?: boolean; dryRun?: boolean; prune?: boolean }, cmd: Command) => {
      const knowledge = await actions();
      return knowledge.act(cmd, io, (ctx) => knowledge.runIndex(ctx, paths, options));
    });
  kn.command('search <query...>')
    .description('rank chunks for a free-text query')
    .option('--top-k <n>', 'results to return (0 = harness.knowledge.top_k)')
    .option('--full', 'print whole chunks')
    .option('--json', 'print JSON')
    .action(async (query: string[], options: { topK?: string; full?: boolean; json?: boolean }, cmd: Command) => {
      const knowledge = await actions();
      return knowledge.act(cmd, io, (ctx) => knowledge.runSearch(ctx, query.join(' '), options));
    });
  kn.command('eval <questions>')
    .description('measure search on your own questions: recall@1, recall@5 and MRR (lines: question<TAB>path|path)')
    .option('--depth <n>', 'documents searched per question, 5 to 50', '10')
    .option('--misses-only', 'list only the questions whose first hit is not an answer')
    .option('--json', 'print JSON')
    .action(async (questions: string, options: { depth?: string; json?: boolean; missesOnly?: boolean }, cmd: Command) => {
      const knowledge = await actions();
      return knowledge.act(cmd, io, (ctx) => knowledge.runEval(ctx, questions, options));
    });
  kn.command('match <query...>')
    .description('list every document holding all the words (words, "phrases", -word, heading:/body:)')
    .option('--exit-code', `exit ${EXIT.noMatch} when nothing matches`)
    .option('--json', 'print JSON')
    .option('--limit <n>', 'documents to list (the total is always reported)')
    .action(async (query: string[], options: { exitCode?: boolean; json?: boolean; limit?: string }, cmd: Command) => {
      const knowledge = await actions();
      return knowledge.act(cmd, io, (ctx) => knowledge.runMatch(ctx, query.join(' '), options));
    });
  kn.command('show <citation>')
    .description('print the chunk a citation (path#ordinal) names')
    .action(async (citation: string, _o: unknown, cmd: Command) => {
      const knowledge = await actions();
      return knowledge.act(cmd, io, (ctx) => knowledge.runShow(ctx, citation));
    });
  kn.command('sources')
    .description('list indexed files')
    .action(async (_o: unknown, cmd: Command) => {
      const knowledge = await actions();
      return knowledge.act(cmd, io, (ctx) => knowledge.runSources(ctx));
    });
  kn.command('rm <paths...>')
    .description('remove indexed files (a directory removes every file under it)')
    .action(async (paths: string[], _o: unknown, cmd: Command) => {
      const knowledge = await actions();
      return knowledge.act(cmd, io, (ctx) => knowledge.runRm(ctx, paths));
    });
  kn.command('stats')
    .description('counts and sizes of the index')
    .action(async (_o: unknown, cmd: Command) => {
      const knowledge = await actions();
      return knowledge.act(cmd, io, (ctx) => knowledge.runStats(ctx));
    });
  kn.command('doctor')
    .description('check the store and probe the embeddings server')
    .action(async (_o: unknown, cmd: Command) => {
      const knowledge = await actions();
      return knowledge.act(cmd, io, (ctx) => knowledge.runDoctor(ctx));
    });
  kn.command('check')
    .description('verify both full-text indexes and the vectors against the chunks')
    .action(async (_o: unknown, cmd: Command) => {
      const knowledge = await actions();
      return knowledge.act(cmd, io, (ctx) => knowledge.runCheck(ctx));
    });
  kn.command('rebuild')
    .description('re-derive both full-text indexes from the chunks (re-embeds nothing)')
    .action(async (_o: unknown, cmd: Command) => {
      const knowledge = await actions();
      return knowledge.act(cmd, io, (ctx) => knowledge.runRebuild(ctx));
    });
  kn.command('reset')
    .description('drop every table of the index')
    .option('--force', 'really do it')
    .action(async (options: { force?: boolean }, cmd: Command) => {
      const knowledge = await actions();
      return knowledge.act(cmd, io, (ctx) => knowledge.runReset(ctx, options.force === true));
    });
  kn.command('vocab [prefix]')
    .description('list indexed words (exact, unstemmed) starting with a prefix')
    .option('--json', 'print JSON')
    .option('--limit <n>', 'words to list', '100')
    .action(async (prefix: string | undefined, options: { json?: boolean; limit?: string }, cmd: Command) => {
      const knowledge = await actions();
      return knowledge.act(cmd, io, (ctx) => knowledge.runVocab(ctx, prefix ?? '', options));
    });
  kn.command('watch [paths...]')
    .description('index, then re-index files as they change')
    .option('--debounce <duration>', 'quiet time before a pass', '2s')
    .option('--no-initial', 'skip the initial full pass')
    .action(async (paths: string[], options: { debounce: string; initial: boolean }, cmd: Command) => {
      const knowledge = await actions();
      return knowledge.act(cmd, io, (ctx) => knowledge.runWatch(ctx, paths, options));
    });
}
