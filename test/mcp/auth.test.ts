// End to end: a real `fisk mcp` listening on every interface with a bearer token, reached by the
// official SDK client over streamable HTTP with and without the token.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resultText } from '../../src/mcp/server/test-support.js';
import { agentDir, ensureBuilt, startFiskMcp } from './support.js';
import type { FiskMcp } from './support.js';

const FISK_APP = fileURLToPath(new URL('../fixtures/fisk-app.mjs', import.meta.url));
const TOKEN = 'served-token-4f1c9a7e2b6d8053';

const clients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});

/** An SDK client sending `authorization` with every request, when given. */
async function connect(url: string, authorization?: string): Promise<Client> {
  const client = new Client({ name: 'fisk-auth-test', version: '1.0.0' });
  const requestInit: RequestInit = authorization === undefined ? {} : { headers: { Authorization: authorization } };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
  clients.push(client);
  return client;
}

describe('fisk mcp off loopback with auth_token_env', () => {
  let server: FiskMcp;
  let agent: ReturnType<typeof agentDir>;
  // a process whose environment holds the token, as fisk's own does, for a tool to read
  let holder: ChildProcess;

  beforeAll(async () => {
    ensureBuilt();
    holder = spawn('sleep', ['300'], { env: { PATH: process.env['PATH'], SERVED_MCP_TOKEN: TOKEN }, stdio: 'ignore' });
    agent = agentDir(
      `identity: tokened\napplication_path: ${FISK_APP}\nexpose:\n  agent:\n    mcp:\n      address: 0.0.0.0\n      auth_token_env: SERVED_MCP_TOKEN\n    tools:\n      include: { tools: ['^(env|echo)$'] }\n`,
    );
    server = await startFiskMcp(agent.config, agent.dir, { SERVED_MCP_TOKEN: TOKEN, FIXTURE_READ_ENVIRON: String(holder.pid) });
  }, 240_000);

  afterAll(async () => {
    holder.kill('SIGKILL');
    await server.kill();
    agent.cleanup();
  });

  it('warns that it is not on loopback and prints the header to add, never the token', () => {
    const err = server.stderr();
    expect(err).toMatch(
      /warning: serving on 0\.0\.0\.0, which is not a loopback address: anyone who can reach the port and holds the token can call the tools/,
    );
    expect(err).toMatch(
      /claude mcp add --transport http tokened http:\/\/localhost:\d+\/mcp --header "Authorization: Bearer \$SERVED_MCP_TOKEN"/,
    );
    expect(err).not.toContain(TOKEN);
  });

  it('refuses a client without the token', async () => {
    await expect(connect(server.url)).rejects.toMatchObject({
      code: 401,
      message: expect.stringMatching(/unauthorized: send Authorization: Bearer <token>/) as unknown,
    });
  });

  it('refuses a client with a wrong token, or the right one under another scheme', async () => {
    await expect(connect(server.url, 'Bearer served-token-4f1c9a7e2b6d8054')).rejects.toMatchObject({
      code: 401,
      message: expect.stringMatching(/not the one this server was started with/) as unknown,
    });
    await expect(connect(server.url, `Basic ${TOKEN}`)).rejects.toMatchObject({ code: 401 });
  });

  it('answers 401 with a Bearer challenge, never echoing what was sent', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const body = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';
    const none = await fetch(server.url, { method: 'POST', headers, body });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="fisk-ai"');
    const wrong = await fetch(server.url, { method: 'POST', headers: { ...headers, authorization: 'Bearer not-the-token-at-all' }, body });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer realm="fisk-ai", error="invalid_token"');
    expect(await wrong.text()).not.toContain('not-the-token-at-all');
  });

  it('refuses a browser request from another origin even with the token', async () => {
    const r = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${TOKEN}`,
        origin: 'https://evil.example',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(r.status).toBe(403);
  });

  it('serves a client with the token, whose tools never see it', async () => {
    const c = await connect(server.url, `Bearer ${TOKEN}`);
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['echo', 'env']);
    const r = await c.callTool({ name: 'env', arguments: {} });
    expect(r.isError).toBeFalsy();
    const output = (JSON.parse(resultText(r)) as { output: string }).output;
    const env = JSON.parse(output) as Record<string, string>;
    expect(env['SERVED_MCP_TOKEN']).toBeUndefined();
    expect(output).not.toContain(TOKEN);
  });

  it('scrubs the token from what a tool prints, even read from another process', async () => {
    const c = await connect(server.url, `Bearer ${TOKEN}`);
    const r = await c.callTool({ name: 'echo', arguments: { first: 'x' } });
    const text = resultText(r);
    expect(text).toContain('SERVED_MCP_TOKEN=[SERVED_MCP_TOKEN-REDACTED]');
    expect(text).not.toContain(TOKEN);
  });

  it('keeps the token out of the log', () => {
    expect(server.stderr()).not.toContain(TOKEN);
  });
});

describe('fisk mcp refuses to start', () => {
  async function refusal(yaml: string, env: Record<string, string> = {}): Promise<string> {
    ensureBuilt();
    const agent = agentDir(yaml);
    try {
      const started = await startFiskMcp(agent.config, agent.dir, env).then(
        async (s) => {
          await s.kill();
          return undefined;
        },
        (err: unknown) => (err instanceof Error ? err.message : String(err)),
      );
      if (started === undefined) throw new Error('fisk mcp started');
      return started;
    } finally {
      agent.cleanup();
    }
  }

  it('off loopback without auth_token_env, naming the key', async () => {
    const err = await refusal(`identity: open\napplication_path: ${FISK_APP}\nexpose:\n  agent:\n    mcp:\n      address: 0.0.0.0\n`);
    expect(err).toMatch(/exited with 3/);
    expect(err).toMatch(
      /refusing to serve on 0\.0\.0\.0, which is not a loopback address, without a token.*set expose\.agent\.mcp\.auth_token_env/s,
    );
  }, 60_000);

  it('when the variable auth_token_env names is not set or empty, naming it', async () => {
    const yaml = `identity: open\napplication_path: ${FISK_APP}\nexpose:\n  agent:\n    mcp:\n      auth_token_env: SERVED_MCP_TOKEN\n`;
    for (const env of [{}, { SERVED_MCP_TOKEN: '' }]) {
      const err = await refusal(yaml, env);
      expect(err).toMatch(/expose\.agent\.mcp\.auth_token_env names SERVED_MCP_TOKEN, which is not set or empty/);
    }
  }, 60_000);
});
