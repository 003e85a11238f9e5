/**
 * One served call, through the shared invocation pipeline: lookup, argument validation, the
 * confirm gate (elicitation, outside the timeout and before a slot is taken, so a person
 * deliberating holds no slot), a concurrency slot, then the tool under the per-call timeout with a
 * default-deny prompter. Every answer is a result, never a throw.
 */
import type { ConfirmOverMcp } from '../../config/types.js';
import { invokeTool } from '../../toolkit/invoke/invoke.js';
import { deferralNotCarriedMessage, servedDenialReason, shuttingDownMessage } from '../../toolkit/invoke/messages.js';
import type { ServedDenial } from '../../toolkit/invoke/messages.js';
import type { ApprovalVerdict, Approver, InvokeEvent, InvokeWrapper } from '../../toolkit/invoke/types.js';
import type { Tool } from '../../toolkit/tool.js';
import { approvalForm, denialReason, gateAction, isApproval } from './approval.js';
import type { ApprovalForm } from './approval.js';
import { DENY_PROMPTER } from '../../toolkit/invoke/deny-prompter.js';
import { ungatedCall, ungatedReason } from './ungated.js';
import type { UngatedCall } from './ungated.js';
import { gateOf } from '../../toolkit/invoke/gate.js';
import { textResult } from './result.js';
import type { ServedResult } from './result.js';
import type { Semaphore } from './semaphore.js';

/** What a call went through, for logs and tests; emitted on the call's own chain, in order. */
export type CallEvent =
  | { readonly type: 'asking'; readonly tool: string }
  | { readonly type: 'denied'; readonly tool: string; readonly reason: string }
  /** A gated tool ran without anybody approving it, by `confirm_over_mcp`. */
  | UngatedCall
  | { readonly type: 'queued'; readonly tool: string }
  | { readonly type: 'started'; readonly tool: string }
  | { readonly type: 'finished'; readonly tool: string; readonly isError: boolean };

/** Everything shared by the calls of one server. */
export interface CallPolicy {
  readonly tools: ReadonlyMap<string, Tool>;
  readonly confirmOverMcp: ConfirmOverMcp;
  /** `harness.confirm_tags`: a served tool carrying one is gated. */
  readonly confirmTags?: readonly string[];
  readonly slots: Semaphore;
  readonly toolTimeoutMs: number;
  readonly elicitationTimeoutMs: number;
  /** The working directory command tools run in. */
  readonly workDir: string | undefined;
  readonly observe?: (event: CallEvent) => void;
  /** Wrappers around each call (telemetry), outermost first. */
  readonly wrappers?: readonly InvokeWrapper[];
  /** Replaces every credential value the server holds in tool output. */
  readonly scrub?: (text: string) => string;
  /**
   * Aborts when the server begins to shut down: every call in flight is stopped (a command with
   * its process group) and answered as not completed, while its session can still carry the answer.
   */
  readonly stopping?: AbortSignal;
}

/** The calling session, as far as a call needs it. */
export interface CallPeer {
  /** Read at call time: whether the session negotiated form elicitation. */
  canElicit(): boolean;
  /** Puts the approval form to the client; rejects on timeout, cancellation or a transport error. */
  elicit(form: ApprovalForm, opts: { readonly signal: AbortSignal; readonly timeoutMs: number }): Promise<unknown>;
}

/**
 * Serves one `tools/call`. `args` is the client's arguments object (absent means `{}`);
 * `clientSignal` aborts when the client cancels or the session closes.
 */
export async function serveCall(
  policy: CallPolicy,
  peer: CallPeer,
  name: string,
  args: Record<string, unknown> | undefined,
  clientSignal: AbortSignal,
): Promise<ServedResult> {
  const stopping = policy.stopping;
  if (stopping === undefined) return answerCall(policy, peer, name, args, clientSignal);
  // one controller per call, fed by both signals and unhooked from the server's once answered
  const call = new AbortController();
  const stop = (): void => call.abort(stopping.reason);
  const cancel = (): void => call.abort(clientSignal.reason);
  if (stopping.aborted) stop();
  else stopping.addEventListener('abort', stop, { once: true });
  if (clientSignal.aborted) cancel();
  else clientSignal.addEventListener('abort', cancel, { once: true });
  try {
    return await answerCall(policy, peer, name, args, call.signal, clientSignal);
  } finally {
    stopping.removeEventListener('abort', stop);
    clientSignal.removeEventListener('abort', cancel);
  }
}

