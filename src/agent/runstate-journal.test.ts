import { describe, expect, it } from 'vitest';
import { ScriptedProvider, textResponse, toolUseResponse } from '../agenttest/scripted-provider.js';
import { appendNext, fold, memorySessionStore, metaBody } from '../runstate/index.js';
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
