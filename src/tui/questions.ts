/**
 * The choices a question offers in the full-screen view. The first choice is always the cautious
 * one (No, or None of these), so a reflexive Enter never says yes or picks an option. An approval
 * also offers a decline that carries the operator's words to the agent.
 */
import type { QuestionEvent } from '../agent/events.js';
import type { QuestionAnswer } from '../host/index.js';

export interface ChoiceSet {
  readonly labels: readonly string[];
  readonly values: readonly QuestionAnswer[];
  /** The answer Esc, Ctrl-C and silence give. */
  readonly declined: QuestionAnswer;
  /** The index of the choice that declines and asks what the agent should do instead. */
  readonly withReason?: number;
}

export const DECLINE_WITH_REASON_LABEL = 'No, and tell the agent what to do instead';

export function choicesFor(q: QuestionEvent): ChoiceSet {
  switch (q.kind) {
    case 'approval':
      return {
        labels: ['No, do not run it', 'Yes, run it once', 'Yes, and allow it for the rest of this run', DECLINE_WITH_REASON_LABEL],
        values: ['decline', 'once', 'always', 'decline'],
        declined: 'decline',
        withReason: 3,
      };
    case 'confirm':
      return { labels: ['No', 'Yes'], values: [false, true], declined: false };
    case 'select':
      // no option is chosen for the person: Enter at once answers none
      return { labels: ['None of these', ...(q.options ?? [])], values: [null, ...(q.options ?? [])], declined: null };
    case 'input':
      return { labels: [], values: [], declined: null };
    default: {
      const never: never = q.kind;
      return never;
    }
  }
}

/** The answer a typed reason gives: a plain decline when nothing was typed. */
export function reasonedDecline(text: string): QuestionAnswer {
  const reason = text.trim();
  return reason === '' ? 'decline' : { decision: 'decline', reason };
}

/** The title of a question's box. */
export function questionTitle(q: QuestionEvent, typingReason: boolean): string {
  if (typingReason) return 'Tell the agent what to do instead (Enter sends the decline, Esc declines without words):';
  if (q.kind === 'approval') return `Approval needed to run${q.trigger === undefined ? '' : ` (gated by ${q.trigger})`}:`;
  return q.kind === 'input' ? 'A question (Enter sends, Esc declines):' : 'A question:';
}
