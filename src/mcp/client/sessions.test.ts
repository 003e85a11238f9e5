import { getEventListeners } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOutcome, newFuncTool } from '../../toolkit/functool/index.js';
import type { ToolImage } from '../../llm/types.js';
import type { Outcome, Tool } from '../../toolkit/tool.js';
import { startMcpServer } from '../server/http-server.js';

import { until } from '../server/test-support.js';
import { discoverMcpTools } from './discover.js';
import { McpClientError } from './errors.js';
import { MAX_RESTARTS, openMcpSessions } from './sessions.js';
import type { McpSessionSet, McpToolsChange } from './sessions.js';
import { alive } from '../../../test/support/processes.js';
import { EVERYTHING, RAW_SERVER, entry, fencedBody, freePort, startEverythingHttp, startGrowingHttpServer } from './test-support.js';

const baseEnv = { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-must-not-leak-0001', SERVER_TOKEN: 'token-for-the-server-123' };
const opts = { env: baseEnv, credentialEnvNames: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY'] };
const signal = new AbortController().signal;

function tool(set: McpSessionSet, server: string, name: string): Tool {
  const t = set
    .sources()
    .find((s) => s.label === server)
    ?.tools.find((x) => x.name === name);
  if (t === undefined) throw new Error(`no tool ${name} on ${server}`);
  return t;
}

function completed(o: Outcome): { output: string; isError: boolean; images?: readonly ToolImage[] | undefined } {
  if (o.status !== 'completed') throw new Error('expected a completed outcome');
  return o;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fisk-mcp-client-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('openMcpSessions over stdio against server-everything', () => {
  let set: McpSessionSet;
  const changes: McpToolsChange[] = [];
  let firstListing: readonly unknown[] | undefined;
  beforeAll(async () => {
    set = await openMcpSessions(
      [
        entry({
          name: 'everything',
          args: [EVERYTHING, 'stdio'],
          env: { GIVEN: '${SERVER_TOKEN}', SHORT: 'abc' },
          exclude: { tools: ['^toggle-'], tags: [] },
        }),
      ],
      opts,
    );
    firstListing = set.sources()[0]?.tools;
    set.onToolsChanged((c) => changes.push(c));
  });
  afterAll(() => set.close());

  it('imports the tools as mcp/remote, ungated, unexposed, with the filter recorded', () => {
    const [source] = set.sources();
    expect(source?.source).toBe('mcp');
    expect(source?.label).toBe('everything');
    const names = source?.tools.map((t) => t.name) ?? [];
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-env', 'get-sum', 'get-tiny-image']));
    expect(names).not.toContain('toggle-simulated-logging');
    expect(source?.filtered).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'toggle-simulated-logging', reason: 'excluded', label: 'everything' })]),
    );
    const echo = tool(set, 'everything', 'echo');
    expect(echo.kind).toBe('mcp');
    expect(echo.presentation).toBe('remote');
    expect(echo.mcpExposable()).toBe(false);
    expect(echo.a2aExposable()).toBe(false);
    expect(echo.capabilities.gate !== null && echo.capabilities.gate.gated).toBe(false);
    expect(echo.capabilities.deferrable).toBe(true);
    expect(echo.definition(false)).toMatchObject({ name: 'echo', inputSchema: { type: 'object' } });
  });

  it('advertises nothing: the server registers no roots, sampling or elicitation tools for this client', () => {
    const names = set.sources()[0]?.tools.map((t) => t.name) ?? [];
    for (const gated of ['get-roots-list', 'trigger-sampling-request', 'trigger-elicitation-request', 'trigger-url-elicitation']) {
      expect(names).not.toContain(gated);
    }
  });

  it('passes text through', async () => {
    const out = completed(await tool(set, 'everything', 'echo').execute('{"message":"hello there"}', {}, signal));
    expect(out).toMatchObject({ isError: false });
    expect(out.output).toContain('hello there');
  });

  it("leaves no listener behind on the caller's signal, however many calls share it", async () => {
    const shared = new AbortController().signal;
    for (let i = 0; i < 20; i++) await tool(set, 'everything', 'echo').execute(`{"message":"${i}"}`, {}, shared);
    expect(getEventListeners(shared, 'abort')).toHaveLength(0);
  });

  it('passes an image on as an image, between the words around it', async () => {
    const out = completed(await tool(set, 'everything', 'get-tiny-image').execute('{}', {}, signal));
    expect(fencedBody(out.output).split('\n')).toEqual([
      "Here's the image you requested:",
      expect.stringMatching(/^\[image "image\/png", [\d.]+ KiB, attached as image 1\]$/u),
      'The image above is the MCP logo.',
    ]);
    expect(out.images).toHaveLength(1);
    expect(out.images?.[0]?.mediaType).toBe('image/png');
    expect(
      Buffer.from(out.images?.[0]?.data ?? '', 'base64')
        .subarray(1, 4)
        .toString('latin1'),
    ).toBe('PNG');
  });

  it('turns resource links into text with their URIs', async () => {
    const out = completed(await tool(set, 'everything', 'get-resource-links').execute('{"count":2}', {}, signal));
    const links = fencedBody(out.output)
      .split('\n')
      .filter((l) => l.startsWith('[resource link '));
    expect(links).toHaveLength(2);
    for (const l of links) expect(l).toMatch(/^\[resource link "demo:\/\/resource\/[^"]+", name "[^"]+"/u);
  });

  it('gives the child the environment minus credentials, PATH and the expanded entry env kept', async () => {
    const out = completed(await tool(set, 'everything', 'get-env').execute('{}', {}, signal));
    const env = JSON.parse(fencedBody(out.output)) as Record<string, string>;
    expect(env['ANTHROPIC_API_KEY']).toBeUndefined();
    expect(out.output).not.toContain('sk-ant-must-not-leak');
    expect(env['PATH']).toBe(process.env['PATH']);
    expect(env['HOME']).toBe(process.env['HOME']);
    expect(env['SHORT']).toBe('abc');
    // the child got the expanded secret, and echoing it back to the model replaces it
    expect(env['GIVEN']).toBe('[REDACTED]');
    expect(out.output).not.toContain('token-for-the-server-123');
  });

  it('answers a call the server refuses as an error result the model can read', async () => {
    const out = completed(await tool(set, 'everything', 'get-sum').execute('{"a":"one","b":2}', {}, signal));
    expect(out.isError).toBe(true);
    expect(out.output.toLowerCase()).toContain('a');
    expect(out.output).toMatch(/invalid|validation|expected/i);
  });

  it('hears the list_changed the server sends once it is initialized, rebuilds, and announces only a real change', async () => {
    await until(() => set.sources()[0]?.tools !== firstListing, 'a tools/list_changed rebuild');
    expect(set.sources()[0]?.tools.map((t) => t.name)).toContain('simulate-research-query');
    // the server announces a change at start whether or not its list changed since it was read:
    // only a list that differs in what the model sees is announced
    for (const change of changes) {
      expect(change.server).toBe('everything');
      expect(change.advisory).toMatch(
        /^The MCP server "everything" changed its tool list: (added|removed|changed the description or parameters of|left out) /,
      );
    }
    if (changes.length > 0) expect(set.sources()[0]?.tools).toBe(changes.at(-1)?.source.tools);
  });
});

