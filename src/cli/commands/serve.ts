/**
 * `fisk serve`: the flags. The serving code (`serve-action.ts`) loads only when the command runs.
 */
import type { Command } from 'commander';
import type { Io } from '../io.js';
import { NO_TELEMETRY_HELP } from './flags.js';
import type { ServeCommandDeps, ServeFlags } from './serve-action.js';

export type { ServeCommandDeps } from './serve-action.js';

/** Registers `fisk serve`. */
export function registerServe(program: Command, io: Io, deps: ServeCommandDeps = {}): void {
  program
    .command('serve')
    .description(
      "serve the agent: over NATS, lend the application's tools (expose.agent.a2a.serve_tools), run the prompts peers delegate (expose.agent.a2a.prompts) and take jobs from a work queue (expose.agent.jobs); answer A2A callers over HTTP (expose.agent.a2a_http) and Slack threads (expose.agent.slack)",
    )
    .option('--config <file>', 'the agent configuration', 'agent.yaml')
    .option('--work-dir <dir>', 'the directory application commands run in (default: the current directory)')
    .option('--verbose', 'print one line per served call and run: what, for whom, outcome, duration (env VERBOSE)')
    .option(
      '--log-format <format>',
      'text (the default: a line per event, stamped with the time and worker id) or json (one JSON object per line, for a log shipper)',
      'text',
    )
    .option('--no-telemetry', NO_TELEMETRY_HELP)
    .option('--workers <n>', "served runs at once, replacing every endpoint's own workers key")
    .option(
      '--state-dir <dir>',
      'where served runs are journaled, and where the file task store keeps DIR/tasks (default: harness.sessions, else the state directory)',
    )
    .option('--api-key <key>', 'the model API key of served runs (default: the provider variable)')
    .option('--base-url <url>', 'the model API base URL of served runs')
    .action(async (flags: ServeFlags) => {
      const { serve } = await import('./serve-action.js');
      await serve(flags, io, deps);
    });
}
