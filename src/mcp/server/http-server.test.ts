import { request } from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfirmOverMcp } from '../../config/types.js';
import { errorOutcome, jsonOutcome, newFuncTool } from '../../toolkit/functool/index.js';
import type { FuncToolSpec } from '../../toolkit/functool/index.js';
import { SERVED_DENIAL_ADVICE, shuttingDownMessage } from '../../toolkit/invoke/messages.js';
import type { Tool } from '../../toolkit/tool.js';
import type { CallEvent } from './call-tool.js';
import { startMcpServer } from './http-server.js';
import type { McpServerOptions, RunningMcpServer } from './http-server.js';
import { connectClient, latch, resultText, until } from './test-support.js';
import type { ElicitAnswer } from './test-support.js';

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

async function serve(tools: readonly Tool[], extra: Partial<McpServerOptions> = {}): Promise<RunningMcpServer> {
  const s = await startMcpServer({
    host: '127.0.0.1',
    port: 0,
    identity: { name: 'tester', version: '9.9.9', instructions: 'Use the tools carefully.' },
    tools,
    confirmOverMcp: 'auto',
    maxConcurrentTools: 2,
    toolTimeoutMs: 30_000,
    ...extra,
  });
  servers.push(s);
  return s;
}

async function client(s: RunningMcpServer, elicit?: ElicitAnswer): Promise<Client> {
  const c = await connectClient(s.url, elicit);
  clients.push(c);
  return c;
}

