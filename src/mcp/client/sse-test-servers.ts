/** Servers that speak only the legacy SSE transport, for the transport tests. Not exported from the module index. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { z } from 'zod';
import { EVERYTHING, freePort } from './test-support.js';

/** A running test server: its endpoint, what it saw, and how to stop it. */
export interface SseTestServer {
  readonly url: string;
  /** Every request's method, path and headers, in arrival order. */
  readonly seen: ReadonlyArray<{ readonly method: string; readonly path: string; readonly headers: IncomingHttpHeaders }>;
  stop(): Promise<void>;
}

/**
 * An official-SDK server on `SSEServerTransport` at `/sse` (messages at `/message`), with one tool,
 * `whoami`, answering the user the request authenticated as. A POST to `/sse`, which is what a
 * streamable HTTP client sends first, gets 405 as from a server that predates that transport. With
 * `basic`, every request must carry that Basic credential or gets 401.
 */
export async function startSseOnlyServer(
  options: { readonly basic?: { readonly user: string; readonly password: string } } = {},
): Promise<SseTestServer> {
  const sessions = new Map<string, SSEServerTransport>();
  const seen: Array<{ method: string; path: string; headers: IncomingHttpHeaders }> = [];
  const expected =
    options.basic === undefined ? undefined : `Basic ${Buffer.from(`${options.basic.user}:${options.basic.password}`).toString('base64')}`;
  const http = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    seen.push({ method: req.method ?? '', path: url.pathname, headers: req.headers });
    if (expected !== undefined && req.headers.authorization !== expected) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Basic realm="test"' }).end('who are you?');
      return;
    }
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/message', res);
      sessions.set(transport.sessionId, transport);
      const server = new McpServer({ name: 'sse-only', version: '1.0.0' });
      server.registerTool(
        'whoami',
        { description: 'says who the request authenticated as', inputSchema: { shout: z.boolean().optional() } },
        () => ({
          content: [{ type: 'text', text: `you are ${options.basic?.user ?? 'anonymous'}` }],
        }),
      );
      transport.onclose = () => sessions.delete(transport.sessionId);
      void server.connect(transport);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/message') {
      const transport = sessions.get(url.searchParams.get('sessionId') ?? '');
      if (transport === undefined) {
        res.writeHead(404).end('no such session');
        return;
      }
      void transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(405, { allow: 'GET' }).end('method not allowed');
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/sse`,
    seen,
    stop: async () => {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** The reference server in its SSE mode (`/sse`), which answers a streamable HTTP POST with an HTML 404. */
export async function startEverythingSse(): Promise<{ readonly url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [EVERYTHING, 'sse'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let said = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
      if (said.includes('running on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${String(code)}): ${said}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/sse`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
