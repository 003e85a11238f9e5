/**
 * Harness-side tool search end to end: the loop over the openai-chat provider (the official SDK)
 * against the fake compatible server, with a 300-command generated application whose commands run
 * as real child processes. The host's part (selection, attaching the search, publishing, resume,
 * fingerprint) is done here by hand, exactly as a host does it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer } from '../agenttest/fake-model-server.js';
import type { FakeModelServer, ReceivedRequest } from '../agenttest/fake-model-server.js';
import { generatedApplication } from '../agenttest/generated-app.js';
import { chatCompletion } from '../agenttest/openai-wire.js';
import type { Config } from '../config/types.js';
import { OpenAIChatProvider } from '../llm/openai/provider.js';
import type { Message } from '../llm/types.js';
import { computeFingerprint, fileSessionStore } from '../runstate/index.js';
import type { Fingerprint } from '../runstate/index.js';
import { deferralPolicy } from '../toolkit/deferral.js';
import { buildCommandTools } from '../toolkit/fisk/application.js';
import { readApplicationModel } from '../toolkit/fisk/model.js';
import { selectTools } from '../toolkit/selection.js';
import type { Selection } from '../toolkit/selection.js';
import { TOOL_SEARCH_NAME, attachToolSearch, fingerprintDefinitions, loadedFromHistory, notLoadedMessage } from '../toolkit/tool-search.js';
import { EMPTY_TOOL_SET, PublishedToolSetSource } from '../toolkit/tool-set.js';
import type { ToolSetSource } from '../toolkit/tool.js';
import { resumeCheckpoint, runFingerprint, startCheckpoint } from './checkpoint.js';
import type { AgentEvent } from './events.js';
import { runAgent } from './run-agent.js';
import type { PendingToolBatch } from './run-agent.js';
import { systemBlocks } from './system-prompt.js';
import { testConfig } from './test-support.js';
import { settingsFromConfig } from './settings.js';
import { answerOf } from './outcome.js';

interface WireTool {
  readonly type: string;
  readonly function: { readonly name: string; readonly description?: string; readonly parameters?: unknown };
}
interface WireMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_call_id?: string;
}

function wire(r: ReceivedRequest | undefined): { tools: WireTool[]; messages: WireMessage[] } {
  const body = r?.body as { tools?: WireTool[]; messages?: WireMessage[] } | undefined;
  return { tools: body?.tools ?? [], messages: body?.messages ?? [] };
}
const resultFor = (r: ReceivedRequest | undefined, callId: string): string | undefined => {
  const m = wire(r).messages.find((x) => x.role === 'tool' && x.tool_call_id === callId);
  return typeof m?.content === 'string' ? m.content : undefined;
};

/** The selection of the generated application for openai-chat: no provider search, so the harness's. */
function selection(): Selection {
  const decoded = readApplicationModel(generatedApplication().model);
  const built = buildCommandTools(decoded, { binary: '/bin/echo', globals: [], confirmTags: [], credentialEnvNames: [] });
  return selectTools({ sources: [{ source: 'application', tools: built.tools }], confirmTags: [], deferral: deferralPolicy(false, false) });
}

/** What the host publishes: the searchable set, with earlier loads restored. */
function sourceFor(sel: Selection, loaded: readonly string[] = []): PublishedToolSetSource {
  const source = new PublishedToolSetSource(EMPTY_TOOL_SET);
  source.publish(attachToolSearch(sel, source, { loaded }));
  return source;
}

/** The host's fingerprint: the full tool set, whatever has been loaded. */
function fingerprintOf(config: Config, source: ToolSetSource): Fingerprint {
  return computeFingerprint({
    provider: config.llm.provider,
    model: config.llm.model,
    system: systemBlocks(config.systemPrompt, config.harness.humanInTheLoop, []),
    tools: fingerprintDefinitions(source.current()),
    thinking: config.llm.thinking,
    maxTokens: config.llm.budget.maxTokens,
    maxIterations: config.llm.budget.maxIterations,
  });
}

