/**
 * `fisk run [query...]`: the flags. The command's code (`run-action.ts`, or `run-remote.ts` for a
 * remote agent) loads only when the command runs, so registering it costs nothing at start-up.
 */
import type { Command } from 'commander';
import type { Io } from '../io.js';
import { HTTP_DEBUG_HELP, isRemoteRun, NO_TELEMETRY_HELP, TRACE_HELP } from './flags.js';
import type { RunCommandDeps, RunFlags } from './run-options.js';

export type { RunCommandDeps } from './run-options.js';

export { HTTP_DEBUG_FILE } from './flags.js';

/** Registers `fisk run`. `deps` replaces process resources for tests and embedding hosts. */
export function registerRun(program: Command, io: Io, deps: RunCommandDeps = {}): void {
  program
    .command('run')
    .description('run the agent on a prompt and print its answer')
    .argument('[query...]', 'the prompt, joined with spaces')
    .option('--config <file>', 'the agent configuration', 'agent.yaml')
    .option('--api-key <key>', "the model API key (default: the provider's own variable, e.g. ANTHROPIC_API_KEY)")
    .option('--base-url <url>', "the model API base URL (default: the provider's variable, e.g. ANTHROPIC_BASE_URL, then llm.base_url)")
    .option('--tool-output', 'print tool results on stderr (env TOOL_OUTPUT)')
    .option('--no-color', 'print the answer as raw markdown, and stderr lines and the full-screen view without colour (env NO_COLOR)')
    .option('--verbose', 'print more on stderr: prose between tool calls, loop phases (env VERBOSE)')
    .option('--http-debug', HTTP_DEBUG_HELP)
    .option('--no-tui', 'use the line surface instead of the full-screen view, without its status line (env NO_TUI)')
    .option('--trace <file>', TRACE_HELP)
    .option('--checkpoint', 'journal the run so it can be suspended and resumed (harness.sessions)')
    .option('--name <id>', 'the run id for --checkpoint (default: a generated time-sortable id)')
    .option(
      '--resume <id>',
      'resume a checkpointed run; no query (the prompt is restored from the run); with --nats-context, continue that remote conversation',
    )
    .option('--force', 'resume despite configuration changes (not a provider change); only with --resume')
    .option('--model <name>', 'the model to use for this run instead of llm.model')
    .option('--state-dir <dir>', 'the file session backend directory (default: $XDG_STATE_HOME/fisk-ai/runs)')
    .option('--nats-context <name>', 'run on an agent served over this NATS context instead of hosting one here')
    .option('--identity <agent>', 'with --nats-context: the agent to run on (default: the identity in --config)')
    .option('--no-telemetry', NO_TELEMETRY_HELP)
    .action(async (query: string[], flags: RunFlags, command: Command) => {
      if (isRemoteRun(flags)) {
        const { runRemoteCommand } = await import('./run-remote.js');
        return runRemoteCommand(query, flags, command, io, deps);
      }
      // the application is started and the configuration read before the run code loads, so the
      // application answers its introspection while that code loads
      const { prepareRun } = await import('./run-prepare.js');
      const prepared = await prepareRun(query, flags, io, deps);
      try {
        const { runCommand } = await import('./run-action.js');
        await runCommand(query, flags, io, deps, prepared);
      } finally {
        prepared.stopLoading();
        await prepared.introspection?.discard();
      }
    });
}
