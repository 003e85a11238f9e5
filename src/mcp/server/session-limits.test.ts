import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { jsonOutcome, newFuncTool } from '../../toolkit/functool/index.js';
import type { FuncToolSpec } from '../../toolkit/functool/index.js';
import type { Tool } from '../../toolkit/tool.js';
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, startMcpServer } from './http-server.js';
import type { McpServerOptions, RunningMcpServer } from './http-server.js';
import { connectClient, resultText, until } from './test-support.js';
import type { UngatedCall } from './ungated.js';

const schema = { type: 'object', properties: { word: { type: 'string', description: 'A word' } }, required: [] } as const;

function tool(name: string, extra: Partial<FuncToolSpec> = {}): Tool {
  return newFuncTool({
    name,
    description: `The ${name} tool`,
    inputSchema: schema,
    handler: (input) => Promise.resolve(jsonOutcome({ tool: name, input })),
    ...extra,
  });
}

const servers: RunningMcpServer[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
  await Promise.allSettled(servers.splice(0).map((s) => s.close()));
});

async function serve(extra: Partial<McpServerOptions> = {}, tools: readonly Tool[] = [tool('plain')]): Promise<RunningMcpServer> {
  const s = await startMcpServer({
    host: '127.0.0.1',
    port: 0,
    identity: { name: 'tester', version: '1.0.0', instructions: '' },
    tools,
    confirmOverMcp: 'auto',
    maxConcurrentTools: 2,
    toolTimeoutMs: 30_000,
    ...extra,
  });
  servers.push(s);
  return s;
}

async function client(url: string, elicit?: Parameters<typeof connectClient>[1]): Promise<Client> {
  const c = await connectClient(url, elicit);
  clients.push(c);
  return c;
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-http', version: '0' } },
});
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Initializes a session with a bare POST and walks away from it: no DELETE, no event stream. */
async function abandonOne(url: string): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: HEADERS, body: INIT });
  await res.text();
  return res.status;
}

describe('the endpoint path', () => {
  it('prints /mcp and serves it, the root and any other path', async () => {
    const s = await serve();
    expect(s.endpoint).toBe(`${s.url}/mcp`);
    for (const url of [s.endpoint, s.url, `${s.url}/some/other/path`]) {
      const c = await client(url);
      expect(resultText(await c.callTool({ name: 'plain', arguments: { word: url } }))).toContain('"tool":"plain"');
    }
  });

  it('answers a raw JSON-RPC initialize posted to /mcp, as the Inspector CLI sends it', async () => {
    const s = await serve();
    const res = await fetch(s.endpoint, { method: 'POST', headers: HEADERS, body: INIT });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await res.text()).toContain('"serverInfo":{"name":"tester"');
  });
});

describe('ungated calls', () => {
  const gated = (): Tool => tool('purge', { confirm: { trigger: 'ai:confirm' }, tags: ['ai:confirm'] });

  async function callAs(
    policy: McpServerOptions['confirmOverMcp'],
    canElicit: boolean,
    args: Record<string, unknown> = {},
    t: Tool = gated(),
  ): Promise<UngatedCall[]> {
    const seen: UngatedCall[] = [];
    const s = await serve(
      {
        confirmOverMcp: policy,
        observe: (e) => {
          if (e.type === 'ungated') seen.push(e);
        },
      },
      [t],
    );
    const c = await client(s.endpoint, canElicit ? () => Promise.resolve({ action: 'accept', content: { approve: true } }) : undefined);
    await c.callTool({ name: t.name, arguments: args });
    return seen;
  }

  it('auto: reports a gated call from a client that cannot be asked, with its reason', async () => {
    const seen = await callAs('auto', false);
    expect(seen).toEqual([expect.objectContaining({ type: 'ungated', tool: 'purge', reason: 'no_elicitation' })]);
    expect(seen[0]?.message).toMatch(/purge needs approval \(ai:confirm\) but runs without it: .*confirm_over_mcp is auto/);
  });

  it('never: reports every gated call', async () => {
    expect(await callAs('never', true)).toEqual([expect.objectContaining({ reason: 'confirm_never' })]);
  });

  it('reports nothing for a call the client is asked about, a refused call or an ungated tool', async () => {
    expect(await callAs('auto', true)).toEqual([]);
    expect(await callAs('always', false)).toEqual([]);
    expect(await callAs('auto', false, {}, tool('plain'))).toEqual([]);
    const needy = tool('needy', {
      confirm: { trigger: 'ai:confirm' },
      inputSchema: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] },
    });
    expect(await callAs('auto', false, {}, needy)).toEqual([]);
  });
});

describe('open sessions', () => {
  it('documents its defaults', () => {
    expect(DEFAULT_MAX_SESSIONS).toBe(64);
    expect(DEFAULT_SESSION_IDLE_MS).toBe(600_000);
  });

  it('stays within the cap while many clients abandon their sessions, sparing one in use', async () => {
    const s = await serve({ maxSessions: 5 });
    const active = await client(s.endpoint);
    let most = 0;
    for (let i = 0; i < 40; i++) {
      expect(await abandonOne(s.endpoint)).toBe(200);
      most = Math.max(most, s.sessions());
    }
    expect(most).toBeLessThanOrEqual(5);
    expect(resultText(await active.callTool({ name: 'plain', arguments: {} }))).toContain('"tool":"plain"');
  });

  it('stays within the cap under a burst of simultaneous newcomers', async () => {
    const s = await serve({ maxSessions: 5 });
    const statuses = await Promise.all(Array.from({ length: 30 }, () => abandonOne(s.endpoint)));
    expect(statuses.filter((x) => x !== 200 && x !== 503)).toEqual([]);
    expect(statuses).toContain(200);
    expect(s.sessions()).toBeLessThanOrEqual(5);
  });

  it('refuses a new client with 503 when every session is in use', async () => {
    const s = await serve({ maxSessions: 2 });
    await client(s.endpoint);
    await client(s.endpoint);
    // each SDK client holds its event stream open, so neither session is idle
    await until(() => s.sessions() === 2, 'two sessions');
    const res = await fetch(s.endpoint, { method: 'POST', headers: HEADERS, body: INIT });
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('too many open sessions (2, all in use)');
  });

  it('closes sessions left idle', async () => {
    const s = await serve({ sessionIdleTimeoutMs: 200 });
    for (let i = 0; i < 10; i++) await abandonOne(s.endpoint);
    expect(s.sessions()).toBeGreaterThan(0);
    await until(() => s.sessions() === 0, 'idle sessions to expire');
  });
});
