/** The Model Context Protocol: serving this agent's tools to MCP clients. */
export * from './server/index.js';
