/**
 * What a person's click, choice or typed answer in a Slack thread means: the reply it is to the
 * question it answers, and, for a question whose run is no longer waiting, the answer journaled
 * against the call still open so a resume carries the conversation on.
 */
import { approvalBody, appendNext, loadRun, toolResultBody } from '../../runstate/index.js';
import type { PendingCall, SessionStore } from '../../runstate/index.js';
import { declineReasonOf, declineWith } from '../../toolkit/tool.js';
import { ACTIONS } from './questions.js';
import type { QuestionRef, Reply } from './questions.js';

/** The fields of an interactive element's payload this channel reads. */
export interface ActionPayload {
  readonly action_id?: string;
  readonly block_id?: string;
  readonly value?: string;
  readonly selected_option?: { readonly value?: string };
}

/** A stored call's arguments: journaled as the model sent them, a JSON text or an object. */
function argumentsOf(input: unknown): Record<string, unknown> {
  let v = input;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v) as unknown;
    } catch {
      return {};
    }
  }
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** The question tool each kind of reply answers. */
const TOOL_OF: Readonly<Record<Exclude<Reply['kind'], 'approval'>, string>> = {
  confirm: 'ask_human_confirm',
  select: 'ask_human_select',
  input: 'ask_human_input',
};

/**
 * Journals a late reply against the call of `session` still waiting for it, checked again under
 * the journal's lock. Resolves with what was recorded, or undefined when no call waits for it.
 */
export async function journalAnswer(store: SessionStore, session: string, reply: Reply): Promise<string | undefined> {
  const find = async (): Promise<readonly PendingCall[]> => {
    const run = await loadRun(store, session);
    if (run.status === 'completed') return [];
    const calls = run.pending?.calls ?? [];
    return reply.kind === 'approval'
      ? calls.filter((c) => c.state === 'unanswered')
      : calls.filter((c) => c.state === 'deferred' && c.call.name === TOOL_OF[reply.kind]);
  };
  if ((await find()).length === 0) return undefined;
  const journal = await store.open(session);
  try {
    const calls = await find();
    const call = calls[0];
    if (call === undefined) return undefined;
    if (reply.kind === 'approval') {
      const decision = reply.decision === 'decline' ? 'decline' : 'approve';
      // every call of the stopped batch is covered: only the gated one consults it
      const reason = decision === 'decline' ? declineReasonOf(declineWith(reply.reason ?? '')) : undefined;
      for (const entry of calls) await appendNext(journal, approvalBody(entry.call.id, decision, reply.user, reason));
      return decision === 'approve' ? 'Allowed' : 'Declined';
    }
    let content: string;
    let said: string;
    switch (reply.kind) {
      case 'confirm':
        content = JSON.stringify(reply.yes ? { confirmed: true } : { confirmed: false, reason: 'the operator did not answer yes' });
        said = `Answered ${reply.yes ? 'yes' : 'no'}`;
        break;
      case 'select': {
        const options = argumentsOf(call.call.input)['options'];
        const picked = Array.isArray(options) ? (options[reply.index] as unknown) : undefined;
        if (typeof picked !== 'string') return undefined;
        content = JSON.stringify({ selected: picked });
        said = 'Chosen';
        break;
      }
      case 'input':
        content = JSON.stringify({ value: reply.text });
        said = 'Answered';
        break;
      default: {
        const never: never = reply;
        throw new Error(`unknown reply ${JSON.stringify(never)}`);
      }
    }
    await appendNext(journal, toolResultBody({ type: 'tool_result', toolUseId: call.call.id, content }));
    return said;
  } finally {
    await journal.close();
  }
}

export function replyOf(actionId: string, ref: QuestionRef, action: ActionPayload, user: string): Reply | undefined {
  switch (actionId) {
    case ACTIONS.once:
      return { kind: 'approval', decision: 'once', user };
    case ACTIONS.always:
      return { kind: 'approval', decision: 'always', user };
    case ACTIONS.decline:
    case ACTIONS.reason:
      return { kind: 'approval', decision: 'decline', user };
    case ACTIONS.yes:
      return { kind: 'confirm', yes: true, user };
    case ACTIONS.no:
      return { kind: 'confirm', yes: false, user };
    case ACTIONS.select:
      return ref.index === undefined ? undefined : { kind: 'select', index: ref.index, user };
    case ACTIONS.input:
      return typeof action.value === 'string' ? { kind: 'input', text: action.value, user } : undefined;
    default:
      return undefined;
  }
}
