/**
 * Calls of a confirm-gated tool that run without anyone approving them. The gate is not an
 * enforcement boundary, so such a call is allowed, but it is never silent: each one is reported
 * with the reason it went through unasked.
 */
import type { ConfirmOverMcp } from '../../config/types.js';

/** Why a gated call runs unasked. */
export const UNGATED_REASONS = [
  'no_elicitation', // confirm_over_mcp is auto and the client did not offer form elicitation
  'confirm_never', // confirm_over_mcp is never
] as const;
export type UngatedReason = (typeof UNGATED_REASONS)[number];

/** One gated call that runs without approval, for the log. */
export interface UngatedCall {
  readonly type: 'ungated';
  readonly tool: string;
  readonly reason: UngatedReason;
  /** The reason in words, naming the setting that decides it. */
  readonly message: string;
}

function describeReason(reason: UngatedReason): string {
  switch (reason) {
    case 'no_elicitation':
      return 'the client cannot be asked (it did not offer form elicitation) and expose.agent.mcp.confirm_over_mcp is auto';
    case 'confirm_never':
      return 'expose.agent.mcp.confirm_over_mcp is never';
    default: {
      const never: never = reason;
      return never;
    }
  }
}

/** The report for a gated call of `tool` that runs unasked under `policy`. */
export function ungatedCall(tool: string, trigger: string, reason: UngatedReason): UngatedCall {
  return { type: 'ungated', tool, reason, message: `${tool} needs approval (${trigger}) but runs without it: ${describeReason(reason)}` };
}

/** Why a gated call runs unasked under a policy that let it through. */
export function ungatedReason(policy: ConfirmOverMcp): UngatedReason {
  return policy === 'never' ? 'confirm_never' : 'no_elicitation';
}
