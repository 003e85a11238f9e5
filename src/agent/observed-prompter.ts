/** A prompter that announces each question on the event stream before asking it. */
import type { ApprovalAnswer, ApprovalRequest, Prompter } from '../toolkit/tool.js';
import type { EventSink } from './events.js';
import { stripControl } from './sanitize.js';

/** Wraps `inner` so every question it is asked is first emitted as a `question` event. */
export function observedPrompter(inner: Prompter, events: EventSink): Prompter {
  return {
    canPrompt: () => inner.canPrompt(),
    approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
      events.emit({ type: 'question', kind: 'approval', text: request.commandLine, tool: request.tool, trigger: request.trigger });
      return inner.approve(request, signal);
    },
    confirm(question: string, signal: AbortSignal): Promise<boolean> {
      events.emit({ type: 'question', kind: 'confirm', text: stripControl(question) });
      return inner.confirm(question, signal);
    },
    select(question: string, options: readonly string[], signal: AbortSignal): Promise<string | null> {
      events.emit({ type: 'question', kind: 'select', text: stripControl(question), options });
      return inner.select(question, options, signal);
    },
    input(question: string, signal: AbortSignal): Promise<string | null> {
      events.emit({ type: 'question', kind: 'input', text: stripControl(question) });
      return inner.input(question, signal);
    },
  };
}
