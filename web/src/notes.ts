/** The words of the notes a question leaves in the conversation: what was answered or decided. */
import type { Answer, ApprovalOutcome, Question } from './events.js';

/** What was answered to a question, in words, for the note left in the conversation. */
export function answeredWith(q: Question, answer: Answer, by: 'page' | 'no_page'): string {
  if (by === 'no_page') return 'No answer: no page was open to ask';
  switch (q.kind) {
    case 'approval':
      return 'Answered';
    case 'confirm':
      return answer === true ? 'Answered yes' : 'Answered no';
    case 'select':
      return typeof answer === 'string' ? `Chose "${answer}"` : 'No answer';
    case 'input':
      return typeof answer === 'string' ? `Answered "${answer}"` : 'No answer';
  }
}

/** What the confirm gate decided, in the words the terminal uses. */
export function decided(outcome: ApprovalOutcome): string {
  switch (outcome) {
    case 'approved_once':
      return 'Approved once';
    case 'approved_for_run':
      return 'Approved for the rest of this run';
    case 'approved_by_grant':
      return 'Allowed by the approval for the rest of this run';
    case 'approved_earlier':
      return 'Approved while the run was stopped';
    case 'declined':
      return 'Declined';
    case 'declined_earlier':
      return 'Declined while the run was stopped';
    case 'no_operator':
      return 'Declined: nobody here can approve it';
    case 'cancelled':
      return 'Not decided: the run was cancelled';
  }
}

export function gatedBy(trigger: string | undefined): string {
  return trigger === undefined || trigger === '' ? '' : ` (gated by ${trigger})`;
}
