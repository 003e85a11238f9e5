import type { Command } from 'commander';
import type { Io } from '../io.js';
import type { InfoOptions } from './info-action.js';

export type { InfoReport, InfoTool } from './info-report.js';

export function registerInfo(program: Command, io: Io): void {
  program
    .command('info')
    .description('show the effective configuration, its origins, the model, the tools and the prompt')
    .option('--config <file>', 'the agent configuration', 'agent.yaml')
    .option('--json', 'print a stable machine-readable document')
    .option('--all', 'also list the tools left out of the set, with the reason')
    .action(async (opts: InfoOptions) => {
      const { runInfo } = await import('./info-action.js');
      await runInfo(io, opts);
    });
}