describe('openMcpSessions over streamable HTTP against server-everything', () => {
  let server: Awaited<ReturnType<typeof startEverythingHttp>>;
  beforeAll(async () => {
    server = await startEverythingHttp();
  });
  afterAll(() => server.stop());

  it('imports, calls and returns an image', async () => {
    const set = await openMcpSessions(
      [entry({ name: 'web', transport: 'http', command: undefined, url: server.url, headers: { 'X-Token': '${SERVER_TOKEN}' } })],
      opts,
    );
    try {
      const echo = completed(await tool(set, 'web', 'echo').execute('{"message":"over http"}', {}, signal));
      expect(echo.output).toContain('over http');
      const image = completed(await tool(set, 'web', 'get-tiny-image').execute('{}', {}, signal));
      expect(image.images).toEqual([expect.objectContaining({ mediaType: 'image/png' })]);
    } finally {
      await set.close();
    }
  });

  it('names the server and redacts the secret in the endpoint when it cannot connect', async () => {
    const url = server.url.replace(/:\d+\//, ':1/').replace('/mcp', '/mcp/v1?key=${SERVER_TOKEN}');
    const err = await openMcpSessions(
      [entry({ name: 'nowhere', transport: 'http', command: undefined, url, startupTimeout: { text: '5s', ms: 5_000 } })],
      opts,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpClientError);
    const message = (err as Error).message;
    expect(message).toContain('"nowhere"');
    expect(message).toContain('/mcp/v1?key=[REDACTED]');
    expect(message).not.toContain('token-for-the-server-123');
  });
});

describe('tools/list_changed over streamable HTTP', () => {
  it('rebuilds when an SDK server adds a tool mid-session', async () => {
    const sdk = await startGrowingHttpServer();
    try {
      const set = await openMcpSessions([entry({ name: 'growing', transport: 'http', command: undefined, url: sdk.url })], opts);
      const changes: McpToolsChange[] = [];
      set.onToolsChanged((c) => changes.push(c));
      try {
        expect(set.sources()[0]?.tools.map((t) => t.name)).toEqual(['grow']);
        completed(await tool(set, 'growing', 'grow').execute('{}', {}, signal));
        await until(() => changes.length > 0, 'a rebuild over HTTP');
        expect(changes[0]).toMatchObject({ server: 'growing', added: ['grown'], removed: [] });
        const out = completed(await tool(set, 'growing', 'grown').execute('{}', {}, signal));
        expect(fencedBody(out.output)).toBe('I am new');
      } finally {
        await set.close();
      }
    } finally {
      await sdk.stop();
    }
  });

  it('announces a reworded tool, and nothing for an announcement that changes nothing', async () => {
    const sdk = await startGrowingHttpServer({ rewording: true });
    try {
      const set = await openMcpSessions([entry({ name: 'growing', transport: 'http', command: undefined, url: sdk.url })], opts);
      const changes: McpToolsChange[] = [];
      set.onToolsChanged((c) => changes.push(c));
      try {
        completed(await tool(set, 'growing', 'nudge').execute('{}', {}, signal));
        completed(await tool(set, 'growing', 'reword').execute('{}', {}, signal));
        await until(() => changes.length > 0, 'the rebuild after the rewording');
        await until(() => tool(set, 'growing', 'grow').description === 'adds one more tool', 'the new description');
        expect(changes).toHaveLength(1);
        expect(changes[0]).toMatchObject({ server: 'growing', added: [], removed: [], skipped: [] });
        expect(changes[0]?.advisory).toBe('The MCP server "growing" changed its tool list: changed the description or parameters of grow.');
      } finally {
        await set.close();
      }
    } finally {
      await sdk.stop();
    }
  });
});

describe('closing an HTTP session', () => {
  it('ends the session on the server, so it is not left for the server to expire', async () => {
    const served = await startMcpServer({
      host: '127.0.0.1',
      port: 0,
      identity: { name: 'peer', version: '1.0.0', instructions: '' },
      tools: [
        newFuncTool({
          name: 'hello',
          description: 'says hello',
          inputSchema: { type: 'object' },
          exposure: { mcp: true, a2a: false },
          kind: 'builtin',
          handler: () => Promise.resolve(jsonOutcome('hi')),
        }),
      ],
      confirmOverMcp: 'always',
      maxConcurrentTools: 1,
      toolTimeoutMs: 5_000,
    });
    try {
      const set = await openMcpSessions([entry({ name: 'peer', transport: 'http', command: undefined, url: served.endpoint })], opts);
      expect(fencedBody(completed(await tool(set, 'peer', 'hello').execute('{}', {}, signal)).output)).toBe('"hi"');
      expect(served.sessions()).toBe(1);
      await set.close();
      expect(served.sessions()).toBe(0);
    } finally {
      await served.close();
    }
  });
});

describe('openMcpSessions failures', () => {
  // long enough for the hung child to start and record its pid on a loaded machine
  it('times out a server that hangs in the handshake and closes every server already opened', async () => {
    const firstPid = join(dir, 'first.pid');
    const hungPid = join(dir, 'hung.pid');
    const err = await openMcpSessions(
      [
        entry({ name: 'first', args: [RAW_SERVER, 'refuse', firstPid] }),
        entry({ name: 'hung', args: [RAW_SERVER, 'hang', hungPid], startupTimeout: { text: '3s', ms: 3_000 } }),
      ],
      opts,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpClientError);
    expect(err).toMatchObject({ code: 'timeout', server: 'hung' });
    expect((err as Error).message).toMatch(/"hung".*did not finish starting within 3s.*mcp_clients\[1\]\.startup_timeout/);
    const pids = [firstPid, hungPid].map((p) => Number(readFileSync(p, 'utf8')));
    await until(() => pids.every((p) => !alive(p)), 'both children to exit');
  });

  it('refuses a tool whose schema root is not an object, naming server and tool', async () => {
    const err = await openMcpSessions([entry({ name: 'odd', args: [RAW_SERVER, 'bad-schema'] })], opts).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'descriptor', server: 'odd' });
    expect((err as Error).message).toContain('tool "broken"');
    expect((err as Error).message).toContain('not "object"');
    expect((err as Error).message).not.toContain('"fine"');
  });

  it('lets an exclude filter drop the bad tool so the rest import', async () => {
    const set = await openMcpSessions(
      [entry({ name: 'odd', args: [RAW_SERVER, 'bad-schema'], exclude: { tools: ['^broken$'], tags: [] } })],
      opts,
    );
    try {
      expect(set.sources()[0]?.tools.map((t) => t.name)).toEqual(['fine']);
    } finally {
      await set.close();
    }
  });

  it('turns a JSON-RPC error answering a call into an error result naming the server', async () => {
    const set = await openMcpSessions([entry({ name: 'stingy', args: [RAW_SERVER, 'refuse'] })], opts);
    try {
      const out = completed(await tool(set, 'stingy', 'spend').execute('{}', {}, signal));
      expect(out.isError).toBe(true);
      expect(out.output).toContain('"stingy" refused the call to spend');
      expect(out.output).toContain('quota exhausted for this key');
    } finally {
      await set.close();
    }
  });

  it('fails on two servers claiming one name', async () => {
    const err = await openMcpSessions(
      [entry({ name: 'a', args: [RAW_SERVER, 'refuse'] }), entry({ name: 'b', args: [RAW_SERVER, 'refuse'] })],
      opts,
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'collision', server: 'b' });
    expect((err as Error).message).toContain('spend');
  });

  it('fails naming the server whose command does not exist', async () => {
    const err = await openMcpSessions([entry({ name: 'ghost', command: join(dir, 'no-such-binary') })], opts).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'connect', server: 'ghost' });
    expect((err as Error).message).toContain('"ghost"');
    expect((err as Error).message).toContain(
      `there is no program ${JSON.stringify(join(dir, 'no-such-binary'))} on PATH or at that path; install it or set mcp_clients[0].command`,
    );
  });
});

