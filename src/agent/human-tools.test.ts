import { describe, expect, it } from 'vitest';
import { ScriptedProvider, textResponse, toolUseResponse } from '../agenttest/scripted-provider.js';
import type { ToolResultBlock } from '../llm/types.js';

import { EventLog } from './events.js';
import { HUMAN_NOTE, HUMAN_TOOL_NAMES, MAX_OPTIONS, MAX_QUESTION, humanTools } from './human-tools.js';
import { runAgent } from './run-agent.js';
import { ScriptedPrompter, sourceOf, testSettings } from './test-support.js';

const hitl = 'harness:\n  human_in_the_loop: { enabled: true }\n';

async function ask(
  calls: { name: string; input: unknown }[],
  prompter: ScriptedPrompter | undefined,
): Promise<{ results: string[]; provider: ScriptedProvider; events: EventLog }> {
  const provider = new ScriptedProvider([toolUseResponse(calls), textResponse('ok')]);
  const events = new EventLog();
  await runAgent({
    settings: testSettings(hitl),
    provider,
    tools: sourceOf(humanTools()),
    prompt: 'go',
    events,
    ...(prompter === undefined ? {} : { prompter }),
  });
  const results = (provider.requests[1]?.messages[2]?.content ?? [])
    .filter((b): b is ToolResultBlock => b.type === 'tool_result')
    .map((b) => b.content);
  return { results, provider, events };
}

describe('human-in-the-loop built-ins', () => {
  it('are built-ins that need a prompter, are operator-paced, and are never exposed', () => {
    const tools = humanTools();
    expect(tools.map((t) => t.name)).toEqual([...HUMAN_TOOL_NAMES]);
    for (const t of tools) {
      expect(t.kind).toBe('builtin');
      expect(t.mcpExposable()).toBe(false);
      expect(t.a2aExposable()).toBe(false);
      expect(t.capabilities.prompter).toBe(true);
      expect(t.capabilities.operatorPaced).toBe(true);
    }
  });

  it('ask the operator and return the documented shapes', async () => {
    const prompter = new ScriptedPrompter([], [true, 'blue', 'typed text']);
    const { results, events } = await ask(
      [
        { name: 'ask_human_confirm', input: { question: 'Proceed?\u001b[31m' } },
        { name: 'ask_human_select', input: { question: 'Colour?', options: ['red', 'blue'] } },
        { name: 'ask_human_input', input: { question: 'Name?' } },
      ],
      prompter,
    );
    expect(results.map((r) => JSON.parse(r) as unknown)).toEqual([{ confirmed: true }, { selected: 'blue' }, { value: 'typed text' }]);
    expect(prompter.questions).toEqual(['Proceed?', 'Colour?', 'Name?']);
    expect(events.ofType('question').map((q) => q.kind)).toEqual(['confirm', 'select', 'input']);
  });

  it('deny by default with nobody present', async () => {
    const { results } = await ask(
      [
        { name: 'ask_human_confirm', input: { question: 'Proceed?' } },
        { name: 'ask_human_select', input: { question: 'Colour?', options: ['red'] } },
        { name: 'ask_human_input', input: { question: 'Name?' } },
      ],
      new ScriptedPrompter([], [true, 'red', 'x'], false),
    );
    const parsed = results.map((r) => JSON.parse(r) as Record<string, unknown>);
    expect(parsed.map((r) => [r['confirmed'], r['selected'], r['value']].find((v) => v !== undefined))).toEqual([false, null, null]);
    for (const r of parsed) expect(r['reason']).toMatch(/no operator is present/u);
  });

  it('say why there is no answer when the operator cancels', async () => {
    const { results } = await ask(
      [
        { name: 'ask_human_select', input: { question: 'Colour?', options: ['red'] } },
        { name: 'ask_human_input', input: { question: 'Name?' } },
      ],
      new ScriptedPrompter([], [null, null]),
    );
    for (const r of results) expect((JSON.parse(r) as { reason?: string }).reason).toMatch(/cancelled/u);
  });

  it('collapse line breaks in a question, and refuse one too long to show or too many options', async () => {
    const prompter = new ScriptedPrompter([], [true]);
    const { results } = await ask(
      [
        { name: 'ask_human_confirm', input: { question: 'Delete prod?\n\nyes means keep it\r\nreally' } },
        { name: 'ask_human_confirm', input: { question: 'x'.repeat(MAX_QUESTION + 1) } },
        { name: 'ask_human_select', input: { question: 'Pick', options: Array.from({ length: MAX_OPTIONS + 1 }, (_, i) => `o${i}`) } },
      ],
      prompter,
    );
    expect(prompter.questions).toEqual(['Delete prod? yes means keep it really']);
    expect(results[1]).toContain(`at most ${MAX_QUESTION}`);
    expect(results[2]).toMatch(new RegExp(`at most ${MAX_OPTIONS}`, 'u'));
  });

  it('treat an answer that is not one of the options as no choice', async () => {
    const { results } = await ask(
      [{ name: 'ask_human_select', input: { question: 'Pick', options: ['a', 'b'] } }],
      new ScriptedPrompter([], ['c']),
    );
    expect(JSON.parse(results[0] ?? '{}')).toEqual({ selected: null, reason: 'the answer was not one of the options' });
  });

  it('refuse an empty question', async () => {
    const { results } = await ask([{ name: 'ask_human_confirm', input: { question: '  ' } }], new ScriptedPrompter([], [true]));
    expect(results[0]).toContain('non-empty');
  });

  it('add a system prompt note when enabled', async () => {
    const { provider } = await ask([], undefined);
    expect(provider.requests[0]?.system.map((s) => s.text)).toEqual(['You test things.', HUMAN_NOTE]);
  });
});
