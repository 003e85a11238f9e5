/**
 * The confirm gate: the default-deny check in front of a gated tool, independent of the
 * human-in-the-loop tools. A decline an operator already gave for the call refuses it first;
 * otherwise it checks for a prompter, then for an aborted run, and only then consults grants, so a
 * grant restored from a journal cannot run a gated command with nobody present. There is no
 * standing denial: a run that ended before the operator answered cannot
 * persist a decision they never made.
 */
import { declineReasonOf, decisionOf, Unanswered } from '../toolkit/tool.js';
import type { ApprovalAnswer, ApprovalRequest, Prompter } from '../toolkit/tool.js';

export { CONFIRM_TAG, denialOutput, gateOf } from '../toolkit/invoke/gate.js';
export type { GateInfo } from '../toolkit/invoke/gate.js';

/** The gate's answer for one call. */
export type GateVerdict =
  /** `earlier`: approved out of band while the run was suspended; `grant`: a standing approval. */
  | { readonly verdict: 'allow'; readonly via: 'operator' | 'grant' | 'earlier' }
  /** Allowed, and the operator asked to allow the tool for the rest of the run: journal it once answered. */
  | { readonly verdict: 'allow'; readonly via: 'new_grant'; readonly grant: string }
  /**
   * Refused: by the operator now, by a decline given out of band (`earlier`), or because nobody
   * can approve it. `operatorReason` is what the operator said to do instead.
   */
  | {
      readonly verdict: 'deny';
      readonly by: 'operator' | 'earlier' | 'no_operator';
      readonly reason: string;
      readonly operatorReason?: string;
    }
  /** The run was cancelled before the operator could be asked, or the question met silence. */
  | { readonly verdict: 'abort' };

export const NO_OPERATOR_REASON =
  'this tool needs an operator to approve each call and none is present; the call was not run and will not be approved in this run';
export const DECLINED_REASON =
  'the operator declined this call; the decision is final, so do not retry it or reach the same effect another way';
export const DECLINED_WITH_REASON =
  'the operator declined this call and said what to do instead (operator_reason); do not retry this call, follow what they said';

/** Holds a run's grants and asks the operator. */
export class ConfirmGate {
  readonly #prompter: Prompter | undefined;
  readonly #standing: Set<string>;
  readonly #oneShot: Set<string>;
  readonly #declined: Set<string>;
  readonly #declineReasons: ReadonlyMap<string, string>;

  /**
   * @param prompter who to ask; absent means nobody, and every gated call is denied.
   * @param standing tools approved for the rest of the run (restored from a journal).
   * @param oneShot call ids approved once, out of band, while the run was suspended.
   * @param declined call ids declined out of band while the run was suspended: the decision
   *   already made answers the gate's question on resume, so nobody is asked twice.
   * @param declineReasons what the operator said to do instead, by call id, for declines that carried words.
   */
  constructor(
    prompter: Prompter | undefined,
    standing: Iterable<string> = [],
    oneShot: Iterable<string> = [],
    declined: Iterable<string> = [],
    declineReasons: Readonly<Record<string, string>> = {},
  ) {
    this.#prompter = prompter;
    this.#standing = new Set(standing);
    this.#oneShot = new Set(oneShot);
    this.#declined = new Set(declined);
    this.#declineReasons = new Map(Object.entries(declineReasons));
  }

  /** Tools approved for the rest of the run, including grants not yet journaled. */
  standingGrants(): string[] {
    return [...this.#standing].sort();
  }

  /** Decides one gated call. */
  async check(callId: string, request: ApprovalRequest, signal: AbortSignal): Promise<GateVerdict> {
    // a decline is final whoever is present: refusing is always the safe direction
    if (this.#declined.delete(callId)) {
      const said = declineReasonOf({ decision: 'decline', reason: this.#declineReasons.get(callId) ?? '' });
      return said === undefined
        ? { verdict: 'deny', by: 'earlier', reason: DECLINED_REASON }
        : { verdict: 'deny', by: 'earlier', reason: DECLINED_WITH_REASON, operatorReason: said };
    }
    const prompter = this.#prompter;
    if (prompter === undefined || !prompter.canPrompt()) return { verdict: 'deny', by: 'no_operator', reason: NO_OPERATOR_REASON };
    if (signal.aborted) return { verdict: 'abort' };
    if (this.#oneShot.delete(callId)) return { verdict: 'allow', via: 'earlier' };
    if (this.#standing.has(request.tool)) return { verdict: 'allow', via: 'grant' };
    let answer: ApprovalAnswer;
    try {
      answer = await prompter.approve(request, signal);
    } catch (err) {
      // silence is no decision: the run stops here and the call is asked about again on resume
      if (err instanceof Unanswered) return { verdict: 'abort' };
      throw err;
    }
    if (signal.aborted) return { verdict: 'abort' };
    const decision = decisionOf(answer);
    switch (decision) {
      case 'once':
        return { verdict: 'allow', via: 'operator' };
      case 'always':
        // honoured from now on, journaled only after the triggering call is answered
        this.#standing.add(request.tool);
        return { verdict: 'allow', via: 'new_grant', grant: request.tool };
      case 'decline': {
        const said = declineReasonOf(answer);
        return said === undefined
          ? { verdict: 'deny', by: 'operator', reason: DECLINED_REASON }
          : { verdict: 'deny', by: 'operator', reason: DECLINED_WITH_REASON, operatorReason: said };
      }
      default: {
        const never: never = decision;
        return { verdict: 'deny', by: 'operator', reason: `unrecognized approval decision ${String(never)}; treated as a decline` };
      }
    }
  }
}
