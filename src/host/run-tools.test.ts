/**
 * The harness tool search through the host: a run that searches and is suspended, then resumed in
 * a new runtime, gets the loaded definitions back from the journaled search result, under the
 * same fingerprint; a call to a deferred tool that was not loaded is never run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../agent/test-support.js';
import { ScriptedProvider, textResponse, toolUseResponse } from '../agenttest/scripted-provider.js';
import { ConfigError } from '../config/index.js';
import { entry, startGrowingHttpServer } from '../mcp/client/test-support.js';
import { fakeTool } from '../toolkit/test-tools.js';
import { openRuntime } from './runtime.js';
import { startRun } from './run.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fisk-host-search-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = testConfig('  provider: openai-chat\n');
const ran: string[] = [];
const tools = Array.from({ length: 14 }, (_, i) =>
  fakeTool(`widget_${i}`, {
    description: `adjusts widget number ${i}`,
    handler: () => {
      ran.push(`widget_${i}`);
      return Promise.resolve({ status: 'completed', output: `widget ${i} adjusted`, isError: false });
    },
  }),
);
const names = (defs: readonly { readonly name: string }[]): string[] => defs.map((d) => d.name);

describe('the harness tool search in startRun', () => {
  it('loads what a search found, refuses an unloaded call, and restores the loaded tools on a resume', async () => {
    const provider = new ScriptedProvider([
      toolUseResponse([{ id: 'a', name: 'widget_7', input: '{}' }]),
      toolUseResponse([{ id: 'b', name: 'tool_search', input: '{"query":"widget_7"}' }]),
      toolUseResponse([{ id: 'c', name: 'widget_7', input: '{}' }]),
    ]);
    const runtime = await openRuntime(config, 'run', { env: {}, provider, customTools: tools, sessions: { stateDir: dir } });
    try {
      const handle = await startRun(runtime, { prompt: 'adjust widget 7', checkpoint: { runId: 'search-run' } });
      let results = 0;
      handle.subscribe({
        emit: (e) => {
          if (e.type === 'tool_result' && ++results === 3) handle.suspend();
        },
      });
      const outcome = await handle.outcome;
      await handle.close();
      expect(outcome.status).toBe('suspended');
      const sent = provider.requests.map((r) => names(r.tools ?? []));
      expect(sent[0]).toContain('tool_search');
      expect(sent[0]).not.toContain('widget_7');
      expect(sent[2]).toContain('widget_7');
      // the first call was answered with the search-first message, never run
      expect(ran).toEqual(['widget_7']);
    } finally {
      await runtime.close();
    }

    const again = new ScriptedProvider([textResponse('done')]);
    const resumedRuntime = await openRuntime(config, 'run', { env: {}, provider: again, customTools: tools, sessions: { stateDir: dir } });
    try {
      const handle = await startRun(resumedRuntime, { resume: 'search-run' });
      expect(handle.start.kind).toBe('resumed');
      expect((await handle.outcome).status).toBe('completed');
      await handle.close();
      const first = names(again.requests[0]?.tools ?? []);
      expect(first).toContain('tool_search');
      expect(first).toContain('widget_7');
      expect(first).not.toContain('widget_3');
    } finally {
      await resumedRuntime.close();
    }
  });

  it('publishes a rebuilt set to a live run when an MCP server changes its list, with an advisory', async () => {
    const sdk = await startGrowingHttpServer();
    let changed: () => void = () => undefined;
    const rebuilt = new Promise<void>((resolve) => {
      changed = resolve;
    });
    const provider = new ScriptedProvider([
      toolUseResponse([{ id: 'g1', name: 'grow', input: '{}' }]),
      // the model's next answer waits until the server's new list has been read
      async () => {
        await rebuilt;
        return toolUseResponse([{ id: 'g2', name: 'grow', input: '{}' }]);
      },
      toolUseResponse([{ id: 'n1', name: 'grown', input: '{}' }]),
      textResponse('done'),
    ]);
    const mcpConfig = {
      ...testConfig(),
      mcpClients: [entry({ name: 'growing', transport: 'http', command: undefined, url: sdk.url, confirm: { mode: 'never' } })],
    };
    const runtime = await openRuntime(mcpConfig, 'run', { env: {}, provider });
    try {
      runtime.imported.onToolsChanged(() => changed());
      const handle = await startRun(runtime, { prompt: 'grow' });
      const warnings: string[] = [];
      handle.subscribe({ emit: (e) => (e.type === 'warning' ? warnings.push(e.text) : undefined) });
      expect((await handle.outcome).status).toBe('completed');
      await handle.close();
      expect(names(provider.requests[0]?.tools ?? [])).toEqual(['grow']);
      expect(names(provider.requests[2]?.tools ?? [])).toEqual(['grow', 'grown']);
      expect(JSON.stringify(provider.requests[3]?.messages)).toContain('I am new');
      expect(warnings.join('\n')).toMatch(/MCP server "growing" changed its tool list: added grown/);
      // the model hears of it with the call that carries the new set, and only with that one
      const notes = provider.requests.map((r) => r.system.map((b) => b.text).join('\n'));
      expect(notes[2]).toMatch(/Your tool list changed since your last turn[\s\S]*MCP server "growing" changed its tool list: added grown/);
      expect(notes[1]).not.toMatch(/Your tool list changed/);
      expect(notes[3]).not.toMatch(/Your tool list changed/);
    } finally {
      await runtime.close();
      await sdk.stop();
    }
  });

  it('refuses remote_tools without nats_context, naming the key', async () => {
    const bare = {
      ...config,
      remoteTools: [{ name: 'peer', alias: 'peer', include: { tools: [], tags: [] }, exclude: { tools: [], tags: [] } }],
    };
    const err: unknown = await openRuntime(bare, 'run', { env: {}, provider: new ScriptedProvider([]) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(String((err as Error).message)).toContain('nats_context');
  });
});
