import { describe, expect, it } from 'vitest';
import { ScriptedProvider, scriptedResponse, textResponse } from '../agenttest/scripted-provider.js';
import { newFuncTool } from '../toolkit/functool/index.js';
import { EventLog } from './events.js';
import type { AgentEvent } from './events.js';
import { replayConversation, replayEvents, splitEnvelope, walkReplay } from './replay.js';
import { runAgent } from './run-agent.js';
import { recordingTool, sourceOf, testSettings } from './test-support.js';

const shown = (events: readonly AgentEvent[]): AgentEvent[] =>
  events
    .filter((e) => e.type === 'tool_call' || e.type === 'tool_result' || e.type === 'thinking' || e.type === 'text')
    .map((e) => (e.type === 'tool_call' ? { type: e.type, id: e.id, name: e.name, input: e.input } : e));

describe('replaying a conversation', () => {
  it('yields the events the live run emitted', async () => {
    const command = newFuncTool({
      name: 'cmd',
      description: 'pretends to be a command',
      inputSchema: { type: 'object', properties: {} },
      handler: () =>
        Promise.resolve({
          status: 'completed',
          output: 'listed\n',
          exec: { command: 'stream ls', exitCode: 2, truncated: false },
          isError: false,
        }),
    });
    const provider = new ScriptedProvider([
      scriptedResponse([
        { type: 'thinking', text: 'let me look' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'a', name: 'cmd', input: '{}' },
        { type: 'tool_use', id: 'b', name: 'echo', input: '{"text":"hi"}' },
        { type: 'tool_use', id: 'c', name: 'ghost', input: '{}' },
      ]),
      textResponse('All done.'),
    ]);
    const live = new EventLog();
    const out = await runAgent({
      settings: testSettings(),
      provider,
      tools: sourceOf([command, recordingTool('echo', [])]),
      prompt: 'go',
      events: live,
    });
    expect(shown(replayEvents(out.messages))).toEqual(shown(live.events));
  });

  it("places the operator's prompts before the events that answered them, and leaves the loop's own turns out", async () => {
    const provider = new ScriptedProvider([
      scriptedResponse([{ type: 'tool_use', id: 'a', name: 'echo', input: '{"text":"hi"}' }]),
      textResponse('First answer.'),
    ]);
    const out = await runAgent({
      settings: testSettings(),
      provider,
      tools: sourceOf([recordingTool('echo', [])]),
      prompt: 'first question\nover two lines',
      events: new EventLog(),
    });
    const messages = [
      ...out.messages,
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'a follow-up' }] },
      { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'Second answer.' }] },
    ];
    const { events, prompts } = replayConversation(messages);
    expect(events).toEqual(replayEvents(messages));
    expect(prompts).toEqual([
      { before: 0, text: 'first question\nover two lines' },
      { before: events.findIndex((e) => e.type === 'text' && e.text === 'Second answer.'), text: 'a follow-up' },
    ]);
    expect(prompts[1]?.before).toBe(events.length - 1);
    // a conversation that ends on a prompt places it after every event
    const cut = replayConversation(messages.slice(0, -1));
    expect(cut.prompts.at(-1)).toEqual({ before: cut.events.length, text: 'a follow-up' });
    // walked in order: each prompt just before what answered it, a trailing one at the end
    const walked: string[] = [];
    walkReplay(cut.events, cut.prompts, { prompt: (t) => walked.push(`> ${t}`), event: (e) => walked.push(e.type) });
    expect(walked[0]).toBe('> first question\nover two lines');
    expect(walked.at(-1)).toBe('> a follow-up');
    expect(walked.filter((w) => w.startsWith('> '))).toHaveLength(2);
    expect(walked).toHaveLength(cut.events.length + 2);
  });

  it('notes each journaled gate decision right after its call, and nothing for a call the gate did not decide', () => {
    const messages = [
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'purge' }] },
      {
        role: 'assistant' as const,
        content: [
          { type: 'tool_use' as const, id: 'a', name: 'purge', input: '{}' },
          { type: 'tool_use' as const, id: 'b', name: 'purge', input: '{}' },
          { type: 'tool_use' as const, id: 'c', name: 'echo', input: '{}' },
        ],
      },
      {
        role: 'user' as const,
        content: [
          { type: 'tool_result' as const, toolUseId: 'a', content: 'done' },
          { type: 'tool_result' as const, toolUseId: 'b', content: 'refused' },
          { type: 'tool_result' as const, toolUseId: 'c', content: 'hi' },
        ],
      },
    ];
    const gates = new Map([
      ['a', { outcome: 'approved_once' as const, trigger: 'ai:confirm', command_line: 'purge a' }],
      ['b', { outcome: 'declined' as const, trigger: 'ai:confirm', command_line: 'purge b', reason: 'use the archive' }],
    ]);
    const { events } = replayConversation(messages, gates);
    expect(
      events.map((e) => (e.type === 'tool_call' ? `call ${e.id}` : e.type === 'tool_result' ? `result ${e.call_id}` : e.type)),
    ).toEqual(['call a', 'approval', 'result a', 'call b', 'approval', 'result b', 'call c', 'result c']);
    expect(events.filter((e) => e.type === 'approval')).toEqual([
      { type: 'approval', call_id: 'a', tool: 'purge', trigger: 'ai:confirm', outcome: 'approved_once' },
      { type: 'approval', call_id: 'b', tool: 'purge', trigger: 'ai:confirm', outcome: 'declined', reason: 'use the archive' },
    ]);
    // without the decisions the replay is the conversation alone
    expect(replayConversation(messages).events.some((e) => e.type === 'approval')).toBe(false);
  });

  it('splits only an exact command envelope', () => {
    expect(splitEnvelope('{"command":"ls","exit_code":0,"output":"x"}')).toEqual({
      output: 'x',
      exec: { command: 'ls', exit_code: 0, truncated: false },
    });
    expect(splitEnvelope('{"command":"ls","exit_code":0,"output":"x","extra":1}')).toEqual({
      output: '{"command":"ls","exit_code":0,"output":"x","extra":1}',
    });
    expect(splitEnvelope('{"ok":true}')).toEqual({ output: '{"ok":true}' });
  });
});
