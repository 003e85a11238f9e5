import type { Command } from 'commander';
import type { Io } from '../io.js';
import { notAvailable } from '../unavailable.js';

export function registerRun(program: Command, _io: Io): void {
  program
    .command('run')
    .description('run the agent on a prompt and print its answer')
    .argument('[query...]', 'the prompt, joined with spaces')
    .option('--config <file>', 'the agent configuration', 'agent.yaml')
    .action(() => notAvailable('fisk run', 'the agent loop is still being built'));
}
