/**
 * Events as the page receives them. Text a model, a tool or a person wrote is cleaned as the
 * terminal cleans it (escape sequences, control characters and bidirectional overrides removed), so
 * the page shows what the terminal shows; a crash travels without its stack; an approval spells out
 * invisible characters, since one that vanished on the page would still reach the command.
 */
import type { AgentEvent } from '../agent/events.js';
import { stripControl } from '../agent/sanitize.js';
import type { FoldedRun } from '../runstate/index.js';
import type { Message } from '../llm/types.js';
import { replayConversation, walkReplay } from '../agent/replay.js';
import { revealInvisible } from '../util/shell-quote.js';
import type { PageAgentEvent, ReplayedDecision } from './wire.js';

export function pageEvent(event: AgentEvent): PageAgentEvent {
  switch (event.type) {
    case 'text':
      return { ...event, text: stripControl(event.text) };
    case 'text_fragment':
      return { ...event, text: stripControl(event.text) };
    case 'thinking':
      return { ...event, text: stripControl(event.text) };
    case 'tool_call':
      return event;
    case 'tool_result':
      return {
        ...event,
        output: stripControl(event.output),
        ...(event.exec === undefined ? {} : { exec: { ...event.exec, command: stripControl(event.exec.command) } }),
      };
    case 'warning':
      return { ...event, text: stripControl(event.text) };
    case 'progress':
      return { ...event, tool: stripControl(event.tool), text: stripControl(event.text) };
    case 'status':
      return event;
    case 'question':
      return {
        ...event,
        text: event.kind === 'approval' ? revealInvisible(stripControl(event.text)) : stripControl(event.text),
        ...(event.options === undefined ? {} : { options: event.options.map(stripControl) }),
      };
    case 'approval':
      return {
        ...event,
        tool: stripControl(event.tool),
        trigger: stripControl(event.trigger),
        ...(event.reason === undefined ? {} : { reason: stripControl(event.reason) }),
      };
    case 'crash':
      // the stack is for the operator's terminal, never for a page
      return { type: 'crash', message: stripControl(event.message) };
    default: {
      const never: never = event;
      return never;
    }
  }
}

/**
 * A journaled run as the page replays it: the operator's prompts in their places and the events a
 * live run emitted, rebuilt by the same replay the terminal uses, so a declined call is shown as
 * declined. Results of a pending batch answered before the run stopped follow the batch.
 */
export function replayedRun(
  run: FoldedRun,
  visit: { prompt(text: string): void; event(event: PageAgentEvent): void; decision(decision: ReplayedDecision): void },
): void {
  const messages: Message[] = [...run.messages];
  if (run.pending !== undefined) {
    messages.push(run.pending.message);
    const answered = run.pending.calls.flatMap((p) =>
      p.state === 'answered'
        ? [
            {
              type: 'tool_result' as const,
              toolUseId: p.call.id,
              content: p.result.content,
              ...(p.result.isError === true ? { isError: true } : {}),
            },
          ]
        : [],
    );
    if (answered.length > 0) messages.push({ role: 'user', content: answered });
  }
  const { events, prompts } = replayConversation(messages);
  walkReplay(events, prompts, {
    prompt: (text) => visit.prompt(stripControl(text)),
    event: (e) => {
      visit.event(pageEvent(e));
      // the decision follows its call, where the live run put its question and the gate's answer
      const gate = e.type === 'tool_call' ? run.gates.get(e.id) : undefined;
      if (e.type !== 'tool_call' || gate === undefined) return;
      visit.decision({
        type: 'decision',
        call_id: e.id,
        tool: stripControl(e.name),
        text: revealInvisible(stripControl(gate.command_line)),
        trigger: stripControl(gate.trigger),
        outcome: gate.outcome,
        ...(gate.reason === undefined ? {} : { reason: stripControl(gate.reason) }),
      });
    },
  });
}
