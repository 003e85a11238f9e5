import type { Command } from 'commander';
import type { Io } from '../io.js';
import { notAvailable } from '../unavailable.js';

export function registerDiscover(program: Command, _io: Io): void {
  program
    .command('discover')
    .description("fetch a peer agent's card over NATS and list its tools")
    .argument('<agent>', 'the identity of the agent to discover')
    .option('--config <file>', 'read nats_context from this configuration', 'agent.yaml')
    .option('--context <name>', 'the NATS context to use instead of the configuration')
    .action(() => notAvailable('fisk discover', 'the agent-to-agent protocol is still being built'));
}
