/**
 * A prompter whose questions are answered through the run handle: each question goes out as a
 * `question` event carrying a minted id, and `answer(id, value)` resolves it. A full-screen view, a
 * browser and a remote caller all answer this way. Silence is never a yes: a cancelled or closed
 * question resolves to the conservative answer.
 */
import { randomUUID } from 'node:crypto';
import { stripControl } from '../agent/sanitize.js';
import { approvalFromValue } from '../toolkit/tool.js';
import type { ApprovalAnswer, ApprovalRequest, Prompter } from '../toolkit/tool.js';
import type { QuestionAnswer } from './question-answer.js';
import type { EventHub } from './event-hub.js';

interface Pending {
  readonly resolve: (value: QuestionAnswer) => void;
}

export class HandlePrompter implements Prompter {
  readonly #hub: EventHub;
  readonly #pending = new Map<string, Pending>();
  #open = true;

  constructor(hub: EventHub) {
    this.#hub = hub;
  }

  canPrompt(): boolean {
    return this.#open;
  }

  /** Delivers an answer; false when no question with that id is waiting. */
  answer(id: string, value: QuestionAnswer): boolean {
    const p = this.#pending.get(id);
    if (p === undefined) return false;
    this.#pending.delete(id);
    p.resolve(value);
    return true;
  }

  /** Nobody will answer any more: every open question gets the conservative answer. */
  close(): void {
    this.#open = false;
    for (const [id, p] of this.#pending) {
      this.#pending.delete(id);
      p.resolve(null);
    }
  }

  #ask(
    event: {
      kind: 'approval' | 'confirm' | 'select' | 'input';
      text: string;
      options?: readonly string[];
      tool?: string;
      trigger?: string;
    },
    signal: AbortSignal,
  ): Promise<QuestionAnswer> {
    if (!this.#open || signal.aborted) return Promise.resolve(null);
    const id = randomUUID();
    return new Promise<QuestionAnswer>((resolve) => {
      const onAbort = (): void => {
        this.#pending.delete(id);
        resolve(null);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#pending.set(id, {
        resolve: (v) => {
          signal.removeEventListener('abort', onAbort);
          resolve(v);
        },
      });
      this.#hub.emit({
        type: 'question',
        id,
        kind: event.kind,
        text: event.text,
        ...(event.options === undefined ? {} : { options: event.options }),
        ...(event.tool === undefined ? {} : { tool: event.tool }),
        ...(event.trigger === undefined ? {} : { trigger: event.trigger }),
      });
    });
  }

  async approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    return approvalFromValue(
      await this.#ask({ kind: 'approval', text: request.commandLine, tool: request.tool, trigger: request.trigger }, signal),
    );
  }

  async confirm(question: string, signal: AbortSignal): Promise<boolean> {
    return (await this.#ask({ kind: 'confirm', text: stripControl(question) }, signal)) === true;
  }

  async select(question: string, options: readonly string[], signal: AbortSignal): Promise<string | null> {
    const a = await this.#ask({ kind: 'select', text: stripControl(question), options }, signal);
    return typeof a === 'string' && options.includes(a) ? a : null;
  }

  async input(question: string, signal: AbortSignal): Promise<string | null> {
    const a = await this.#ask({ kind: 'input', text: stripControl(question) }, signal);
    return typeof a === 'string' ? a : null;
  }
}
