import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Outcome, Tool } from '../../toolkit/tool.js';
import { McpClientError } from './errors.js';
import { openMcpSessions } from './sessions.js';
import type { McpSessionSet } from './sessions.js';
import { startEverythingSse, startSseOnlyServer } from './sse-test-servers.js';
import type { SseTestServer } from './sse-test-servers.js';
import { entry } from './test-support.js';

const PASSWORD = 'pa:ss/w0rd-never-printed';
const env = { ...process.env, SSE_PASSWORD: encodeURIComponent(PASSWORD) };
const opts = { env, credentialEnvNames: ['SSE_PASSWORD'] };
const signal = new AbortController().signal;

function toolOf(set: McpSessionSet, name: string): Tool {
  const t = set.sources()[0]?.tools.find((x) => x.name === name);
  if (t === undefined) throw new Error(`no tool ${name}`);
  return t;
}

function output(o: Outcome): string {
  if (o.status !== 'completed') throw new Error('expected a completed outcome');
  return o.output;
}

async function failure(p: Promise<unknown>): Promise<McpClientError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof McpClientError) return err;
    throw err;
  }
  throw new Error('expected the import to fail');
}

describe('the legacy SSE transport', () => {
  let server: SseTestServer;
  beforeAll(async () => {
    server = await startSseOnlyServer({ basic: { user: 'ops', password: PASSWORD } });
  });
  afterAll(() => server.stop());
  const url = (): string => server.url.replace('http://', 'http://ops:${SSE_PASSWORD}@');

  it('is reached by falling back when the server refuses streamable HTTP, with user:pass@ sent as Basic authorization', async () => {
    const set = await openMcpSessions([entry({ name: 'legacy', transport: 'http', command: undefined, url: url() })], opts);
    try {
      expect(output(await toolOf(set, 'whoami').execute('{}', {}, signal))).toContain('you are ops');
    } finally {
      await set.close();
    }
    const posts = server.seen.filter((r) => r.method === 'POST' && r.path === '/sse');
    expect(posts.length).toBeGreaterThan(0);
    expect(server.seen.every((r) => r.headers.authorization?.startsWith('Basic ') === true)).toBe(true);
  });

  it('is used alone with transport: sse, never trying streamable HTTP', async () => {
    const before = server.seen.length;
    const set = await openMcpSessions([entry({ name: 'legacy', transport: 'sse', command: undefined, url: url() })], opts);
    try {
      expect(output(await toolOf(set, 'whoami').execute('{}', {}, signal))).toContain('you are ops');
    } finally {
      await set.close();
    }
    const mine = server.seen.slice(before);
    expect(mine.some((r) => r.method === 'GET' && r.path === '/sse')).toBe(true);
    expect(mine.some((r) => r.method === 'POST' && r.path === '/sse')).toBe(false);
  });

  it('is not fallen back to with transport: streamable-http, and the refusal is reported without the password', async () => {
    const err = await failure(
      openMcpSessions([entry({ name: 'legacy', transport: 'streamable-http', command: undefined, url: url() })], opts),
    );
    expect(err.code).toBe('connect');
    expect(err.message).toContain('405');
    expect(err.message).toContain('MCP server "legacy" (http://REDACTED@127.0.0.1:');
    for (const leak of [PASSWORD, encodeURIComponent(PASSWORD), Buffer.from(`ops:${PASSWORD}`).toString('base64')])
      expect(err.message).not.toContain(leak);
  });

  it('does not fall back on a refused credential: a wrong password is a 401, reported as one', async () => {
    const err = await failure(
      openMcpSessions(
        [
          entry({
            name: 'legacy',
            transport: 'http',
            command: undefined,
            url: server.url.replace('http://', 'http://ops:wrong-password-here@'),
          }),
        ],
        opts,
      ),
    );
    expect(err.message).toContain('401');
    expect(err.message).not.toContain('wrong-password-here');
  });

  it('refuses user:pass@ together with an Authorization header, naming both keys', async () => {
    const err = await failure(
      openMcpSessions(
        [entry({ name: 'legacy', transport: 'sse', command: undefined, url: url(), headers: { authorization: 'Bearer x' } })],
        opts,
      ),
    );
    expect(err.message).toContain('mcp_clients[0].url carries user:pass@ and mcp_clients[0].headers sets Authorization too');
    expect(err.message).not.toContain(PASSWORD);
  });
});

describe('server-everything in its SSE mode', () => {
  let server: { readonly url: string; stop(): Promise<void> };
  beforeAll(async () => {
    server = await startEverythingSse();
  });
  afterAll(() => server.stop());

  it('is imported through the fallback from its HTML 404 and its tools answer', async () => {
    const set = await openMcpSessions([entry({ name: 'everything', transport: 'http', command: undefined, url: server.url })], opts);
    try {
      expect(output(await toolOf(set, 'echo').execute('{"message":"over sse"}', {}, signal))).toContain('over sse');
    } finally {
      await set.close();
    }
  });
});
