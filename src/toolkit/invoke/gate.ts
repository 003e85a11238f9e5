/** Whether a call stands behind the confirm gate, and how a declined call is answered. */
import type { Tool } from '../tool.js';

/** The reserved tag that always gates. */
export const CONFIRM_TAG = 'ai:confirm';

/** Whether a tool is gated, and what put it there. */
export interface GateInfo {
  readonly gated: boolean;
  readonly trigger: string;
}

/**
 * Resolves a tool's gate. The tool's own answer and its tags against the operator's
 * `harness.confirm_tags` are both consulted and either one gates: a tool that reports no gate but
 * carries a gated tag is still gated, because the gate must fail closed.
 */
export function gateOf(tool: Tool, confirmTags: readonly string[]): GateInfo {
  const g = tool.capabilities.gate;
  if (g?.gated === true) return { gated: true, trigger: g.trigger ?? CONFIRM_TAG };
  const tags = tool.capabilities.tags;
  if (tags.includes(CONFIRM_TAG)) return { gated: true, trigger: CONFIRM_TAG };
  const hit = tags.find((t) => confirmTags.includes(t));
  if (hit !== undefined) return { gated: true, trigger: hit };
  return { gated: false, trigger: '' };
}

/**
 * The answer a declined call gets: authoritative, and not an error. `operatorReason` is what the
 * operator said to do instead, when they said anything; it travels in a field of its own so the
 * model (and a replay) can tell the operator's words from the harness's.
 */
export function denialOutput(reason: string, operatorReason?: string): string {
  return JSON.stringify(
    operatorReason === undefined ? { allowed: false, reason } : { allowed: false, reason, operator_reason: operatorReason },
  );
}
