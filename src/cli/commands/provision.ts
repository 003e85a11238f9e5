/**
 * `fisk provision`: creates every JetStream stream, consumer and bucket the configuration names
 * (the jobs stream and consumer, the session stream, the task and memory buckets), or checks the
 * ones that exist and reports how they differ. The provisioning code loads only when it runs.
 */
import type { Command } from 'commander';
import type { Io } from '../io.js';
import type { ProvisionFlags } from './provision-action.js';

/** Registers `fisk provision`. */
export function registerProvision(program: Command, io: Io): void {
  program
    .command('provision')
    .description(
      'create the JetStream streams, consumer and buckets the configuration names, or check the ones that exist and report how they differ',
    )
    .option('--config <file>', 'the agent configuration', 'agent.yaml')
    .option('--replicas <n>', 'replicas for what is created and expected of what exists (default: 3 on a clustered server, else 1)')
    .action(async (flags: ProvisionFlags) => {
      const { provisionCommand } = await import('./provision-action.js');
      await provisionCommand(flags, io);
    });
}
