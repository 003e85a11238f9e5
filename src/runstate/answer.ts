import { RunStateError } from './errors.js';
import type { FoldedRun, PendingCall } from './fold.js';

/**
 * Checks that `callId` is a deferred call still waiting for its answer, before anything is
 * written. The committed conversation is looked at first: answering a deferral completes and
 * commits its turn, so a second answer must hear "already answered", not "never deferred".
 * Throws `RunStateError` `answer` naming what is wrong.
 */
export function checkAnswer(run: FoldedRun, callId: string): Extract<PendingCall, { state: 'deferred' }> {
  for (const message of run.messages) {
    for (const block of message.content) {
      if (block.type === 'tool_result' && block.toolUseId === callId) {
        throw new RunStateError('answer', `call ${callId} of run ${run.runId} was already answered`);
      }
    }
  }
  const pending = run.pending?.calls.find((c) => c.call.id === callId);
  if (pending === undefined) throw new RunStateError('answer', `run ${run.runId} has no call ${callId} waiting for an answer`);
  switch (pending.state) {
    case 'answered':
      throw new RunStateError('answer', `call ${callId} of run ${run.runId} was already answered`);
    case 'unanswered':
      throw new RunStateError(
        'answer',
        `call ${callId} (${pending.call.name}) of run ${run.runId} was not deferred; it runs again when the run is resumed with fisk run --resume ${run.runId}`,
      );
    case 'deferred':
      return pending;
    default: {
      const never: never = pending;
      throw new RunStateError('answer', `unknown call state ${JSON.stringify(never)}`);
    }
  }
}

/**
 * Checks that `callId` is a call of the stopped batch that has neither a result nor a deferral,
 * so an operator's approval or decline can wait for it, and that no decision is recorded for it yet.
 * Throws `RunStateError` `answer` naming what is wrong.
 */
export function checkDecision(run: FoldedRun, callId: string): Extract<PendingCall, { state: 'unanswered' }> {
  const pending = run.pending?.calls.find((c) => c.call.id === callId);
  const answered = run.messages.some((m) => m.content.some((b) => b.type === 'tool_result' && b.toolUseId === callId));
  if (answered || pending?.state === 'answered')
    throw new RunStateError('answer', `call ${callId} of run ${run.runId} was already answered`);
  if (pending === undefined) throw new RunStateError('answer', `run ${run.runId} has no call ${callId} waiting for an answer`);
  if (pending.state === 'deferred') {
    throw new RunStateError(
      'answer',
      `call ${callId} (${pending.call.name}) of run ${run.runId} was deferred: answer it with a result, fisk session answer ${run.runId} ${callId} RESULT`,
    );
  }
  if (pending.approval !== undefined)
    throw new RunStateError(
      'answer',
      `call ${callId} of run ${run.runId} was already ${pending.approval === 'approve' ? 'approved' : 'declined'}`,
    );
  return pending;
}
