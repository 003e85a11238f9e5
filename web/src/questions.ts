/**
 * The dialog for a question the run puts: an approval and every `ask_human_*` question, with the
 * same choices as the terminal. No (or "No answer") is first and has the focus, so Enter on a
 * choice or Escape declines; an answer typed into the text box is sent with Enter or Send. An
 * approval can also be declined with words for the agent: what to do instead.
 */
import { $, el } from './dom.js';
import type { Answer, Question } from './events.js';

const dialog = $('question') as HTMLDialogElement;
const form = $('question-form') as HTMLFormElement;
const title = $('question-title');
const gate = $('question-gate');
const text = $('question-text');
const input = $('question-input') as HTMLInputElement;
const choices = $('question-choices');
const reasonBox = $('question-reason');
const reasonText = $('question-reason-text') as HTMLTextAreaElement;
const reasonSend = $('question-reason-send') as HTMLButtonElement;

/** The question the dialog shows, and where its answer goes. */
let asked: { readonly q: Question; readonly reply: (value: Answer) => void } | undefined;

/** What saying nothing means for a question: never a yes. */
function declined(q: Question): Answer {
  return q.kind === 'approval' ? 'decline' : null;
}

function settle(value: Answer): void {
  const a = asked;
  if (a === undefined) return;
  asked = undefined;
  if (dialog.open) dialog.close();
  a.reply(value);
}

// a typed answer is sent with Enter: the form is submitted, and that is the answer, never a close
form.addEventListener('submit', (ev) => {
  ev.preventDefault();
  if (asked?.q.kind !== 'input') return;
  if (input.value.trim() === '') {
    input.focus();
    return;
  }
  settle(input.value);
});
/** A decline with the words typed, or a plain decline when none were. */
function declineWithReason(): void {
  const reason = reasonText.value.trim();
  settle(reason === '' ? 'decline' : { decision: 'decline', reason });
}
reasonSend.addEventListener('click', () => declineWithReason());
reasonText.addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
    ev.preventDefault();
    declineWithReason();
  }
});

// Escape is no answer, which never approves anything
dialog.addEventListener('cancel', (ev) => {
  ev.preventDefault();
  if (asked !== undefined) settle(declined(asked.q));
});
// however the dialog closed, a question still open gets the conservative answer
dialog.addEventListener('close', () => {
  if (asked !== undefined) settle(declined(asked.q));
});

/** Opens the dialog for `question`; `reply` receives the answer exactly once. */
export function ask(question: Question, reply: (value: Answer) => void): void {
  asked = { q: question, reply };
  choices.replaceChildren();
  input.hidden = question.kind !== 'input';
  input.value = '';
  reasonBox.hidden = true;
  reasonText.value = '';
  gate.hidden = question.kind !== 'approval' || question.trigger === undefined;
  gate.textContent = question.trigger === undefined ? '' : `Gated by the tag ${question.trigger}.`;
  text.textContent = question.text;
  const button = (label: string, value: () => Answer, cls: string): HTMLButtonElement => {
    const b = el('button', cls, label);
    b.type = 'button';
    b.addEventListener('click', () => {
      if (question.kind === 'input' && cls === 'yes' && input.value.trim() === '') {
        input.focus();
        return;
      }
      settle(value());
    });
    choices.append(b);
    return b;
  };
  let first: HTMLButtonElement;
  switch (question.kind) {
    case 'approval':
      title.textContent = 'Approval needed';
      first = button('No, do not run it', () => 'decline', 'no');
      button('Yes, run it once', () => 'once', 'yes');
      button('Yes, and allow this tool for the rest of this run', () => 'always', 'always');
      {
        const withReason = el('button', 'reason-choice', 'No, and tell the agent what to do instead');
        withReason.type = 'button';
        withReason.setAttribute('aria-expanded', 'false');
        withReason.setAttribute('aria-controls', 'question-reason');
        withReason.addEventListener('click', () => {
          reasonBox.hidden = false;
          withReason.setAttribute('aria-expanded', 'true');
          reasonText.focus();
        });
        choices.append(withReason);
      }
      break;
    case 'confirm':
      title.textContent = 'Question';
      first = button('No', () => false, 'no');
      button('Yes', () => true, 'yes');
      break;
    case 'select':
      title.textContent = 'Choose one';
      first = button('No answer', () => null, 'no');
      for (const option of question.options ?? []) button(option, () => option, 'option');
      break;
    case 'input':
      title.textContent = 'Question';
      first = button('No answer', () => null, 'no');
      button('Send', () => input.value, 'yes');
      break;
  }
  if (!dialog.open) dialog.showModal();
  if (question.kind === 'input') input.focus();
  else first.focus();
}

/** The question was answered elsewhere (or the run moved on): the dialog goes without answering. */
export function withdraw(id: string | undefined): void {
  if (asked === undefined || (id !== undefined && asked.q.id !== id)) return;
  asked = undefined;
  if (dialog.open) dialog.close();
}

/** Whether a question is showing. */
export function open(): boolean {
  return asked !== undefined;
}
