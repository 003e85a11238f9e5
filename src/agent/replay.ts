/**
 * Events rebuilt from a stored conversation, so a journal replay (`fisk session show
 * --transcript`) renders through the same renderer as a live run and prints the same lines.
 */
import type { Message, ToolResultBlock, ToolUseBlock } from '../llm/types.js';
import type { AgentEvent, ExecInfo } from './events.js';
import { refusalOf } from '../toolkit/invoke/messages.js';
import { inputObject } from './sanitize.js';
import type { GatePayload } from '../runstate/records.js';

/**
 * A command result travels to the model as its JSON envelope; a live run's event carries the
 * output and the exec record apart. This splits a stored envelope the same way, so both render
 * alike. Anything that is not exactly an envelope is an in-process tool's own text.
 */
export function splitEnvelope(content: string): { readonly output: string; readonly exec?: ExecInfo } {
  if (!content.startsWith('{"command":')) return { output: content };
  try {
    const v = JSON.parse(content) as Record<string, unknown>;
    const keys = Object.keys(v).sort().join(',');
    if (
      (keys === 'command,exit_code,output' || keys === 'command,exit_code,output,truncated') &&
      typeof v['command'] === 'string' &&
      typeof v['exit_code'] === 'number' &&
      typeof v['output'] === 'string'
    ) {
      return { output: v['output'], exec: { command: v['command'], exit_code: v['exit_code'], truncated: v['truncated'] === true } };
    }
  } catch {
    // not an envelope
  }
  return { output: content };
}

/** An operator's prompt in a stored conversation, and where it falls among the replayed events. */
export interface ReplayedPrompt {
  /** The index of the replayed event the prompt comes before (the number of events when it comes last). */
  readonly before: number;
  readonly text: string;
}

/**
 * The events a conversation implies, in the order a live run emits them: an assistant turn's
 * thinking and text first (the text of a turn without tool calls is final), then each tool call
 * followed by its result from the next message. Presentation is unknown from a journal, so tool
 * calls carry none. Operator prompts are not events: they come apart, each placed before the event
 * that answered it, so a resumed run can show each question before its answer. A user turn that
 * carries tool results is the loop's, not the operator's, and is left out with any text riding on it.
 * With the journaled gate decisions (by call id), each gated call's `approval` event follows its
 * call, where the live run emitted it.
 */
export function replayConversation(
  messages: readonly Message[],
  gates?: ReadonlyMap<string, GatePayload>,
): { readonly events: AgentEvent[]; readonly prompts: ReplayedPrompt[] } {
  const events: AgentEvent[] = [];
  const prompts: ReplayedPrompt[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'user') {
      if (message.content.some((b) => b.type === 'tool_result')) return;
      const text = message.content
        .flatMap((b) => (b.type === 'text' ? [b.text] : []))
        .join('\n')
        .trim();
      if (text !== '') prompts.push({ before: events.length, text });
      return;
    }
    const calls = message.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
    for (const block of message.content) {
      if (block.type === 'thinking' && block.text !== '') events.push({ type: 'thinking', text: block.text });
      if (block.type === 'text' && block.text !== '') events.push({ type: 'text', text: block.text, final: calls.length === 0 });
    }
    const next = messages[index + 1];
    const results = new Map<string, ToolResultBlock>();
    if (next?.role === 'user') for (const block of next.content) if (block.type === 'tool_result') results.set(block.toolUseId, block);
    for (const call of calls) {
      events.push({ type: 'tool_call', id: call.id, name: call.name, input: inputObject(call.input) });
      const gate = gates?.get(call.id);
      if (gate !== undefined)
        events.push({
          type: 'approval',
          call_id: call.id,
          tool: call.name,
          trigger: gate.trigger,
          outcome: gate.outcome,
          ...(gate.reason === undefined ? {} : { reason: gate.reason }),
        });
      const result = results.get(call.id);
      if (result === undefined) continue;
      const { output, exec } = splitEnvelope(result.content);
      const isError = result.isError === true;
      const refused = exec === undefined ? refusalOf(result.content, isError) : undefined;
      events.push({
        type: 'tool_result',
        call_id: result.toolUseId,
        is_error: isError,
        output,
        ...(exec === undefined ? {} : { exec }),
        ...(refused === undefined ? {} : { refused }),
      });
    }
  });
  return { events, prompts };
}

/** The events of `replayConversation`, without the prompts. */
export function replayEvents(messages: readonly Message[]): AgentEvent[] {
  return replayConversation(messages).events;
}

/** Walks a replay in order: each prompt just before the event it came before, and any after the last event at the end. */
export function walkReplay(
  events: readonly AgentEvent[],
  prompts: readonly ReplayedPrompt[],
  visit: { prompt(text: string): void; event(event: AgentEvent): void },
): void {
  let next = 0;
  const promptsUpTo = (index: number): void => {
    for (; next < prompts.length && (prompts[next]?.before ?? 0) <= index; next++) visit.prompt(prompts[next]?.text ?? '');
  };
  events.forEach((event, i) => {
    promptsUpTo(i);
    visit.event(event);
  });
  promptsUpTo(Number.POSITIVE_INFINITY);
}
