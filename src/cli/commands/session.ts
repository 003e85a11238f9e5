import type { Command } from 'commander';
import type { Io } from '../io.js';
import { notAvailable } from '../unavailable.js';

export function registerSession(program: Command, _io: Io): void {
  program
    .command('session')
    .description('list, show, answer and remove checkpointed runs')
    .option('--config <file>', 'use the session backend this configuration names')
    .option('--state-dir <dir>', 'the file backend directory')
    .action(() => notAvailable('fisk session', 'durable runs are still being built'));
}
