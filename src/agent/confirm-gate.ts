/**
 * The confirm gate: the default-deny check in front of a gated tool, independent of the
 * human-in-the-loop tools. A decline an operator already gave for the call refuses it first;
 * otherwise it checks for a prompter, then for an aborted run, and only then consults grants, so a
 * grant restored from a journal cannot run a gated command with nobody present. There is no
 * standing denial: a run that ended before the operator answered cannot
 * persist a decision they never made.
 */
import { Unanswered } from '../toolkit/tool.js';
import type { ApprovalDecision, ApprovalRequest, Prompter } from '../toolkit/tool.js';

export { CONFIRM_TAG, denialOutput, gateOf } from '../toolkit/invoke/gate.js';
export type { GateInfo } from '../toolkit/invoke/gate.js';

/** The gate's answer for one call. */
export type GateVerdict =
  | { readonly verdict: 'allow'; readonly via: 'operator' | 'grant' }
  /** Allowed, and the operator asked to allow the tool for the rest of the run: journal it once answered. */
  | { readonly verdict: 'allow'; readonly via: 'new_grant'; readonly grant: string }
  | { readonly verdict: 'deny'; readonly reason: string }
  /** The run was cancelled before the operator could be asked, or the question met silence. */
  | { readonly verdict: 'abort' };

export const NO_OPERATOR_REASON =
  'this tool needs an operator to approve each call and none is present; the call was not run and will not be approved in this run';
export const DECLINED_REASON =
  'the operator declined this call; the decision is final, so do not retry it or reach the same effect another way';

/** Holds a run's grants and asks the operator. */
export class ConfirmGate {
  readonly #prompter: Prompter | undefined;
  readonly #standing: Set<string>;
  readonly #oneShot: Set<string>;
  readonly #declined: Set<string>;

  /**
   * @param prompter who to ask; absent means nobody, and every gated call is denied.
   * @param standing tools approved for the rest of the run (restored from a journal).
   * @param oneShot call ids approved once, out of band, while the run was suspended.
   * @param declined call ids declined out of band while the run was suspended: the decision
   *   already made answers the gate's question on resume, so nobody is asked twice.
   */
  constructor(prompter: Prompter | undefined, standing: Iterable<string> = [], oneShot: Iterable<string> = [], declined: Iterable<string> = []) {
    this.#prompter = prompter;
    this.#standing = new Set(standing);
    this.#oneShot = new Set(oneShot);
    this.#declined = new Set(declined);
  }

  /** Tools approved for the rest of the run, including grants not yet journaled. */
  standingGrants(): string[] {
    return [...this.#standing].sort();
  }

  /** Decides one gated call. */
  async check(callId: string, request: ApprovalRequest, signal: AbortSignal): Promise<GateVerdict> {
    // a decline is final whoever is present: refusing is always the safe direction
    if (this.#declined.delete(callId)) return { verdict: 'deny', reason: DECLINED_REASON };
    const prompter = this.#prompter;
    if (prompter === undefined || !prompter.canPrompt()) return { verdict: 'deny', reason: NO_OPERATOR_REASON };
    if (signal.aborted) return { verdict: 'abort' };
    if (this.#oneShot.delete(callId)) return { verdict: 'allow', via: 'grant' };
    if (this.#standing.has(request.tool)) return { verdict: 'allow', via: 'grant' };
    let decision: ApprovalDecision;
    try {
      decision = await prompter.approve(request, signal);
    } catch (err) {
      // silence is no decision: the run stops here and the call is asked about again on resume
      if (err instanceof Unanswered) return { verdict: 'abort' };
      throw err;
    }
    if (signal.aborted) return { verdict: 'abort' };
    switch (decision) {
      case 'once':
        return { verdict: 'allow', via: 'operator' };
      case 'always':
        // honoured from now on, journaled only after the triggering call is answered
        this.#standing.add(request.tool);
        return { verdict: 'allow', via: 'new_grant', grant: request.tool };
      case 'decline':
        return { verdict: 'deny', reason: DECLINED_REASON };
      default: {
        const never: never = decision;
        return { verdict: 'deny', reason: `unrecognized approval decision ${String(never)}; treated as a decline` };
      }
    }
  }
}
