import { describe, expect, it } from 'vitest';
import { ScriptedProvider, textResponse, toolUseResponse } from '../../agenttest/scripted-provider.js';
import type { ToolResultBlock } from '../../llm/types.js';
import { EventLog } from '../events.js';
import { runAgent } from '../run-agent.js';
import { recordingTool, sourceOf, testSettings } from '../test-support.js';
import { PII_WITHHELD, withPiiGuard } from './guard.js';
import { messageOf } from '../outcome.js';

const leaky = (calls: Record<string, unknown>[]) =>
  recordingTool('lookup', calls, {}, () => 'owner: jane.doe@example.com, card 4111 1111 1111 1111');

function firstResult(provider: ScriptedProvider): ToolResultBlock | undefined {
  const m = provider.requests[1]?.messages[2];
  return m?.content.find((b): b is ToolResultBlock => b.type === 'tool_result');
}

describe('the PII guard in a run', () => {
  it('redacts the prompt and tool output before they reach the model (the default mode), warning once', async () => {
    const provider = new ScriptedProvider([
      toolUseResponse([
        { name: 'lookup', input: {} },
        { name: 'lookup', input: {} },
      ]),
      textResponse('ok'),
    ]);
    const events = new EventLog();
    await runAgent({
      settings: testSettings(),
      provider,
      tools: sourceOf([leaky([])]),
      prompt: 'email bob@corp.example.net please',
      events,
    });
    expect(JSON.stringify(provider.requests[0]?.messages)).toContain('email [EMAIL-REDACTED] please');
    expect(JSON.stringify(provider.requests)).not.toContain('bob@corp.example.net');
    expect(firstResult(provider)?.content).toBe('owner: [EMAIL-REDACTED], card [CREDIT-CARD-REDACTED]');
    expect(events.ofType('warning').filter((w) => w.text.includes('PII'))).toHaveLength(1);
  });

  it('under reject, refuses a prompt with PII without calling the model', async () => {
    const provider = new ScriptedProvider([]);
    const out = await runAgent({
      settings: testSettings('harness:\n  pii: { mode: reject }\n'),
      provider,
      tools: sourceOf([]),
      prompt: 'ssn 123-45-6789',
    });
    expect(out.status).toBe('error');
    expect(messageOf(out)).toContain('harness.pii.mode');
    expect(provider.requests).toHaveLength(0);
  });

  it('under reject, replaces tool output with the withholding message', async () => {
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'lookup', input: {} }]), textResponse('ok')]);
    await runAgent({ settings: testSettings('harness:\n  pii: { mode: reject }\n'), provider, tools: sourceOf([leaky([])]), prompt: 'go' });
    expect(firstResult(provider)?.content).toBe(PII_WITHHELD);
  });

  it('does nothing under off', async () => {
    const provider = new ScriptedProvider([textResponse('ok')]);
    await runAgent({ settings: testSettings('harness:\n  pii: { mode: off }\n'), provider, tools: sourceOf([]), prompt: 'to a@b.io' });
    expect(JSON.stringify(provider.requests[0]?.messages)).toContain('a@b.io');
  });

  it('scans what the caller hook left behind (caller first)', async () => {
    const provider = new ScriptedProvider([textResponse('ok')]);
    await runAgent({
      settings: testSettings(),
      provider,
      tools: sourceOf([]),
      prompt: 'clean',
      hooks: { userPromptSubmit: () => ({ action: 'continue', prompt: 'now with x@y.org' }) },
    });
    expect(JSON.stringify(provider.requests[0]?.messages)).toContain('now with [EMAIL-REDACTED]');
  });

  it('treats a failed scan as a hit and tells the operator, not the model', async () => {
    const notices: string[] = [];
    const broken = {
      scan: () => [],
      redact: () => {
        throw new Error('scanner exploded');
      },
    };
    const hooks = withPiiGuard({}, 'redact', (t) => notices.push(t), broken);
    const decided = await hooks.postToolUse?.({ id: '1', name: 't', input: '{}', output: 'anything', isError: false });
    expect(decided).toEqual({ action: 'replace', output: PII_WITHHELD });
    expect(notices[0]).toContain('scanner exploded');
    const prompt = await hooks.userPromptSubmit?.('hello');
    expect(prompt?.action).toBe('deny');
  });
});
