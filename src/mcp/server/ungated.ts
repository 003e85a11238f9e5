/**
 * Calls of a confirm-gated tool that run without anyone approving them. The gate is not an
 * enforcement boundary, so such a call is allowed, but it is never silent: each one is reported
 * with the reason it went through unasked.
 */
import type { ConfirmOverMcp } from '../../config/types.js';
import { validateRequired } from '../../toolkit/required.js';
import { isConfirmable } from '../../toolkit/tool.js';
import type { Tool } from '../../toolkit/tool.js';
import { gateAction } from './approval.js';

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

/**
 * Whether this call of `tool` will run past its confirm gate without asking anyone, and why; or
 * `undefined` for an ungated tool, a call the client will be asked about, or one refused before the
 * gate (a tool that cannot report a gate, missing required arguments).
 */
export function ungatedCall(tool: Tool, args: Record<string, unknown> | undefined, policy: ConfirmOverMcp, canElicit: boolean): UngatedCall | undefined {
  if (!isConfirmable(tool)) return undefined;
  const gate = tool.confirmGate();
  if (!gate.gated || gateAction(policy, true, canElicit) !== 'run') return undefined;
  if (validateRequired(tool.inputSchema, JSON.stringify(args ?? {})) !== undefined) return undefined;
  const reason: UngatedReason = policy === 'never' ? 'confirm_never' : 'no_elicitation';
  return { type: 'ungated', tool: tool.name, reason, message: `${tool.name} needs approval (${gate.trigger ?? 'ai:confirm'}) but runs without it: ${describeReason(reason)}` };
}