describe('listing', () => {
  it('lists model descriptions with tags, schemas, titles and behaviour hints, never approval', async () => {
    const s = await serve([
      tool('stream_purge', { tags: ['ai:confirm', 'impact:rw'], confirm: { trigger: 'ai:confirm' }, behavior: { destructive: 'true' } }),
      tool('plain'),
    ]);
    const c = await client(s);
    expect(c.getServerVersion()).toMatchObject({ name: 'tester', version: '9.9.9' });
    expect(c.getInstructions()).toBe('Use the tools carefully.');
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual(['stream_purge', 'plain']);
    const purge = tools[0];
    expect(purge?.description).toBe('The stream_purge tool\n\nTags: ai:confirm, impact:rw');
    expect(purge?.inputSchema).toEqual(schema);
    expect(purge?.annotations).toEqual({ title: 'Stream purge', destructiveHint: true });
    expect(JSON.stringify(purge)).not.toMatch(/confirm"?\s*:\s*true|approval/i);
    expect(tools[1]?.annotations).toEqual({ title: 'Plain' });
  });

  it('omits instructions at initialize when none are configured', async () => {
    const s = await serve([tool('plain')], { identity: { name: 'quiet', version: '1.0.0', instructions: '' } });
    const c = await client(s);
    expect(c.getInstructions()).toBeUndefined();
  });
});

describe('calls', () => {
  it('returns an in-process tool JSON verbatim', async () => {
    const c = await client(await serve([tool('plain')]));
    const r = await c.callTool({ name: 'plain', arguments: { word: 'hi' } });
    expect(r.isError).toBeFalsy();
    expect(resultText(r)).toBe('{"tool":"plain","input":{"word":"hi"}}');
  });

  it('treats absent arguments as an empty object', async () => {
    const c = await client(await serve([tool('plain')]));
    expect(resultText(await c.callTool({ name: 'plain' }))).toBe('{"tool":"plain","input":{}}');
  });

  it('answers an unknown tool with an error result, not a protocol error', async () => {
    const c = await client(await serve([tool('plain')]));
    const r = await c.callTool({ name: 'nope', arguments: {} });
    expect(r.isError).toBe(true);
    expect(resultText(r)).toMatch(/"nope" is not available; call only the tools in your tool list/);
  });

  it('turns a tool that throws into an error result', async () => {
    const c = await client(await serve([tool('boom', { handler: () => Promise.reject(new Error('kaput')) })]));
    const r = await c.callTool({ name: 'boom', arguments: {} });
    expect(r.isError).toBe(true);
    expect(resultText(r)).toBe('the tool failed: kaput');
  });

  it('passes a tool error outcome through as an error result', async () => {
    const c = await client(await serve([tool('sad', { handler: () => Promise.resolve(errorOutcome('no such stream')) })]));
    const r = await c.callTool({ name: 'sad', arguments: {} });
    expect(r.isError).toBe(true);
    expect(resultText(r)).toBe('no such stream');
  });

  it('refuses a deferred answer', async () => {
    const c = await client(
      await serve([tool('later', { handler: () => Promise.resolve({ status: 'deferred', reason: 'waiting on a ticket' }) })]),
    );
    const r = await c.callTool({ name: 'later', arguments: {} });
    expect(r.isError).toBe(true);
    expect(resultText(r)).toMatch(/deferred its answer \(waiting on a ticket\), which this surface cannot carry/);
  });

  it('gives a tool that asks a question the default-deny prompter', async () => {
    let asked = false;
    const asker = tool('asker', {
      needsPrompter: true,
      handler: async (_input, call) => {
        asked = true;
        const yes = (await call.deps.prompter?.confirm('really?', call.signal)) ?? false;
        return yes ? jsonOutcome({ went: 'ahead' }) : errorOutcome('the person said no');
      },
    });
    const c = await client(await serve([asker]));
    const r = await c.callTool({ name: 'asker', arguments: {} });
    expect(asked).toBe(true);
    expect(r.isError).toBe(true);
    expect(resultText(r)).toBe('the person said no');
  });

  it('stops a slow tool at the timeout through its AbortSignal', async () => {
    let sawAbort = false;
    const slow = tool('slow', {
      handler: (_input, call) =>
        new Promise((resolve) => {
          call.signal.addEventListener('abort', () => {
            sawAbort = true;
            resolve(jsonOutcome({ late: true }));
          });
        }),
    });
    const c = await client(await serve([slow], { toolTimeoutMs: 200 }));
    const r = await c.callTool({ name: 'slow', arguments: {} });
    expect(sawAbort).toBe(true);
    expect(r.isError).toBe(true);
    expect(resultText(r)).toMatch(/did not finish within 200ms and was stopped.*expose\.agent\.mcp\.tool_timeout/);
  });
});

/** A tool whose calls finish once `until` settles. */
function heldTool(until: Promise<unknown>): Tool {
  return tool('hold', {
    handler: async () => {
      await until;
      return jsonOutcome({ done: true });
    },
  });
}

describe('the concurrency cap', () => {
  it('does not start a third call until a slot frees', async () => {
    const gate = latch();
    const events: CallEvent[] = [];
    const hold = heldTool(gate.promise);
    const c = await client(await serve([hold], { observe: (e) => events.push(e) }));
    const started = (): number => events.filter((e) => e.type === 'started').length;
    const queued = (): number => events.filter((e) => e.type === 'queued').length;
    const calls = [0, 1, 2].map(() => c.callTool({ name: 'hold', arguments: {} }));
    await until(() => queued() === 3, 'three calls to arrive');
    await until(() => started() === 2, 'two calls to start');
    // every call has arrived and asked for a slot; only two hold one
    expect(started()).toBe(2);
    gate.open();
    const results = await Promise.all(calls);
    expect(started()).toBe(3);
    expect(results.every((r) => resultText(r) === '{"done":true}')).toBe(true);
  });

  it('warns of no listener leak with more calls in flight than Node allows one signal by default', async () => {
    const gate = latch();
    const events: CallEvent[] = [];
    const hold = heldTool(gate.promise);
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const c = await client(await serve([hold], { observe: (e) => events.push(e), maxConcurrentTools: 16 }));
      const calls = Array.from({ length: 14 }, () => c.callTool({ name: 'hold', arguments: {} }));
      await until(() => events.filter((e) => e.type === 'started').length === 14, 'fourteen calls to start');
      gate.open();
      await Promise.all(calls);
      // a warning is emitted on the next turn
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('holds no slot while a person deliberates over an approval', async () => {
    const deliberating = latch();
    let asked = false;
    const s = await serve([tool('gated', { confirm: { trigger: 'ai:confirm' } }), tool('plain')], { maxConcurrentTools: 1 });
    const c = await client(s, async () => {
      asked = true;
      await deliberating.promise;
      return { action: 'accept', content: { approve: true } };
    });
    const gated = c.callTool({ name: 'gated', arguments: {} });
    await until(() => asked, 'the approval request');
    // with one slot and the gated call still undecided, an ungated call runs to completion
    expect(resultText(await c.callTool({ name: 'plain', arguments: {} }))).toBe('{"tool":"plain","input":{}}');
    deliberating.open();
    expect((await gated).isError).toBeFalsy();
  });
});

describe('the elicitation gate', () => {
  const gatedTools = (ran: string[]): Tool[] => [
    tool('purge', {
      confirm: { trigger: 'impact:rw' },
      handler: () => {
        ran.push('purge');
        return Promise.resolve(jsonOutcome({ purged: true }));
      },
    }),
  ];

  async function callGated(
    policy: ConfirmOverMcp,
    elicit: ElicitAnswer | undefined,
  ): Promise<{ ran: string[]; text: string; isError: boolean; asked: unknown[] }> {
    const ran: string[] = [];
    const asked: unknown[] = [];
    const s = await serve(gatedTools(ran), { confirmOverMcp: policy });
    const answer: ElicitAnswer | undefined =
      elicit === undefined
        ? undefined
        : (params) => {
            asked.push(params);
            return elicit(params);
          };
    const c = await client(s, answer);
    const r = await c.callTool({ name: 'purge', arguments: { word: 'all' } });
    return { ran, text: resultText(r), isError: r.isError === true, asked };
  }

  it('runs the call when the client accepts with true, after asking one required boolean', async () => {
    const r = await callGated('auto', () => Promise.resolve({ action: 'accept', content: { approve: true } }));
    expect(r.ran).toEqual(['purge']);
    expect(r.text).toBe('{"purged":true}');
    const params = r.asked[0] as { message: string; requestedSchema: { properties: Record<string, { type: string }>; required: string[] } };
    expect(params.message).toMatch(/purge/);
    expect(params.message).toMatch(/impact:rw/);
    expect(params.message).toMatch(/word=all/);
    expect(Object.keys(params.requestedSchema.properties)).toEqual(['approve']);
    expect(params.requestedSchema.properties['approve']?.type).toBe('boolean');
    expect(params.requestedSchema.required).toEqual(['approve']);
  });

  const denials: [string, unknown][] = [
    ['declines', { action: 'decline' }],
    ['dismisses', { action: 'cancel' }],
    ['accepts with false', { action: 'accept', content: { approve: false } }],
    ['accepts with a non-boolean', { action: 'accept', content: { approve: 'true' } }],
    ['accepts with no content', { action: 'accept' }],
    ['accepts with another field', { action: 'accept', content: { ok: true } }],
  ];
  for (const [what, answer] of denials) {
    it(`denies when the client ${what}`, async () => {
      const r = await callGated('auto', () => Promise.resolve(answer));
      expect(r.asked).toHaveLength(1);
      expect(r.ran).toEqual([]);
      expect(r.isError).toBe(true);
      expect(JSON.parse(r.text)).toMatchObject({ allowed: false });
      // the client's model hears that asking again is no use, and what is
      const reason = (JSON.parse(r.text) as { reason: string }).reason;
      expect(reason).toMatch(/so the call was not run; /);
      expect(reason.endsWith(SERVED_DENIAL_ADVICE.declined)).toBe(true);
    });
  }

  it('refuses a call missing a required argument before asking anyone', async () => {
    const asked: unknown[] = [];
    const strict = tool('strict', {
      confirm: { trigger: 'ai:confirm' },
      inputSchema: { type: 'object', properties: { target: { type: 'string' } }, required: ['target'] },
    });
    const c = await client(await serve([strict]), (p) => {
      asked.push(p);
      return Promise.resolve({ action: 'accept', content: { approve: true } });
    });
    const r = await c.callTool({ name: 'strict', arguments: {} });
    expect(r.isError).toBe(true);
    expect(resultText(r)).toMatch(/^invalid arguments for strict: .*target/);
    expect(asked).toHaveLength(0);
  });

  it('reports each denial to the observer with its reason', async () => {
    const events: CallEvent[] = [];
    const s = await serve(gatedTools([]), { observe: (e) => events.push(e) });
    const c = await client(s, () => Promise.resolve({ action: 'decline' }));
    await c.callTool({ name: 'purge', arguments: {} });
    expect(events.map((e) => e.type)).toEqual(['asking', 'denied']);
    expect(events[1]).toMatchObject({ tool: 'purge', reason: 'the client declined the call' });
  });

  it('denies when the elicitation itself fails', async () => {
    const r = await callGated('auto', () => Promise.reject(new Error('the dialog crashed')));
    expect(r.ran).toEqual([]);
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/approval request failed/);
    expect((JSON.parse(r.text) as { reason: string }).reason.endsWith(SERVED_DENIAL_ADVICE.unanswered)).toBe(true);
  });

  it('denies when nobody answers before the elicitation timeout', async () => {
    const ran: string[] = [];
    const s = await serve(gatedTools(ran), { elicitationTimeoutMs: 100 });
    const never = latch();
    const c = await client(s, async () => {
      await never.promise;
      return { action: 'accept', content: { approve: true } };
    });
    const r = await c.callTool({ name: 'purge', arguments: {} });
    never.open();
    expect(ran).toEqual([]);
    expect(r.isError).toBe(true);
    expect(resultText(r)).toMatch(/approval request failed.*ask the user whether they are there to approve it/);
  });

  it('auto: runs ungated for a client that cannot be asked', async () => {
    const r = await callGated('auto', undefined);
    expect(r.ran).toEqual(['purge']);
    expect(r.isError).toBe(false);
  });

  it('always: refuses a client that cannot be asked', async () => {
    const r = await callGated('always', undefined);
    expect(r.ran).toEqual([]);
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/cannot be asked.*confirm_over_mcp is always/);
    expect(r.text).toMatch(/retrying will not help/);
  });

  it('always: asks a client that can be asked', async () => {
    const r = await callGated('always', () => Promise.resolve({ action: 'accept', content: { approve: true } }));
    expect(r.asked).toHaveLength(1);
    expect(r.ran).toEqual(['purge']);
  });

  it('never: runs without asking, even a client that could be asked', async () => {
    const r = await callGated('never', () => Promise.resolve({ action: 'decline' }));
    expect(r.asked).toHaveLength(0);
    expect(r.ran).toEqual(['purge']);
  });

  it('never asks about an ungated tool', async () => {
    const asked: unknown[] = [];
    const c = await client(await serve([tool('plain')]), (p) => {
      asked.push(p);
      return Promise.resolve({ action: 'decline' });
    });
    expect((await c.callTool({ name: 'plain', arguments: {} })).isError).toBeFalsy();
    expect(asked).toHaveLength(0);
  });
});

describe('the listener', () => {
  it('refuses a non-loopback Host on a loopback bind', async () => {
    const s = await serve([tool('plain')]);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(s.url, { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(403);
  });

  async function statusWithHost(s: RunningMcpServer, host: string, origin?: string): Promise<number | undefined> {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rebind', version: '1' } },
    };
    return new Promise<number | undefined>((resolve, reject) => {
      const headers: Record<string, string> = { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      if (origin !== undefined) headers['origin'] = origin;
      const req = request(s.url, { method: 'POST', headers }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end(JSON.stringify(init));
    });
  }

  it.each(['127.attacker.example', '127.0.0.1.nip.io', 'localhost.attacker.example'])(
    'refuses a rebinding Host %s that only looks like loopback',
    async (name) => {
      const s = await serve([tool('plain')]);
      const port = new URL(s.url).port;
      expect(await statusWithHost(s, `${name}:${port}`)).toBe(403);
      expect(await statusWithHost(s, `127.0.0.1:${port}`, `http://${name}:${port}`)).toBe(403);
    },
  );

  it.each(['127.0.0.1', 'localhost', '[::1]'])('answers a loopback Host %s', async (name) => {
    const s = await serve([tool('plain')]);
    const port = new URL(s.url).port;
    expect(await statusWithHost(s, `${name}:${port}`, `http://${name}:${port}`)).toBe(200);
  });

  it('refuses a request from a non-loopback web origin on a loopback bind', async () => {
    const s = await serve([tool('plain')]);
    const res = await fetch(s.url, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(403);
    const local = await fetch(s.url, {
      method: 'POST',
      headers: { origin: 'http://localhost:3000', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(local.status).toBe(400);
  });

  it('answers an unknown session with 404 and a request without a session with 400', async () => {
    const s = await serve([tool('plain')]);
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const unknown = await fetch(s.url, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': 'made-up' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(unknown.status).toBe(404);
    const none = await fetch(s.url, { method: 'POST', headers, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
    expect(none.status).toBe(400);
  });

  it('answers JSON-RPC errors with the codes the specification gives', async () => {
    const server = await serve([tool('plain')]);
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const broken = await fetch(server.url, { method: 'POST', headers, body: '{"jsonrpc": "2.0", "id": 1, "method":' });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: { code: -32700 } });
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
    const withSession = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    await (
      await fetch(server.url, { method: 'POST', headers: withSession, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })
    ).text();
    const call = await fetch(server.url, {
      method: 'POST',
      headers: withSession,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'plain', arguments: 'not an object' } }),
    });
    const text = await call.text();
    expect(text).toContain('"code":-32602');
    expect(text).not.toContain('-32603');
    const noName = await fetch(server.url, {
      method: 'POST',
      headers: withSession,
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { arguments: {} } }),
    });
    expect(await noName.text()).toContain('"code":-32602');
    const unknown = await fetch(server.url, {
      method: 'POST',
      headers: withSession,
      body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/frobnicate', params: {} }),
    });
    const unknownText = await unknown.text();
    expect(unknownText).toContain('"code":-32601');
    expect(unknownText).toContain('"id":4');
    // a body that is not JSON is refused the same way inside a session
    const brokenInSession = await fetch(server.url, { method: 'POST', headers: withSession, body: '[{' });
    expect(await brokenInSession.json()).toMatchObject({ error: { code: -32700 } });
    // JSON, but no JSON-RPC message: an invalid request, with or without a session
    for (const body of ['42', '{"id":5,"method":"tools/list"}', '[]', '[{"jsonrpc":"2.0","id":6,"method":"tools/list"},7]']) {
      for (const requestHeaders of [headers, withSession]) {
        const invalid = await fetch(server.url, { method: 'POST', headers: requestHeaders, body });
        expect(invalid.status).toBe(400);
        expect(await invalid.json()).toMatchObject({ error: { code: -32600 } });
      }
    }
  });

  it('keeps the first of two tools listed under one name', async () => {
    const c = await client(
      await serve([
        tool('twin', { description: 'the first' }),
        tool('twin', { description: 'the second', handler: () => Promise.resolve(jsonOutcome('second')) }),
      ]),
    );
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.description)).toEqual(['the first']);
    expect(resultText(await c.callTool({ name: 'twin', arguments: {} }))).toBe('{"tool":"twin","input":{}}');
  });

  it('reports a port it cannot bind, naming the flags', async () => {
    const s = await serve([tool('plain')]);
    await expect(serve([tool('plain')], { port: s.port })).rejects.toThrow(/--port\/--address/);
  });

  it('closes with a held-open event stream, answering every call in flight as not completed first', async () => {
    let cancelled = false;
    const stuck = tool('stuck', {
      handler: (_input, call) =>
        new Promise((resolve) => {
          call.signal.addEventListener('abort', () => {
            cancelled = true;
            resolve(jsonOutcome({}));
          });
        }),
    });
    const gated = tool('gated', { confirm: { trigger: 'ai:confirm' } });
    const events: CallEvent[] = [];
    const server = await serve([stuck, gated], { observe: (e) => events.push(e), maxConcurrentTools: 1 });
    let asked = false;
    const caller = await client(server, () => {
      asked = true;
      // a person who never answers: the shutdown must not wait for them
      return new Promise(() => undefined);
    });
    expect(server.sessions()).toBe(1);
    const running = caller.callTool({ name: 'stuck', arguments: {} });
    await until(() => events.some((e) => e.type === 'started'), 'the call to start');
    // one slot, held by the running call: a second call to stuck waits for it
    const waiting = caller.callTool({ name: 'stuck', arguments: {} });
    await until(() => events.filter((e) => e.type === 'queued').length === 2, 'the second call to queue');
    const asking = caller.callTool({ name: 'gated', arguments: {} });
    await until(() => asked, 'the approval question');
    await server.close();
    expect(cancelled).toBe(true);
    for (const [result, name] of [
      [await running, 'stuck'],
      [await waiting, 'stuck'],
      [await asking, 'gated'],
    ] as const) {
      expect(result.isError).toBe(true);
      expect(resultText(result)).toBe(shuttingDownMessage(name));
    }
    expect(resultText(await running)).toMatch(/shutting down.*did not complete.*retried/);
    expect(server.sessions()).toBe(0);
  });

  it('closes once however often it is asked, keeps reporting where it listened, and refuses connections afterwards', async () => {
    const s = await serve([tool('plain')]);
    const { port, url, endpoint } = s;
    await client(s);
    expect(s.sessions()).toBe(1);
    const first = s.close();
    expect(s.close()).toBe(first);
    await first;
    expect(s.sessions()).toBe(0);
    expect([s.port, s.url, s.endpoint]).toEqual([port, url, endpoint]);
    expect(endpoint).toBe(`http://127.0.0.1:${port}/mcp`);
    await expect(fetch(endpoint, { method: 'POST', body: '{}' })).rejects.toThrow();
  });
});

describe('the bearer token', () => {
  const TOKEN = 'unit-test-token-0123456789';
  const post = (url: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });

  it('refuses to listen off loopback without one, naming the key', async () => {
    await expect(serve([tool('plain')], { host: '0.0.0.0' })).rejects.toMatchObject({
      code: 'auth',
      message: expect.stringMatching(/not a loopback address, without a token.*expose\.agent\.mcp\.auth_token_env/s) as unknown,
    });
    await expect(serve([tool('plain')], { host: '0.0.0.0', authToken: '  ' })).rejects.toMatchObject({ code: 'auth' });
  });

  it('is required on every request, checked after the Host guard', async () => {
    const s = await serve([tool('plain')], { authToken: TOKEN });
    expect((await post(s.url)).status).toBe(401);
    expect((await post(s.url, { authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    expect((await post(s.url, { authorization: TOKEN })).status).toBe(401);
    // a rebound name is refused before the token is even looked at
    const rebound = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        s.url,
        { method: 'POST', headers: { host: 'rebound.example', authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    expect(rebound).toBe(403);
    const c = await connectClient(s.url, undefined, { authorization: `bearer ${TOKEN}` });
    clients.push(c);
    expect(resultText(await c.callTool({ name: 'plain', arguments: {} }))).toBe('{"tool":"plain","input":{}}');
  });

  it('off loopback, admits a browser only from the server itself', async () => {
    const s = await serve([tool('plain')], { host: '0.0.0.0', authToken: TOKEN });
    const url = `http://127.0.0.1:${s.port}/mcp`;
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await post(url, { ...auth, origin: 'http://elsewhere.example' })).status).toBe(403);
    expect((await post(url, { ...auth, origin: 'not a url' })).status).toBe(403);
    // the same origin, and no origin at all (not a browser), reach the session layer
    expect((await post(url, { ...auth, origin: `http://127.0.0.1:${s.port}` })).status).toBe(400);
    expect((await post(url, auth)).status).toBe(400);
  });
});
