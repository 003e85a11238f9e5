/**
 * A model that nests a tool call's arguments thousands of levels deep: the run journals the turn,
 * refuses the call with an error the model sees (the tool never runs), suspends, and resumes,
 * without overflowing the stack anywhere on the way.
 */
import { describe, expect, it } from 'vitest';
import { resumeCheckpoint, runFingerprint, startCheckpoint } from '../../src/agent/checkpoint.js';
import { runAgent } from '../../src/agent/run-agent.js';
import { recordingTool, sourceOf, testConfig } from '../../src/agent/test-support.js';
import { ScriptedProvider, textResponse, toolUseResponse } from '../../src/agenttest/scripted-provider.js';
import { loadRun, memorySessionStore } from '../../src/runstate/index.js';
import { settingsFromConfig } from '../../src/agent/settings.js';
import { answerOf } from '../../src/agent/outcome.js';

describe('deeply nested tool input', () => {
  it('is journaled, answered, suspended and resumed', async () => {
    const depth = 5000;
    const input = `{"text":"x","q":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const store = memorySessionStore();
    const config = testConfig();
    const calls: Record<string, unknown>[] = [];
    const tools = sourceOf([recordingTool('probe', calls, {}, () => 'seen')]);
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'probe', input, id: 'call_deep' }]), textResponse('finished')]);
    const fingerprint = runFingerprint(config, tools, []);

    const cp = await startCheckpoint(store, { runId: 'deep', fingerprint, prompt: 'go' });
    let boundaries = 0;
    const first = await runAgent({
      settings: settingsFromConfig(config),
      provider,
      tools,
      prompt: 'go',
      ...cp.options,
      suspendRequested: () => ++boundaries > 1,
    });
    await cp.journal.close();
    expect(first.status).toBe('suspended');
    // refused where model output enters: nothing walks input nested that deep, the tool included
    expect(calls).toHaveLength(0);

    const stored = await loadRun(store, 'deep');
    const call = stored.messages.flatMap((m) => m.content).find((b) => b.type === 'tool_use');
    expect(call?.type === 'tool_use' ? call.input : '').toBe(input);
    const result = stored.messages.flatMap((m) => m.content).find((b) => b.type === 'tool_result');
    expect(result?.type === 'tool_result' ? result.content : '').toMatch(/^invalid arguments for probe: .*nest/);

    const resumed = await resumeCheckpoint(store, 'deep', { fingerprint, force: false });
    const second = await runAgent({ settings: settingsFromConfig(config), provider, tools, prompt: '', ...resumed.options });
    await resumed.journal.close();
    expect(second.status).toBe('completed');
    expect(answerOf(second)).toBe('finished');
  });
});
