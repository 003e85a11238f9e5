import { describe, expect, it } from 'vitest';
import { ScriptedProvider, textResponse, toolUseResponse } from '../agenttest/scripted-provider.js';
import type { Message, ToolResultBlock } from '../llm/types.js';
import { MAX_DECLINE_REASON, approvalFromValue, declineReasonOf } from '../toolkit/tool.js';
import { renderEvent } from '../render/line-renderer.js';
import { DECLINED_REASON, DECLINED_WITH_REASON, NO_OPERATOR_REASON } from './confirm-gate.js';
import { EventLog } from './events.js';
import type { AgentEvent } from './events.js';
import { MemoryJournal } from './journal.js';
import { replayEvents } from './replay.js';
import { runAgent } from './run-agent.js';
import { ScriptedPrompter, recordingTool, sourceOf, testSettings } from './test-support.js';

function resultsIn(message: Message | undefined): ToolResultBlock[] {
  return (message?.content ?? []).filter((b): b is ToolResultBlock => b.type === 'tool_result');
}

const gated = (calls: Record<string, unknown>[]) => recordingTool('deploy', calls, { tags: ['impact:rw'] });
const settings = () => testSettings('harness:\n  confirm_tags: [impact:rw]\n');

describe('a decline that carries a reason', () => {
  it("sends the operator's words to the model beside the refusal, and says what was decided and which tag gated it", async () => {
    const calls: Record<string, unknown>[] = [];
    const prompter = new ScriptedPrompter([{ decision: 'decline', reason: '  use the\nstaging stream\u001b[2J instead ' }]);
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'deploy', input: { text: 'prod' }, id: 'c1' }]), textResponse('ok')]);
    const events = new EventLog();
    const journal = new MemoryJournal();
    await runAgent({ settings: settings(), provider, tools: sourceOf([gated(calls)]), prompt: 'go', prompter, events, journal });
    expect(calls).toEqual([]);
    const [result] = resultsIn(provider.requests[1]?.messages[2]);
    expect(result?.isError).toBeUndefined();
    expect(JSON.parse(result?.content ?? '{}')).toEqual({
      allowed: false,
      reason: DECLINED_WITH_REASON,
      operator_reason: 'use the staging stream instead',
    });
    expect(events.ofType('approval')).toEqual([
      {
        type: 'approval',
        call_id: 'c1',
        tool: 'deploy',
        trigger: 'impact:rw',
        outcome: 'declined',
        reason: 'use the staging stream instead',
      },
    ]);
    expect(events.ofType('question')[0]).toMatchObject({ kind: 'approval', tool: 'deploy', trigger: 'impact:rw' });
    const [live] = events.ofType('tool_result');
    expect(live?.refused).toBe('denied');

    // journaled with the refusal, and replayed exactly as the live run showed it
    const stored = journal.entries().find((e) => e.type === 'tool_result');
    expect(stored?.type === 'tool_result' ? stored.result.content : '').toBe(result?.content);
    const replayed = replayEvents(provider.requests[1]?.messages ?? []).filter(
      (e): e is Extract<AgentEvent, { type: 'tool_result' }> => e.type === 'tool_result',
    );
    expect(replayed).toEqual([live]);
    const line = (e: AgentEvent): string[] => renderEvent(e, { toolOutput: false, verbose: false });
    expect(line(replayed[0] as AgentEvent)).toEqual(line(live as AgentEvent));
    expect(line(live as AgentEvent)).toEqual(['<- refused: declined by the operator, who said: use the staging stream instead']);
    expect(line(events.ofType('approval')[0] as AgentEvent)).toEqual([
      'approval: deploy declined (gated by impact:rw); the operator said: use the staging stream instead',
    ]);
  });

  it('is a plain decline when the reason is empty', async () => {
    const prompter = new ScriptedPrompter([{ decision: 'decline', reason: '   ' }]);
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'deploy', input: {} }]), textResponse('ok')]);
    const events = new EventLog();
    await runAgent({ settings: settings(), provider, tools: sourceOf([gated([])]), prompt: 'go', prompter, events });
    expect(JSON.parse(resultsIn(provider.requests[1]?.messages[2])[0]?.content ?? '{}')).toEqual({
      allowed: false,
      reason: DECLINED_REASON,
    });
    expect(events.ofType('approval')[0]).not.toHaveProperty('reason');
  });

  it('reads a reason only beside a decline, and caps it', () => {
    expect(approvalFromValue({ decision: 'decline', reason: 'no' })).toEqual({ decision: 'decline', reason: 'no' });
    expect(approvalFromValue({ decision: 'once', reason: 'sneaky' })).toBe('decline');
    expect(approvalFromValue('always')).toBe('always');
    expect(approvalFromValue({ decision: 'decline', reason: 3 })).toBe('decline');
    expect(approvalFromValue(null)).toBe('decline');
    const long = declineReasonOf({ decision: 'decline', reason: 'x'.repeat(MAX_DECLINE_REASON + 50) }) ?? '';
    expect(Array.from(long)).toHaveLength(MAX_DECLINE_REASON + 1);
  });
});

describe('the approval event says what was decided', () => {
  it('marks a call nobody can approve as refused, with the tag that gated it', async () => {
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'deploy', input: {}, id: 'c9' }]), textResponse('ok')]);
    const events = new EventLog();
    await runAgent({ settings: settings(), provider, tools: sourceOf([gated([])]), prompt: 'go', events });
    expect(events.ofType('tool_result')).toEqual([
      {
        type: 'tool_result',
        call_id: 'c9',
        is_error: false,
        output: JSON.stringify({ allowed: false, reason: NO_OPERATOR_REASON }),
        refused: 'denied',
      },
    ]);
    expect(events.ofType('approval')).toEqual([
      { type: 'approval', call_id: 'c9', tool: 'deploy', trigger: 'impact:rw', outcome: 'no_operator' },
    ]);
  });

  it('tells an approval once, for the run, and by the standing grant apart', async () => {
    const prompter = new ScriptedPrompter(['once', 'always']);
    const provider = new ScriptedProvider([
      toolUseResponse([
        { name: 'deploy', input: {}, id: 'a' },
        { name: 'deploy', input: {}, id: 'b' },
        { name: 'deploy', input: {}, id: 'c' },
      ]),
      textResponse('ok'),
    ]);
    const events = new EventLog();
    await runAgent({ settings: settings(), provider, tools: sourceOf([gated([])]), prompt: 'go', prompter, events });
    expect(events.ofType('approval').map((e) => [e.call_id, e.outcome])).toEqual([
      ['a', 'approved_once'],
      ['b', 'approved_for_run'],
      ['c', 'approved_by_grant'],
    ]);
  });
});