async function answerCall(
  policy: CallPolicy,
  peer: CallPeer,
  name: string,
  args: Record<string, unknown> | undefined,
  signal: AbortSignal,
  clientSignal = signal,
): Promise<ServedResult> {
  const observe = policy.observe;
  const stopping = policy.stopping;
  // what denied the call, in a few words for the log line; the client gets them with advice
  let deniedFor: string | undefined;
  const approve = approver(policy, peer, (why) => (deniedFor = why));
  const onEvent = (e: InvokeEvent): void => {
    if (e.type === 'ungated')
      observe?.({ ...ungatedCall(e.tool.name, gateOf(e.tool, policy.confirmTags ?? []).trigger, ungatedReason(policy.confirmOverMcp)) });
    else if (e.type === 'started') observe?.({ type: 'started', tool: e.tool.name });
  };
  const invoked = await invokeTool(
    { id: '', name, input: JSON.stringify(args ?? {}) },
    {
      tools: policy.tools,
      confirmTags: policy.confirmTags ?? [],
      approve,
      prompter: DENY_PROMPTER,
      ...(policy.workDir === undefined ? {} : { workDir: policy.workDir }),
      timeout: { ms: policy.toolTimeoutMs, key: 'expose.agent.mcp.tool_timeout' },
      refuseUngateable: true,
      acquireSlot: (sig) => {
        observe?.({ type: 'queued', tool: name });
        return policy.slots.acquire(sig);
      },
      observe: onEvent,
      ...(policy.wrappers === undefined ? {} : { wrappers: policy.wrappers }),
      ...(policy.scrub === undefined ? {} : { scrub: policy.scrub }),
      signal,
    },
  );
  let result: ServedResult;
  switch (invoked.kind) {
    case 'answered':
      if (invoked.refused === 'denied' || invoked.refused === 'ungateable') {
        observe?.({ type: 'denied', tool: name, reason: deniedFor ?? deniedReason(invoked.content) });
        // a denial is an error to the client, with the same allowed/reason body the loop uses
        return textResult(invoked.content, true);
      }
      result = textResult(invoked.content, invoked.isError);
      if (invoked.refused !== undefined) return result;
      break;
    case 'deferred':
      result = textResult(deferralNotCarriedMessage(name, invoked.reason), true);
      break;
    case 'end_run':
      if (stopping?.aborted === true && !clientSignal.aborted) {
        // the session is still open to carry this answer: the server closes it only afterwards
        result = textResult(shuttingDownMessage(name), true);
        break;
      }
      return textResult(clientSignal.aborted ? `the call to ${name} was cancelled by the client` : invoked.message, true);
    default: {
      const never: never = invoked;
      return never;
    }
  }
  observe?.({ type: 'finished', tool: name, isError: result.isError === true });
  return result;
}

/**
 * The confirm gate of one call: run, ask the client, or refuse, by `confirm_over_mcp` and what the
 * session negotiated. A denial's reason tells the client's model whether trying again can help;
 * `denied` hears the short form, for the log.
 */
function approver(policy: CallPolicy, peer: CallPeer, denied: (why: string) => void): Approver {
  const deny = (why: string, kind: ServedDenial): ApprovalVerdict => {
    denied(why);
    return { verdict: 'deny', reason: servedDenialReason(why, kind) };
  };
  return async (question, sig) => {
    const action = gateAction(policy.confirmOverMcp, true, peer.canElicit());
    switch (action) {
      case 'run':
        return {
          verdict: 'ungated',
          reason: ungatedCall(question.tool.name, question.trigger, ungatedReason(policy.confirmOverMcp)).message,
        };
      case 'refuse':
        return deny(
          `${question.tool.name} needs approval and this client cannot be asked (it did not offer form elicitation, and expose.agent.mcp.confirm_over_mcp is always)`,
          'unapprovable',
        );
      case 'ask': {
        policy.observe?.({ type: 'asking', tool: question.tool.name });
        let answer: unknown;
        try {
          answer = await peer.elicit(approvalForm(question.tool.name, question.commandLine, question.trigger), {
            signal: sig,
            timeoutMs: policy.elicitationTimeoutMs,
          });
        } catch (err) {
          // a question cut short by the client going away or the server stopping is no answer
          if (sig.aborted) return { verdict: 'abort' };
          return deny(`the approval request failed (${err instanceof Error ? err.message : String(err)})`, 'unanswered');
        }
        return isApproval(answer) ? { verdict: 'allow' } : deny(denialReason(answer), 'declined');
      }
      default: {
        const never: never = action;
        return never;
      }
    }
  };
}

function deniedReason(content: string): string {
  try {
    const v: unknown = JSON.parse(content);
    if (typeof v === 'object' && v !== null && typeof (v as Record<string, unknown>)['reason'] === 'string')
      return (v as Record<string, string>)['reason'] ?? content;
  } catch {
    // not the denial body; report it whole
  }
  return content;
}
