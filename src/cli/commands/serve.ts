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
    .description("lend the application's tools to peer agents over NATS (expose.agent.a2a.serve_tools)")
    .option('--config <file>', 'the agent configuration', 'agent.yaml')
    .option('--work-dir <dir>', 'the directory application commands run in (default: the current directory)')
    .option('--verbose', 'print one line per served call: tool, caller, outcome, duration (env VERBOSE)')
    .option('--no-telemetry', NO_TELEMETRY_HELP)
    .option('--workers <n>', 'served runs at once (refused: this build serves tools only)')
    .option('--state-dir <dir>', 'where served runs are journaled (refused: this build serves tools only)')
    .option('--api-key <key>', 'the model key of served runs (refused: this build serves tools only)')
    .option('--base-url <url>', 'the model API of served runs (refused: this build serves tools only)')
    .action(async (flags: ServeFlags) => {
      const { serve } = await import('./serve-action.js');
      await serve(flags, io, deps);
    });
}
