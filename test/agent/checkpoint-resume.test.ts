/**
 * Journaled runs through the library: a checkpointed run suspended at a boundary resumes from
 * the store and completes without repeating a journaled model call; the resume refusals.
 */
import { describe, expect, it } from 'vitest';
import { resumeCheckpoint, runFingerprint, startCheckpoint } from '../../src/agent/checkpoint.js';
import { runAgent } from '../../src/agent/run-agent.js';
import { recordingTool, sourceOf, testConfig } from '../../src/agent/test-support.js';
import { ScriptedProvider, textResponse, toolUseResponse } from '../../src/agenttest/scripted-provider.js';
import {
  appendNext,
  assistantBody,
  deferralBody,
  isRunStateError,
  loadRun,
  memorySessionStore,
  toolResultBody,
} from '../../src/runstate/index.js';
import { answerOf } from '../../src/agent/outcome.js';
import { settingsFromConfig } from '../../src/agent/settings.js';

describe('checkpoint and resume', () => {
  it('resumes a suspended run and completes it without repeating a model call', async () => {
    const store = memorySessionStore();
    const config = testConfig();
    const calls: Record<string, unknown>[] = [];
    const tools = sourceOf([recordingTool('probe', calls)]);
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'probe', input: { n: 1 }, id: 'call_1' }]), textResponse('finished')]);
    const fingerprint = runFingerprint(config, tools, []);

    const cp = await startCheckpoint(store, { runId: 'r1', fingerprint, prompt: 'probe it' });
    let boundaries = 0;
    const first = await runAgent({
      settings: settingsFromConfig(config),
      provider,
      tools,
      prompt: 'probe it',
      ...cp.options,
      suspendRequested: () => ++boundaries > 1,
    });
    await cp.journal.close();
    expect(first.status).toBe('suspended');
    expect(provider.requests).toHaveLength(1);
    expect(calls).toHaveLength(1);

    const resumed = await resumeCheckpoint(store, 'r1', { fingerprint, force: false });
    expect(resumed.run.nextIteration).toBe(1);
    const second = await runAgent({ settings: settingsFromConfig(config), provider, tools, prompt: '', ...resumed.options });
    await resumed.journal.close();
    expect(second.status).toBe('completed');
    expect(provider.requests).toHaveLength(2);
    expect(calls).toHaveLength(1);
    expect(JSON.stringify(provider.requests[1]?.messages)).toContain('call_1');
    const stored = await loadRun(store, 'r1');
    expect(stored.status).toBe('completed');
    expect(stored.counters.llmCalls).toBe(2);
  });

  it('refuses a changed model naming it, and lets --force through', async () => {
    const store = memorySessionStore();
    const tools = sourceOf([]);
    const cp = await startCheckpoint(store, { runId: 'r2', fingerprint: runFingerprint(testConfig(), tools, []), prompt: 'p' });
    await cp.journal.close();
    const base = testConfig();
    const fingerprint = runFingerprint({ ...base, llm: { ...base.llm, model: 'other-model' } }, tools, []);
    const refusal = await resumeCheckpoint(store, 'r2', { fingerprint, force: false }).catch((err: unknown) => err);
    expect(isRunStateError(refusal) && refusal.code === 'fingerprint').toBe(true);
    expect(String(refusal)).toContain('model: test-model -> other-model');
    // a refusal takes no claim
    expect(await store.load('r2')).toHaveLength(1);
    const forced = await resumeCheckpoint(store, 'r2', { fingerprint, force: true });
    await forced.journal.close();
    expect(forced.changes.map((c) => c.field)).toEqual(['model']);
  });

  it('finishes a batch cut short by a crash, running only the call with no recorded result', async () => {
    const store = memorySessionStore();
    const config = testConfig();
    const calls: Record<string, unknown>[] = [];
    const tools = sourceOf([recordingTool('probe', calls)]);
    const fingerprint = runFingerprint(config, tools, []);
    const cp = await startCheckpoint(store, { runId: 'r3', fingerprint, prompt: 'p' });
    const turn = toolUseResponse([
      { name: 'probe', input: { n: 1 }, id: 'call_1' },
      { name: 'probe', input: { n: 2 }, id: 'call_2' },
    ]);
    await appendNext(cp.journal, assistantBody({ iteration: 0, message: turn.message, stopReason: turn.stopReason, usage: turn.usage }));
    await appendNext(cp.journal, toolResultBody({ type: 'tool_result', toolUseId: 'call_1', content: '{"n":1}' }));
    // the process died here, with call_2 in flight and unrecorded
    await cp.journal.close();

    const provider = new ScriptedProvider([textResponse('both done')]);
    const resumed = await resumeCheckpoint(store, 'r3', { fingerprint, force: false });
    const outcome = await runAgent({ settings: settingsFromConfig(config), provider, tools, prompt: '', ...resumed.options });
    await resumed.journal.close();
    expect(outcome.status).toBe('completed');
    expect(answerOf(outcome)).toBe('both done');
    expect(calls).toEqual([{ n: 2 }]);
    expect(provider.requests).toHaveLength(1);
    const sent = JSON.stringify(provider.requests[0]?.messages);
    expect(sent).toContain('call_1');
    expect(sent).toContain('call_2');
    const stored = await loadRun(store, 'r3');
    expect(stored.pending).toBeUndefined();
    expect(stored.counters.llmCalls).toBe(2);
    expect(stored.status).toBe('completed');
  });

  it('refuses a batch still waiting for a deferred call, naming how to answer it', async () => {
    const store = memorySessionStore();
    const config = testConfig();
    const tools = sourceOf([]);
    const fingerprint = runFingerprint(config, tools, []);
    const cp = await startCheckpoint(store, { runId: 'r5', fingerprint, prompt: 'p' });
    const turn = toolUseResponse([{ name: 'probe', input: {}, id: 'call_9' }]);
    await appendNext(cp.journal, assistantBody({ iteration: 0, message: turn.message, stopReason: turn.stopReason, usage: turn.usage }));
    await appendNext(cp.journal, deferralBody('call_9', 'probe', 'a person will answer'));
    await cp.journal.close();
    await expect(resumeCheckpoint(store, 'r5', { fingerprint, force: false })).rejects.toThrow(/fisk session answer r5/);
    // a refusal takes no claim
    expect(await store.load('r5')).toHaveLength(3);
  });

  it('refuses a completed run', async () => {
    const store = memorySessionStore();
    const config = testConfig();
    const tools = sourceOf([]);
    const fingerprint = runFingerprint(config, tools, []);
    const cp = await startCheckpoint(store, { runId: 'r4', fingerprint, prompt: 'p' });
    const done = await runAgent({
      settings: settingsFromConfig(config),
      provider: new ScriptedProvider([textResponse('ok')]),
      tools,
      prompt: 'p',
      ...cp.options,
    });
    await cp.journal.close();
    expect(done.status).toBe('completed');
    await expect(resumeCheckpoint(store, 'r4', { fingerprint, force: false })).rejects.toThrow(/already completed/);
  });
});
