// End to end: the official SDK client over real HTTP against a real `fisk mcp` process serving a
// fixture application.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, resultText, until } from '../../src/mcp/server/test-support.js';
import type { ElicitAnswer } from '../../src/mcp/server/test-support.js';
import { agentDir, alive, ensureBuilt, PID_APP, startFiskMcp } from './support.js';
import type { FiskMcp } from './support.js';

const yaml = (extra = ''): string => `identity: pidapp-agent
application_path: ${PID_APP}
harness:
  memory: { enabled: true }
expose:
  agent:
    mcp:
      instructions: Ask before purging anything.
      tool_timeout: 3s
${extra}`;

const clients: Client[] = [];
async function client(url: string, elicit?: ElicitAnswer): Promise<Client> {
  const c = await connectClient(url, elicit);
  clients.push(c);
  return c;
}
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});

describe('fisk mcp serving a fixture application', () => {
  let server: FiskMcp;
  let agent: ReturnType<typeof agentDir>;

  beforeAll(async () => {
    ensureBuilt();
    agent = agentDir(yaml());
    server = await startFiskMcp(agent.config, agent.dir, { PIDFILE: join(agent.dir, 'pids') });
  }, 240_000);

  afterAll(async () => {
    await server.kill();
    agent.cleanup();
  });

  it('prints the served tools, the settings that do nothing and the claude hint', () => {
    const err = server.stderr();
    expect(err).toMatch(/warning: harness\.memory has no effect over MCP/);
    expect(err).toMatch(/note: not serving secret \(denied\)/);
    expect(err).toMatch(/warning: confirm_over_mcp is auto: confirm-gated tools \(purge\) run ungated for clients that cannot be asked/);
    expect(err).toMatch(
      /Serving 4 tools over MCP at http:\/\/127\.0\.0\.1:\d+\/mcp as pidapp-agent\/2\.0\.0 \(every path answers; clients usually use \/mcp\)\n {2}echo\n {2}purge\n {2}hang\n {2}fail\n/,
    );
    expect(err).toMatch(/claude mcp add --transport http pidapp-agent http:\/\/127\.0\.0\.1:\d+\/mcp\n/);
  });

  it('lists names, descriptions with tags, schemas and annotations', async () => {
    const c = await client(server.url);
    expect(c.getServerVersion()).toMatchObject({ name: 'pidapp-agent', version: '2.0.0' });
    expect(c.getInstructions()).toBe('Ask before purging anything.');
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo', 'purge', 'hang', 'fail']);
    const echo = tools[0];
    expect(echo?.description).toBe('Echoes a word\n\nTags: ai:read_only, ai:idempotent');
    expect(echo?.inputSchema).toMatchObject({ type: 'object', properties: { word: { type: 'string' } }, required: ['word'] });
    expect(echo?.annotations).toEqual({ title: 'Echo', readOnlyHint: true, idempotentHint: true });
    expect(tools[1]?.annotations).toEqual({ title: 'Purge', destructiveHint: true });
  });

  it('returns a command result envelope with the exit code', async () => {
    const c = await client(server.url);
    const ok = await c.callTool({ name: 'echo', arguments: { word: 'hello' } });
    expect(ok.isError).toBeFalsy();
    expect(JSON.parse(resultText(ok))).toEqual({ command: 'echo -- hello', exit_code: 0, output: 'echo: hello\n' });
    const failed = await c.callTool({ name: 'fail', arguments: {} });
    expect(JSON.parse(resultText(failed))).toEqual({ command: 'fail', exit_code: 3, output: 'failing on purpose\n' });
  });

  it('answers a missing required argument and an unknown tool as error results', async () => {
    const c = await client(server.url);
    const missing = await c.callTool({ name: 'echo', arguments: {} });
    expect(missing.isError).toBe(true);
    expect(resultText(missing)).toMatch(/word/);
    const unknown = await c.callTool({ name: 'secret', arguments: {} });
    expect(unknown.isError).toBe(true);
  });

  it('asks before a gated command and runs it on approval', async () => {
    const asked: string[] = [];
    const c = await client(server.url, (p) => {
      asked.push(p.message);
      return Promise.resolve({ action: 'accept', content: { approve: true } });
    });
    const r = await c.callTool({ name: 'purge', arguments: { target: 'cache' } });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/purge/);
    expect(asked[0]).toMatch(/ai:confirm/);
    expect(JSON.parse(resultText(r))).toMatchObject({ exit_code: 0, output: 'purged cache\n' });
  });

  it('denies a gated command the client declines, or answers with a non-boolean', async () => {
    for (const answer of [{ action: 'decline' }, { action: 'accept', content: { approve: 'yes' } }]) {
      const c = await client(server.url, () => Promise.resolve(answer));
      const r = await c.callTool({ name: 'purge', arguments: { target: 'cache' } });
      expect(r.isError).toBe(true);
      expect(JSON.parse(resultText(r))).toMatchObject({
        allowed: false,
        reason: expect.stringMatching(/so the call was not run; .*do not retry it: ask the user what they want instead$/) as unknown,
      });
    }
  });

  it('runs a gated command ungated for a client that cannot be asked (auto)', async () => {
    const c = await client(server.url);
    const r = await c.callTool({ name: 'purge', arguments: { target: 'logs' } });
    expect(JSON.parse(resultText(r))).toMatchObject({ exit_code: 0, output: 'purged logs\n' });
  });

  it('kills a timed-out command together with its grandchild', async () => {
    const c = await client(server.url);
    const r = await c.callTool({ name: 'hang', arguments: {} });
    expect(r.isError).toBe(true);
    expect(resultText(r)).toMatch(/did not finish within 3s and was stopped/);
    const [leader, grandchild] = readFileSync(join(agent.dir, 'pids'), 'utf8').trim().split(' ').map(Number) as [number, number];
    await until(() => !alive(leader) && !alive(grandchild), 'the command and its grandchild to be gone');
    expect(alive(grandchild)).toBe(false);
  });

  it('answers protocol errors with the JSON-RPC codes the specification gives', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const post = async (body: string, session?: string): Promise<string> => {
      const r = await fetch(server.url, {
        method: 'POST',
        headers: session === undefined ? headers : { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
        body,
      });
      return r.text();
    };
    expect(await post('{"jsonrpc":"2.0","id":1,')).toContain('"code":-32700');
    expect(await post('"initialize"')).toContain('"code":-32600');
    const init = await fetch(server.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    const session = init.headers.get('mcp-session-id') ?? '';
    await init.text();
    await post('{"jsonrpc":"2.0","method":"notifications/initialized"}', session);
    expect(await post('{"jsonrpc":"2.0","id":2,"method":"resources/frobnicate"}', session)).toContain('"code":-32601');
    expect(await post('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":["hello"]}}', session)).toContain(
      '"code":-32602',
    );
    await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } });
  });

  it('logs each answered call and each denial by tool name, without arguments', () => {
    const err = server.stderr();
    expect(err).toMatch(/^called echo$/m);
    expect(err).toMatch(/^called hang \(error\)$/m);
    expect(err).toMatch(/^denied purge: the client declined the call$/m);
    expect(err).not.toMatch(/cache/);
  });
});

