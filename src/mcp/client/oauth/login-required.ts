/** The failure of a request that only a person logging in can fix. */

/** The command that fixes it, as the operator types it. */
export function loginCommand(server: string): string {
  return `fisk mcp login ${server}`;
}

/**
 * Thrown when an MCP server wants an authorization this process cannot obtain by itself (no
 * stored login, a refresh the server refused, or a scope only a new login can grant). The message
 * names the command to run.
 */
export class McpLoginRequired extends Error {
  readonly server: string;

  constructor(server: string, why: string) {
    super(
      `MCP server ${JSON.stringify(server)} needs a login: ${why}; run \`${loginCommand(server)}\` (with this agent's --config) and start again`,
    );
    this.name = 'McpLoginRequired';
    this.server = server;
  }
}

/** The `McpLoginRequired` somewhere in `err`'s cause chain, if any. */
export function loginRequiredIn(err: unknown): McpLoginRequired | undefined {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 10; depth++) {
    if (e instanceof McpLoginRequired) return e;
    e = e instanceof Error ? e.cause : undefined;
  }
  return undefined;
}
