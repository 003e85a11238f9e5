import type { Command } from 'commander';
import type { Io } from '../io.js';
import { notAvailable } from '../unavailable.js';

export function registerMcp(program: Command, _io: Io): void {
  program
    .command('mcp')
    .description('serve the selected tools over the Model Context Protocol (streamable HTTP)')
    .option('--config <file>', 'the agent configuration', 'agent.yaml')
    .action(() => notAvailable('fisk mcp', 'the MCP server is still being built'));
}
