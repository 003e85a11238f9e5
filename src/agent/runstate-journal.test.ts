import { mkdtempSync, rmSync } from 'node:fs';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ScriptedProvider, textResponse, toolUseResponse } from '../agenttest/scripted-provider.js';
import { appendNext, fileSessionStore, fold, loadRun, memorySessionStore, metaBody, startRun } from '../runstate/index.js';
import { runAgent } from './run-agent.js';
import { sessionJournal } from './runstate-journal.js';
import { ScriptedPrompter, recordingTool, sourceOf, testSettings } from './test-support.js';

describe('the session journal adapter', () => {
  it('writes records the session store accepts, and folding them gives the run back', async () => {
    const store = memorySessionStore();
    const journal = await store.create('run-1');
    await appendNext(journal, metaBody({ runId: 'run-1', created: new Date(), fingerprint: { model: 'test-model' }, prompt: 'go' }));
    const provider = new ScriptedProvider([
      toolUseResponse([{ name: 'deploy', input: { text: 'a' }, id: 'c1' }], { usage: { input: 7, output: 3 } }),
      textResponse('done', { usage: { input: 11, output: 2 } }),
    ]);
    const out = await runAgent({
      settings: testSettings(),
      provider,
      tools: sourceOf([recordingTool('deploy', [], { confirm: { trigger: 'ai:confirm' } })]),
      prompt: 'go',
      prompter: new ScriptedPrompter(['always']),
      journal: sessionJournal(journal),
    });
    expect(out.status).toBe('completed');
    const run = fold(await store.load('run-1'));
    expect(run.status).toBe('completed');
    expect(run.counters.llmCalls).toBe(out.counters.llmCalls);
    expect(run.counters.toolCalls).toBe(out.counters.toolCalls);
    expect(run.counters.usage.input).toBe(18);
    expect(run.grants).toEqual([{ tool: 'deploy', toolUseId: 'c1' }]);
    expect(run.nextIteration).toBe(out.nextIteration);
    expect(run.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('leaves an aborted run open, so it can be resumed', async () => {
    const store = memorySessionStore();
    const journal = await store.create('run-2');
    await appendNext(journal, metaBody({ runId: 'run-2', created: new Date(), fingerprint: {}, prompt: 'go' }));
    const ac = new AbortController();
    ac.abort();
    const out = await runAgent({
      settings: testSettings(),
      provider: new ScriptedProvider([]),
      tools: sourceOf([]),
      prompt: 'go',
      signal: ac.signal,
      journal: sessionJournal(journal),
    });
    expect(out.status).toBe('aborted');
    expect(fold(await store.load('run-2')).status).toBe('open');
  });
});

describe('a run journaled in the file store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fisk-run-syncs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** How many times the run's records were fsynced, counted at `fs.fsync`. */
  async function syncsOf(runId: string, provider: ScriptedProvider, tools = sourceOf([])): Promise<number> {
    const store = fileSessionStore(join(dir, 'runs'));
    const journal = await startRun(store, { runId, fingerprint: { model: 'test-model' }, prompt: 'go' });
    const sync = vi.spyOn(fs, 'fsync');
    try {
      const out = await runAgent({ settings: testSettings(), provider, tools, prompt: 'go', journal: sessionJournal(journal) });
      expect(out.status).toBe('completed');
      return sync.mock.calls.length;
    } finally {
      sync.mockRestore();
      await journal.close();
      expect((await loadRun(store, runId)).status).toBe('completed');
    }
  }

  it('syncs a one-model-call run once: its answer and terminal record are one write', async () => {
    expect(await syncsOf('one-call', new ScriptedProvider([textResponse('done')]))).toBe(1);
    const records = await fileSessionStore(join(dir, 'runs')).load('one-call');
    expect(records.map((r) => r.protocol.split('.').pop())).toEqual(['meta', 'assistant', 'terminal']);
  });

  it('syncs the turn that asks for a tool before the tool runs, and its result before the next call', async () => {
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'deploy', input: { text: 'a' }, id: 'c1' }]), textResponse('done')]);
    // the tool turn, its result, then the answer with the terminal record
    expect(await syncsOf('tool-call', provider, sourceOf([recordingTool('deploy', [])]))).toBe(3);
  });
});