describe('harness tool search over openai-chat', () => {
  let server: FakeModelServer;
  let dir: string;
  beforeAll(async () => {
    server = await startFakeModelServer();
    dir = mkdtempSync(join(tmpdir(), 'fisk-toolsearch-'));
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const provider = (): OpenAIChatProvider => new OpenAIChatProvider({ baseUrl: `${server.url}/v1`, callTimeoutMs: 10_000, env: {} });
  const config = testConfig('  provider: openai-chat\n');

  it('searches, then calls what it found: the next request carries the loaded definitions and only those', async () => {
    server.reset();
    const sel = selection();
    const source = sourceFor(sel);
    server.reply(
      chatCompletion(null, {
        tool_calls: [{ id: 'call_s1', name: TOOL_SEARCH_NAME, arguments: { query: 'create a new key-value bucket', limit: 3 } }],
      }),
      chatCompletion(null, {
        tool_calls: [
          { id: 'call_a', name: 'kv_add', arguments: { name: 'orders', history: '5' } },
          { id: 'call_b', name: 'stream_rm', arguments: { name: 'orders' } },
        ],
      }),
      chatCompletion('made the bucket'),
    );
    const events: AgentEvent[] = [];
    const out = await runAgent({
      settings: settingsFromConfig(config),
      provider: provider(),
      tools: source,
      prompt: 'make an orders bucket',
      events: { emit: (e) => events.push(e) },
    });
    expect(out.status).toBe('completed');
    expect(answerOf(out)).toBe('made the bucket');
    expect(server.requests).toHaveLength(3);

    // first call: the search tool alone (the application has no always-loaded commands)
    const [first, second, third] = server.requests;
    expect(toolNames(first)).toEqual([TOOL_SEARCH_NAME]);

    // the search result names what it loaded; the second request carries exactly those
    const found = JSON.parse(resultFor(second, 'call_s1') ?? '{}') as { loaded?: string[] };
    expect(found.loaded?.[0]).toBe('kv_add');
    expect(found.loaded).toHaveLength(3);
    expect(toolNames(second)).toEqual([TOOL_SEARCH_NAME, ...(found.loaded ?? [])]);
    const kvAdd = wire(second).tools.find((t) => t.function.name === 'kv_add');
    const full = sel.toolSet.get('kv_add')?.definition(false);
    expect(kvAdd?.function.description).toBe(full?.description);
    expect(kvAdd?.function.parameters).toEqual(full?.inputSchema);

    // the loaded tool ran as a real process; the one never loaded was answered, not run
    expect(resultFor(third, 'call_a')).toContain('kv add');
    expect(resultFor(third, 'call_a')).toContain('orders');
    expect(resultFor(third, 'call_b')).toBe(notLoadedMessage('stream_rm'));
    const ranCommands = events.flatMap((e) => (e.type === 'tool_result' && e.exec !== undefined ? [e.exec] : []));
    expect(ranCommands).toHaveLength(1);
    expect(toolNames(third)).toEqual(toolNames(second));
    expect(out.counters.toolCalls).toBe(3);
  });

  it('a resume restores the loaded definitions from the journaled search result, under the same fingerprint', async () => {
    server.reset();
    const store = fileSessionStore(join(dir, 'runs'));
    const source = sourceFor(selection());
    const fingerprint = fingerprintOf(config, source);
    const cp = await startCheckpoint(store, { fingerprint, prompt: 'watch the orders stream' });
    server.reply(chatCompletion(null, { tool_calls: [{ id: 'call_s1', name: TOOL_SEARCH_NAME, arguments: { query: 'stream_watch' } }] }));
    let searched = false;
    const first = await runAgent({
      settings: settingsFromConfig(config),
      provider: provider(),
      tools: source,
      prompt: 'watch the orders stream',
      ...cp.options,
      events: { emit: (e) => (searched ||= e.type === 'tool_result') },
      suspendRequested: () => searched,
    });
    await cp.journal.close();
    expect(first.status).toBe('suspended');
    expect(server.requests).toHaveLength(1);
    expect(toolNames(source.current())).toContain('stream_watch');
    // the loaded subset changed what is sent, but not the run's fingerprint
    expect(fingerprintOf(config, source)).toEqual(fingerprint);
    // the host's fingerprint covers the full set too
    expect(runFingerprint(config, source, [])).toEqual(fingerprint);

    // a new process: a fresh selection and source, the loaded names read back from the journal
    const fresh = sourceFor(selection());
    const resumed = await resumeCheckpoint(store, cp.runId, { fingerprint: fingerprintOf(config, fresh), force: false });
    const history: readonly Message[] = resumed.options.history ?? [];
    // a resume inside a batch also carries the batch (options.pendingBatch at run time)
    const { pendingBatch } = resumed.options as { readonly pendingBatch?: PendingToolBatch };
    const loaded = loadedFromHistory(history, pendingBatch);
    expect(loaded).toEqual(['stream_watch']);
    const restored = sourceFor(selection(), loaded);
    expect(fingerprintOf(config, restored)).toEqual(fingerprint);

    server.reply(
      chatCompletion(null, { tool_calls: [{ id: 'call_w', name: 'stream_watch', arguments: { name: 'orders' } }] }),
      chatCompletion('watching'),
    );
    const second = await runAgent({
      settings: settingsFromConfig(config),
      provider: provider(),
      tools: restored,
      prompt: '',
      ...resumed.options,
    });
    await resumed.journal.close();
    expect(second.status).toBe('completed');
    const [again, after] = server.requests.slice(1);
    expect(toolNames(again)).toEqual([TOOL_SEARCH_NAME, 'stream_watch']);
    expect(resultFor(after, 'call_w')).toContain('stream watch');
  });
});

function toolNames(set: { definitions(): readonly { name: string }[] }): string[];
function toolNames(r: ReceivedRequest | undefined): string[];
function toolNames(x: ReceivedRequest | undefined | { definitions(): readonly { name: string }[] }): string[] {
  if (x !== undefined && 'definitions' in x) return x.definitions().map((d) => d.name);
  return wire(x).tools.map((t) => t.function.name);
}