describe('a rebuild after tools/list_changed', () => {
  it('skips and records a name another source holds, and tells the listener what changed', async () => {
    const set = await openMcpSessions(
      [entry({ name: 'everything', args: [EVERYTHING, 'stdio'] }), entry({ name: 'grower', args: [RAW_SERVER, 'changing'] })],
      { ...opts, reservedNames: () => new Set(['extra-reserved']) },
    );
    const changes: McpToolsChange[] = [];
    set.onToolsChanged((c) => changes.push(c));
    try {
      await tool(set, 'grower', 'grow').execute('{}', {}, signal);
      await until(() => changes.some((c) => c.server === 'grower'), 'the grower rebuild');
      const change = changes.find((c) => c.server === 'grower');
      expect(change?.added).toEqual(['extra']);
      expect(change?.skipped).toEqual([expect.objectContaining({ name: 'echo', reason: 'collision', label: 'grower' })]);
      expect(change?.advisory).toContain('added extra');
      expect(set.sources()[1]?.tools.map((t) => t.name)).toEqual(['grow', 'extra']);
      expect(set.sources()[1]?.filtered).toEqual([expect.objectContaining({ name: 'echo', reason: 'collision' })]);
    } finally {
      await set.close();
    }
  });
});

describe('discoverMcpTools', () => {
  it('lists what answers, warns about what does not, and keeps nothing open', async () => {
    const hungPid = join(dir, 'discover-hung.pid');
    const found = await discoverMcpTools(
      [
        entry({ name: 'hung', args: [RAW_SERVER, 'hang', hungPid], startupTimeout: { text: '3s', ms: 3_000 } }),
        entry({ name: 'odd', args: [RAW_SERVER, 'bad-schema'] }),
        entry({ name: 'everything', args: [EVERYTHING, 'stdio'] }),
      ],
      opts,
    );
    expect(found.sources.map((s) => s.label)).toEqual(['odd', 'everything']);
    expect(found.sources[0]?.tools.map((t) => t.name)).toEqual(['fine']);
    expect(found.sources[0]?.filtered).toEqual([expect.objectContaining({ name: '"broken"', reason: 'unusable' })]);
    expect(found.warnings.map((w) => w.server)).toEqual(['hung', 'odd']);
    const echo = found.sources[1]?.tools.find((t) => t.name === 'echo');
    expect(echo?.description).toBe('Echoes back the input string');
    await expect(echo?.execute('{"message":"x"}', {}, signal)).rejects.toMatchObject({ code: 'not_callable' });
    expect(alive(Number(readFileSync(hungPid, 'utf8')))).toBe(false);
  });
});

