/**
 * The confirm gate over MCP. There is no local operator, so a gated call is put to the calling
 * client through elicitation, and anything but an explicit approval denies.
 */
import type { ConfirmOverMcp } from '../../config/types.js';

/** How long a client's person may deliberate before the call is denied. */
export const ELICITATION_TIMEOUT_MS = 120_000;

/** What the gate does with one call. */
export const GATE_ACTIONS = ['run', 'ask', 'refuse'] as const;
export type GateAction = (typeof GATE_ACTIONS)[number];

/**
 * Decides the gate for one call from the policy, the tool's gate and what the calling session
 * negotiated (read per call, never cached). `never`, and `auto` with a client that cannot be
 * asked, run a gated tool ungated: `ai:deny` is the exclusion to rely on, not this gate.
 */
export function gateAction(policy: ConfirmOverMcp, gated: boolean, canElicit: boolean): GateAction {
  if (!gated) return 'run';
  switch (policy) {
    case 'never':
      return 'run';
    case 'auto':
      return canElicit ? 'ask' : 'run';
    case 'always':
      return canElicit ? 'ask' : 'refuse';
    default: {
      const never: never = policy;
      return never;
    }
  }
}

/** The single required field of the approval form. */
export const APPROVAL_FIELD = 'approve';

/** The form-mode elicitation parameters for one gated call. */
export interface ApprovalForm {
  readonly mode: 'form';
  readonly message: string;
  readonly requestedSchema: {
    readonly type: 'object';
    readonly properties: Readonly<Record<string, { readonly type: 'boolean'; readonly title: string; readonly description: string }>>;
    readonly required: readonly string[];
  };
}

/** Builds the approval question: the tool, the resolved call and what gated it. */
export function approvalForm(tool: string, commandLine: string, trigger: string | undefined): ApprovalForm {
  const why = trigger === undefined ? '' : ` (it is gated by ${trigger})`;
  return {
    mode: 'form',
    message: `Allow the tool ${tool} to run${why}?\n\n${commandLine}`,
    requestedSchema: {
      type: 'object',
      properties: {
        [APPROVAL_FIELD]: { type: 'boolean', title: 'Approve', description: `Run ${tool} with these arguments` },
      },
      required: [APPROVAL_FIELD],
    },
  };
}

/**
 * Whether a client's elicitation answer approves the call: only an `accept` action whose content
 * holds the boolean `true`. A decline, a dismissal, a missing field, a string `"true"` or any other
 * shape denies.
 */
export function isApproval(result: unknown): boolean {
  if (typeof result !== 'object' || result === null) return false;
  const r = result as Record<string, unknown>;
  if (r['action'] !== 'accept') return false;
  const content = r['content'];
  if (typeof content !== 'object' || content === null) return false;
  return (content as Record<string, unknown>)[APPROVAL_FIELD] === true;
}

/** Why an answer denied, in words for the denial result. */
export function denialReason(result: unknown): string {
  if (typeof result === 'object' && result !== null) {
    const action = (result as Record<string, unknown>)['action'];
    if (action === 'decline') return 'the client declined the call';
    if (action === 'cancel') return 'the client dismissed the approval request';
    if (action === 'accept') return `the client's answer did not approve the call (only ${APPROVAL_FIELD}: true does)`;
  }
  return 'the client gave no usable answer to the approval request';
}
