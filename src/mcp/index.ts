/** The Model Context Protocol: serving this agent's tools to MCP clients, and importing tools from MCP servers. */
export * from './server/index.js';
export * from './client/index.js';