describe('a stdio server that goes away', () => {
  const call = async (set: McpSessionSet, name: string): Promise<{ output: string; isError: boolean }> =>
    completed(await tool(set, 'mortal', name).execute('{}', {}, signal));
  const pidOf = (output: string): string => /pid (\d+)/u.exec(output)?.[1] ?? '';

  it('is started again for the next call, and a call it dropped says so rather than calling it refused', async () => {
    const set = await openMcpSessions([entry({ name: 'mortal', args: [RAW_SERVER, 'mortal'] })], opts);
    const told: string[] = [];
    set.onServerEvent((e) => told.push(`${e.kind}: ${e.message}`));
    try {
      const first = pidOf((await call(set, 'pid')).output);
      expect(first).not.toBe('');
      expect((await call(set, 'quit')).output).toContain('bye');
      // the exit is seen, and the next call starts the server again
      await until(() => !alive(Number(first)) && told.length === 1, 'the first server to exit and be told of');
      expect(told).toEqual(['lost: MCP server "mortal" exited with status 3; it is started again at the next call to one of its tools']);
      const second = await call(set, 'pid');
      expect(second.isError).toBe(false);
      expect(pidOf(second.output)).not.toBe(first);
      const dropped = await call(set, 'die');
      expect(dropped.isError).toBe(true);
      expect(dropped.output).toContain(
        'the MCP server "mortal" exited with status 4 during the call to die, so whether the call took effect is not known; the server is started again for the next call',
      );
      expect(dropped.output).not.toContain('refused');
      expect((await call(set, 'pid')).isError).toBe(false);
      expect(told.map((t) => t.slice(0, t.indexOf(':')))).toEqual(['lost', 'restarted', 'lost', 'restarted']);
      expect(told[1]).toMatch(/^restarted: MCP server "mortal" was started again \(.*raw-mcp-server\.mjs mortal\)$/u);
    } finally {
      await set.close();
    }
  });

  it(`is started again at most ${MAX_RESTARTS} times a minute, and each call past that says why it was not made`, async () => {
    const set = await openMcpSessions([entry({ name: 'mortal', args: [RAW_SERVER, 'mortal'] })], opts);
    const told: string[] = [];
    set.onServerEvent((e) => told.push(e.kind));
    try {
      for (let i = 0; i <= MAX_RESTARTS; i++) expect((await call(set, 'die')).isError).toBe(true);
      const refused = await call(set, 'pid');
      expect(refused.isError).toBe(true);
      expect(refused.output).toContain('the MCP server "mortal" is not available, so pid was not called');
      expect(refused.output).toMatch(
        /it exited with status 4 after being started again 3 times within a minute; it is started again in \d+ s/u,
      );
      expect(told.at(-1)).toBe('unavailable');
      // the operator hears it once, however many calls meet it
      expect((await call(set, 'pid')).isError).toBe(true);
      expect(told.filter((kind) => kind === 'unavailable')).toHaveLength(1);
    } finally {
      await set.close();
    }
  });

  it('says why when it cannot be started again', async () => {
    const copy = join(dir, 'mortal-once.mjs');
    writeFileSync(copy, readFileSync(RAW_SERVER));
    const set = await openMcpSessions([entry({ name: 'mortal', args: [copy, 'mortal'] })], opts);
    try {
      // the server's program is gone by the time it is needed again
      rmSync(copy);
      await call(set, 'die');
      const after = await call(set, 'pid');
      expect(after.isError).toBe(true);
      expect(after.output).toContain('the MCP server "mortal" is not available, so pid was not called');
      expect(after.output).toContain('it exited with status 4 and could not be started again: ');
    } finally {
      await set.close();
    }
  });
});

describe('an HTTP server that restarts', () => {
  it('is given a new session by the next call once it no longer knows the old one; the call it refused says it was not run', async () => {
    const port = await freePort();
    let server = await startEverythingHttp(port);
    const set = await openMcpSessions([entry({ name: 'web', transport: 'http', command: undefined, url: server.url })], opts);
    const told: string[] = [];
    set.onServerEvent((e) => told.push(e.kind));
    const echo = async (message: string): Promise<{ output: string; isError: boolean }> =>
      completed(await tool(set, 'web', 'echo').execute(JSON.stringify({ message }), {}, signal));
    try {
      expect((await echo('before')).output).toContain('Echo: before');
      // a restarted server holds none of its sessions
      await server.stop();
      server = await startEverythingHttp(port);
      const refused = await echo('lost');
      expect(refused.isError).toBe(true);
      expect(refused.output).toMatch(
        /^the MCP server "web" no longer knows this agent's session \(HTTP 40[04]\), so echo was not run; a new session is started for the next call:/u,
      );
      expect((await echo('after')).output).toContain('Echo: after');
      expect(told).toEqual(['lost', 'restarted']);
    } finally {
      await set.close();
      await server.stop();
    }
  });
});