describe('fisk mcp confirm_over_mcp: always', () => {
  it('refuses a gated command for a client that cannot be asked', async () => {
    ensureBuilt();
    const agent = agentDir(yaml('      confirm_over_mcp: always\n'));
    const server = await startFiskMcp(agent.config, agent.dir);
    try {
      const c = await client(server.url);
      const r = await c.callTool({ name: 'purge', arguments: { target: 'cache' } });
      expect(r.isError).toBe(true);
      expect(resultText(r)).toMatch(/cannot be asked/);
      expect(server.stderr()).not.toMatch(/warning: confirm_over_mcp/);
    } finally {
      await server.kill();
      agent.cleanup();
    }
  }, 60_000);
});

describe('fisk mcp serving no gated tool', () => {
  it('does not warn that confirm_over_mcp lets gated tools run unasked', async () => {
    ensureBuilt();
    const agent = agentDir(
      `identity: pidapp-agent\napplication_path: ${PID_APP}\nexpose:\n  agent:\n    tools: {exclude: {tools: ['^purge$']}}\n    mcp: {confirm_over_mcp: never}\n`,
    );
    const server = await startFiskMcp(agent.config, agent.dir);
    try {
      expect(server.stderr()).toMatch(/Serving 3 tools over MCP/);
      expect(server.stderr()).not.toMatch(/confirm_over_mcp is|confirm-gated/);
    } finally {
      await server.kill();
      agent.cleanup();
    }
  }, 60_000);
});

