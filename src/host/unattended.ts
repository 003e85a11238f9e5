/**
 * A run with nobody to answer questions declines every gated call and every question the model
 * asks. Saying so at the start keeps a run in a pipe or CI from looking as if its tools were simply
 * never chosen, or as if the operator had said no.
 */
import type { Tool } from '../toolkit/tool.js';
import { gateOf } from '../toolkit/invoke/gate.js';
import { HUMAN_TOOL_NAMES } from '../agent/human-tools.js';

const HUMAN_TOOLS: ReadonlySet<string> = new Set(HUMAN_TOOL_NAMES);

/** The warnings for a run without a prompter: none when no tool needs approval or asks a person. */
export function unattendedWarnings(tools: readonly Tool[], confirmTags: readonly string[]): string[] {
  const warnings: string[] = [];
  const gated = tools.filter((t) => gateOf(t, confirmTags).gated).length;
  if (gated > 0) {
    warnings.push(
      `${gated} ${gated === 1 ? 'tool needs' : 'tools need'} approval and there is no interactive terminal: ${gated === 1 ? 'it' : 'they'} will be declined`,
    );
  }
  if (tools.some((t) => t.kind === 'builtin' && HUMAN_TOOLS.has(t.name))) {
    warnings.push(
      'harness.human_in_the_loop is on and there is no interactive terminal: questions the model asks (ask_human_*) will be answered as declined',
    );
  }
  return warnings;
}
