/**
 * The tools lent to peers over a2a: the run's selection narrowed by `expose.agent.tools`, keeping
 * only tools that declare a2a exposure, can report their gate, are not gated (no operator stands
 * behind a served call), and have a valid name and a description. Every tool left out is
 * recorded with its reason.
 */
import type { Filter } from '../config/types.js';
import { compileFilters, filterVerdict } from '../toolkit/filter.js';
import { gateOf } from '../toolkit/invoke/gate.js';
import { isValidToolName } from '../toolkit/names.js';
import type { FilteredTool } from '../toolkit/source.js';
import type { ToolEntry } from '../toolkit/tool-set.js';
import type { Tool } from '../toolkit/tool.js';

function leftOut(e: ToolEntry, reason: FilteredTool['reason'], detail: string): FilteredTool {
  return e.label === undefined
    ? { name: e.tool.name, source: e.source, reason, detail }
    : { name: e.tool.name, source: e.source, label: e.label, reason, detail };
}

/** Narrows a run's selection to what a2a serves. */
export function selectA2aTools(input: {
  readonly entries: readonly ToolEntry[];
  readonly expose: { readonly include: Filter; readonly exclude: Filter };
  readonly confirmTags: readonly string[];
}): { readonly tools: readonly Tool[]; readonly filtered: readonly FilteredTool[] } {
  const filters = compileFilters(input.expose.include, input.expose.exclude, 'expose.agent.tools.');
  const tools: Tool[] = [];
  const filtered: FilteredTool[] = [];
  for (const e of input.entries) {
    const t = e.tool;
    const verdict = filterVerdict({ name: t.name, tags: t.capabilities.tags }, filters);
    if (verdict !== undefined) {
      filtered.push(leftOut(e, verdict.reason, verdict.reason === 'denied' ? verdict.detail : `expose.agent.tools: ${verdict.detail}`));
    } else if (!t.a2aExposable()) {
      filtered.push(leftOut(e, 'not_exposed', `a ${t.kind} tool that does not declare a2a exposure`));
    } else if (t.capabilities.gate === null) {
      filtered.push(leftOut(e, 'not_confirmable', 'cannot report whether it needs approval, so it is not lent ungated'));
    } else if (gateOf(t, input.confirmTags).gated) {
      filtered.push(leftOut(e, 'gated', 'needs approval and no operator stands behind a served call'));
    } else if (!isValidToolName(t.name) || t.description.trim() === '') {
      filtered.push(leftOut(e, 'not_exposed', 'an invalid name or no description; a peer could not call it'));
    } else {
      tools.push(t);
    }
  }
  return { tools, filtered };
}
