/**
 * A question a served run puts to its A2A caller: the task goes to `input-required` with the
 * question, and the caller's next message on that task answers it. Silence past the window, a
 * cancel or a drain gives the question up (`Unanswered`), and the asker decides what that means.
 */
import type { Message, Part } from '@a2a-js/sdk';
import { approvalFromValue, declineWith, Unanswered } from '../../toolkit/tool.js';
import type { ApprovalAnswer, ApprovalRequest, Prompter } from '../../toolkit/tool.js';
import { dataAnswer, dataPart, messageText, textPart } from './wire.js';

export type QuestionKind = 'approval' | 'confirm' | 'select' | 'input';

export interface Question {
  readonly kind: QuestionKind;
  readonly text: string;
  readonly options?: readonly string[];
}

/** Where a question goes: the task's asker publishes it and resolves with the caller's message. */
export interface Asker {
  /** Resolves with the message that answers, or `undefined` when the question was given up. */
  ask(question: Question): Promise<Message | undefined>;
  /** False once the task was cancelled or the server drains: a question then is not put. */
  canAsk(): boolean;
}

/** The parts of the `input-required` status: the question in words, and as data for a program. */
export function questionParts(q: Question): Part[] {
  const how =
    q.kind === 'approval'
      ? 'Reply "once" to allow this call, "always" to allow it for the rest of the task, or anything else to decline (your words are passed on as the reason).'
      : q.kind === 'confirm'
        ? 'Reply "yes" or "no".'
        : q.kind === 'select'
          ? `Reply with one of: ${(q.options ?? []).map((o, i) => `${i + 1}) ${o}`).join(', ')}.`
          : 'Reply with your answer.';
  const lead = q.kind === 'approval' ? `Approve this call? ${q.text}` : q.text;
  return [
    textPart(`${lead}\n\n${how}`),
    dataPart({ question: { kind: q.kind, text: q.text, ...(q.options === undefined ? {} : { options: [...q.options] }) } }),
  ];
}

const YES = new Set(['y', 'yes', 'true', 'ok', 'approve', 'approved', 'allow', 'confirm']);

/** The answer in a caller's message: its data `answer` when given, else its text. */
function answerOf(message: Message): unknown {
  const data = dataAnswer(message);
  return data === undefined ? messageText(message) : data;
}

export function confirmAnswer(message: Message): boolean {
  const a = answerOf(message);
  if (typeof a === 'boolean') return a;
  return typeof a === 'string' && YES.has(a.trim().toLowerCase());
}

export function approvalAnswer(message: Message): ApprovalAnswer {
  const a = answerOf(message);
  if (typeof a !== 'string') return approvalFromValue(a);
  const word = a.trim().toLowerCase();
  if (word === 'once' || word === 'always') return word;
  if (YES.has(word)) return 'once';
  return word === '' || word === 'no' || word === 'n' || word === 'decline' ? 'decline' : declineWith(a.trim());
}

export function selectAnswer(message: Message, options: readonly string[]): string | null {
  const a = answerOf(message);
  if (typeof a !== 'string') return null;
  const text = a.trim();
  const exact = options.find((o) => o === text) ?? options.find((o) => o.toLowerCase() === text.toLowerCase());
  if (exact !== undefined) return exact;
  const n = /^\d+$/u.test(text) ? Number(text) : NaN;
  return Number.isInteger(n) && n >= 1 && n <= options.length ? (options[n - 1] ?? null) : null;
}

export function inputAnswer(message: Message): string | null {
  const a = answerOf(message);
  return typeof a === 'string' && a.trim() !== '' ? a.trim() : null;
}

/** The run's prompter: every question goes to the caller of the task. */
export class TaskPrompter implements Prompter {
  constructor(
    private readonly asker: Asker,
    private readonly who: string,
  ) {}

  canPrompt(): boolean {
    return this.asker.canAsk();
  }

  async #ask(q: Question): Promise<Message> {
    const m = await this.asker.ask(q);
    if (m === undefined) throw new Unanswered(`${this.who} did not answer the question`);
    return m;
  }

  async approve(request: ApprovalRequest): Promise<ApprovalAnswer> {
    return approvalAnswer(await this.#ask({ kind: 'approval', text: request.commandLine }));
  }

  async confirm(question: string): Promise<boolean> {
    return confirmAnswer(await this.#ask({ kind: 'confirm', text: question }));
  }

  async select(question: string, options: readonly string[]): Promise<string | null> {
    return selectAnswer(await this.#ask({ kind: 'select', text: question, options }), options);
  }

  async input(question: string): Promise<string | null> {
    return inputAnswer(await this.#ask({ kind: 'input', text: question }));
  }
}
