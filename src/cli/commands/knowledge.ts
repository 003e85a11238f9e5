import type { Command } from 'commander';
import type { Io } from '../io.js';
import { notAvailable } from '../unavailable.js';

export function registerKnowledge(program: Command, _io: Io): void {
  program
    .command('knowledge')
    .aliases(['rag', 'k'])
    .description('build and inspect the local knowledge index')
    .option('--config <file>', 'the agent configuration', 'agent.yaml')
    .option('--store-dir <dir>', 'base directory for a relative knowledge directory')
    .action(() => notAvailable('fisk knowledge', 'the knowledge store is still being built'));
}
