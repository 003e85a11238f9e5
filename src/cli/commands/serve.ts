import type { Command } from 'commander';
import type { Io } from '../io.js';
import { notAvailable } from '../unavailable.js';

export function registerServe(program: Command, _io: Io): void {
  program
    .command('serve')
    .description('(not built yet) serve the agent to peers, work queues and Slack as the configuration enables')
    .option('--config <file>', 'the agent configuration', 'agent.yaml')
    .action(() => notAvailable('fisk serve', 'serving channels are still being built'));
}
