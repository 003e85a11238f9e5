/** Shared pieces for the MCP client tests. Not exported from the module index. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpClientConfig } from '../../config/types.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** The reference server from the MCP project, a devDependency. */
export const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
/** A server behaving as a careless or hostile third party would (huge answers, escape sequences, images). */
export const HOSTILE_SERVER = join(ROOT, 'test', 'mcp', 'fixtures', 'hostile-mcp-server.mjs');
/** The filesystem reference server from the MCP project, a devDependency. */
export const FILESYSTEM = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
/** Our raw JSON-RPC server for the cases a well-behaved server cannot produce. */
export const RAW_SERVER = join(ROOT, 'test', 'mcp', 'fixtures', 'raw-mcp-server.mjs');

const NONE = { tools: [], tags: [] } as const;

/** A complete `mcp_clients` entry with defaults a test can override. */
export function entry(over: Partial<McpClientConfig> & Pick<McpClientConfig, 'name'>): McpClientConfig {
  return {
    transport: 'stdio',
    command: process.execPath,
    args: [],
    env: {},
    url: undefined,
    headers: {},
    oauth: undefined,
    startupTimeout: { text: '20s', ms: 20_000 },
    maxOutput: 64 * 1024,
    prefix: undefined,
    confirm: { mode: 'auto' },
    include: NONE,
    exclude: NONE,
    sandbox: { enabled: false, network: false, writable: undefined },
    ...over,
  };
}

/** A free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** The reference server over streamable HTTP on `port` (a free one when not given), endpoint `/mcp`. */
export async function startEverythingHttp(port?: number): Promise<{ readonly url: string; stop(): Promise<void> }> {
  port ??= await freePort();
  const child: ChildProcess = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      if (seen.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${String(code)}): ${seen}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** With `rewording`: `nudge` announces a change that changes nothing; `reword` rewords grow's description (announced by the SDK). */
function registerRewording(server: McpServer, grow: RegisteredTool): void {
  server.registerTool('nudge', { description: 'says the list changed when it did not' }, () => {
    server.sendToolListChanged();
    return { content: [{ type: 'text', text: 'nudged' }] };
  });
  server.registerTool('reword', { description: 'changes the description of grow' }, () => {
    grow.update({ description: 'adds one more tool' });
    return { content: [{ type: 'text', text: 'reworded' }] };
  });
}

/**
 * An official-SDK server over streamable HTTP with one tool, `grow`, whose call registers a second
 * tool: the SDK then sends `tools/list_changed` on the session's event stream.
 */
export async function startGrowingHttpServer(
  options: { readonly rewording?: boolean } = {},
): Promise<{ readonly url: string; stop(): Promise<void> }> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http = createHttpServer((req, res) => {
    void (async () => {
      const id = req.headers['mcp-session-id'];
      const known = typeof id === 'string' ? transports.get(id) : undefined;
      if (known !== undefined) return known.handleRequest(req, res);
      const server = new McpServer({ name: 'growing', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
      const grow = server.registerTool('grow', { description: 'adds a tool' }, () => {
        if (!server.isConnected()) return { content: [] };
        server.registerTool('grown', { description: 'appears after growing' }, () => ({ content: [{ type: 'text', text: 'I am new' }] }));
        return { content: [{ type: 'text', text: 'grew' }] };
      });
      if (options.rewording === true) registerRewording(server, grow);
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          transports.set(sid, transport);
        },
      });
      await server.connect(transport);
      await transport.handleRequest(req, res);
    })();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      await Promise.allSettled([...transports.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** The server's text inside the fence an answer reaches the model in (the lines between the label and the closing tag). */
export function fencedBody(output: string): string {
  const lines = output.split('\n');
  if (!(lines[0] ?? '').startsWith('<mcp-data ') || lines.at(-1) !== '</mcp-data>')
    throw new Error(`not a fenced answer: ${output.slice(0, 200)}`);
  return lines.slice(2, -1).join('\n');
}
