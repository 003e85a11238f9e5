/**
 * A run with nobody to answer approval questions declines every gated call. Saying so at the
 * start keeps a run in a pipe or CI from looking as if its tools were simply never chosen.
 */
import type { Tool } from '../toolkit/tool.js';
import { gateOf } from '../toolkit/invoke/gate.js';

/** The warning for a run without a prompter, or `undefined` when no tool needs approval. */
export function unattendedWarning(tools: readonly Tool[], confirmTags: readonly string[]): string | undefined {
  const gated = tools.filter((t) => gateOf(t, confirmTags).gated).length;
  if (gated === 0) return undefined;
  return `${gated} ${gated === 1 ? 'tool needs' : 'tools need'} approval and there is no interactive terminal: ${gated === 1 ? 'it' : 'they'} will be declined`;
}