describe('fisk mcp with mcp_clients configured', () => {
  it('serves only its own tools, says so, and never starts the servers', async () => {
    ensureBuilt();
    // a server that cannot start: were it started, fisk would stop with a missing program
    const agent = agentDir(
      `identity: pidapp-agent\napplication_path: ${PID_APP}\nmcp_clients:\n  - {name: fs, command: /nonexistent/mcp-server, confirm: always}\nexpose:\n  agent:\n    mcp: {}\n`,
    );
    const server = await startFiskMcp(agent.config, agent.dir);
    try {
      expect(server.stderr()).toMatch(/note: mcp_clients are not served over MCP: .*so those servers are not started/);
      const c = await client(server.url);
      expect((await c.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'purge', 'hang', 'fail']);
    } finally {
      await server.kill();
      agent.cleanup();
    }
  }, 60_000);
});

describe('fisk mcp shutdown', () => {
  it('stops on Ctrl-C with an event stream held open', async () => {
    ensureBuilt();
    const agent = agentDir(yaml());
    const server = await startFiskMcp(agent.config, agent.dir);
    try {
      const c = await connectClient(server.url);
      // the SDK client holds a GET event stream open once initialized; list to be sure the session is live
      await c.listTools();
      server.child.kill('SIGINT');
      expect(await server.exited).toBe(0);
      expect(server.stderr()).toMatch(/MCP server stopped/);
      await c.close().catch(() => undefined);
    } finally {
      await server.kill();
      agent.cleanup();
    }
  }, 60_000);

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`answers a call in flight as not completed on ${signal}, leaving no process of its command behind`, async () => {
      ensureBuilt();
      const agent = agentDir(
        `identity: pidapp-agent\napplication_path: ${PID_APP}\nexpose:\n  agent:\n    mcp:\n      tool_timeout: 10m\n`,
      );
      const pids = join(agent.dir, 'pids');
      const server = await startFiskMcp(agent.config, agent.dir, { PIDFILE: pids });
      try {
        const c = await connectClient(server.url);
        // the client would give up only after ten minutes: an answer now comes from the server
        const call = c.callTool({ name: 'hang', arguments: {} }, undefined, { timeout: 600_000 });
        await until(() => existsSync(pids) && readFileSync(pids, 'utf8').includes('\n'), 'the command and its grandchild to start');
        const [leader, grandchild] = readFileSync(pids, 'utf8').trim().split(' ').map(Number) as [number, number];
        server.child.kill(signal);
        const r = await call;
        expect(r.isError).toBe(true);
        expect(resultText(r)).toMatch(
          /^the server is shutting down, so the call to hang did not complete .*retried once the server is back$/,
        );
        expect(await server.exited).toBe(0);
        expect(server.stderr()).toMatch(/MCP server stopped/);
        // killed before the answer was sent; the kernel's reaping of them is not awaited by anyone
        await until(() => !alive(leader) && !alive(grandchild), 'the command and its grandchild to be gone');
        await c.close().catch(() => undefined);
      } finally {
        await server.kill();
        agent.cleanup();
      }
    }, 60_000);
  }
});
