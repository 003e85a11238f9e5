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
    .action(async (paths: string[], o: { reindex?: boolean; dryRun?: boolean; prune?: boolean }, cmd: Command) => {
      const a = await actions();
      return a.runIndex(a.context(cmd, io), paths, o);
    });
  kn.command('search <query...>')
    .description('rank chunks for a free-text query')
    .option('--top-k <n>', 'results to return (0 = harness.knowledge.top_k)')
    .option('--full', 'print whole chunks')
    .option('--json', 'print JSON')
    .action(async (query: string[], o: { topK?: string; full?: boolean; json?: boolean }, cmd: Command) => {
      const a = await actions();
      return a.runSearch(a.context(cmd, io), query.join(' '), o);
    });
  kn.command('eval <questions>')
    .description('measure search on your own questions: recall@1, recall@5 and MRR (lines: question<TAB>path|path)')
    .option('--depth <n>', 'documents searched per question, 5 to 50', '10')
    .option('--misses-only', 'list only the questions whose first hit is not an answer')
    .option('--json', 'print JSON')
    .action(async (questions: string, o: { depth?: string; json?: boolean; missesOnly?: boolean }, cmd: Command) => {
      const a = await actions();
      return a.runEval(a.context(cmd, io), questions, o);
    });
  kn.command('match <query...>')
    .description('list every document holding all the words (words, "phrases", -word, heading:/body:)')
    .option('--exit-code', `exit ${EXIT.noMatch} when nothing matches`)
    .option('--json', 'print JSON')
    .option('--limit <n>', 'documents to list (the total is always reported)')
    .action(async (query: string[], o: { exitCode?: boolean; json?: boolean; limit?: string }, cmd: Command) => {
      const a = await actions();
      return a.runMatch(a.context(cmd, io), query.join(' '), o);
    });
  kn.command('show <citation>')
    .description('print the chunk a citation (path#ordinal) names')
    .action(async (citation: string, _o: unknown, cmd: Command) => {
      const a = await actions();
      return a.runShow(a.context(cmd, io), citation);
    });
  kn.command('sources')
    .description('list indexed files')
    .action(async (_o: unknown, cmd: Command) => {
      const a = await actions();
      return a.runSources(a.context(cmd, io));
    });
  kn.command('rm <paths...>')
    .description('remove indexed files (a directory removes every file under it)')
    .action(async (paths: string[], _o: unknown, cmd: Command) => {
      const a = await actions();
      return a.runRm(a.context(cmd, io), paths);
    });
  kn.command('stats')
    .description('counts and sizes of the index')
    .action(async (_o: unknown, cmd: Command) => {
      const a = await actions();
      return a.runStats(a.context(cmd, io));
    });
  kn.command('doctor')
    .description('check the store and probe the embeddings server')
    .action(async (_o: unknown, cmd: Command) => {
      const a = await actions();
      return a.runDoctor(a.context(cmd, io));
    });
  kn.command('check')
    .description('verify both full-text indexes and the vectors against the chunks')
    .action(async (_o: unknown, cmd: Command) => {
      const a = await actions();
      return a.runCheck(a.context(cmd, io));
    });
  kn.command('rebuild')
    .description('re-derive both full-text indexes from the chunks (re-embeds nothing)')
    .action(async (_o: unknown, cmd: Command) => {
      const a = await actions();
      return a.runRebuild(a.context(cmd, io));
    });
  kn.command('reset')
    .description('drop every table of the index')
    .option('--force', 'really do it')
    .action(async (o: { force?: boolean }, cmd: Command) => {
      const a = await actions();
      return a.runReset(a.context(cmd, io), o.force === true);
    });
  kn.command('vocab [prefix]')
    .description('list indexed words (exact, unstemmed) starting with a prefix')
    .option('--json', 'print JSON')
    .option('--limit <n>', 'words to list', '100')
    .action(async (prefix: string | undefined, o: { json?: boolean; limit?: string }, cmd: Command) => {
      const a = await actions();
      return a.runVocab(a.context(cmd, io), prefix ?? '', o);
    });
  kn.command('watch [paths...]')
    .description('index, then re-index files as they change')
    .option('--debounce <duration>', 'quiet time before a pass', '2s')
    .option('--no-initial', 'skip the initial full pass')
    .action(async (paths: string[], o: { debounce: string; initial: boolean }, cmd: Command) => {
      const a = await actions();
      return a.runWatch(a.context(cmd, io), paths, o);
    });
}
