/**
 * Which of a run's tools are served over MCP. The input is the run's one selection; this only
 * narrows it, and every tool it leaves out is recorded with the reason.
 */
import type { Filter } from '../../config/types.js';
import { compileFilters, filterVerdict } from '../../toolkit/filter.js';
import type { FilteredTool } from '../../toolkit/source.js';
import type { ToolEntry } from '../../toolkit/tool-set.js';
import type { Tool } from '../../toolkit/tool.js';
import { McpServeError } from './errors.js';

/** What narrowing needs besides the run's tools. */
export interface ServedSelectionInput {
  /** The run's tool set entries, as `selectTools` laid them out. */
  readonly entries: readonly ToolEntry[];
  /** `expose.agent.tools`: can only remove. */
  readonly expose: { readonly include: Filter; readonly exclude: Filter };
  /** `expose.agent.mcp.builtins`: the built-ins the operator chose to serve. */
  readonly builtins: readonly string[];
}

/** The served tools in registration order, and each tool left out with why. */
export interface ServedSelection {
  readonly tools: readonly Tool[];
  readonly filtered: readonly FilteredTool[];
}

function leftOut(e: ToolEntry, reason: FilteredTool['reason'], detail: string): FilteredTool {
  return e.label === undefined
    ? { name: e.tool.name, source: e.source, reason, detail }
    : { name: e.tool.name, source: e.source, label: e.label, reason, detail };
}

/**
 * Narrows a run's tools to the served set. A tool is served only if `expose.agent.tools` keeps
 * it, it declares MCP exposure (the ceiling), a built-in is also listed in
 * `expose.agent.mcp.builtins` (the allowlist only narrows), and it can report whether it is
 * confirm-gated (an absent gate must not look like no gate). Application commands are registered
 * ahead of everything else and the first to claim a name keeps it; a second claim throws
 * `McpServeError` (`collision`), since a later tool taking a command's name could strip its gate.
 * Throws `ToolkitError` (`filter`) for an invalid `expose.agent.tools` pattern.
 */
export function selectServedTools(input: ServedSelectionInput): ServedSelection {
  const filters = compileFilters(input.expose.include, input.expose.exclude, 'expose.agent.tools.');
  const allow = new Set(input.builtins);
  const ordered = [...input.entries.filter((e) => e.source === 'application'), ...input.entries.filter((e) => e.source !== 'application')];
  const tools: Tool[] = [];
  const filtered: FilteredTool[] = [];
  const claimed = new Map<string, ToolEntry>();
  for (const entry of ordered) {
    const tool = entry.tool;
    const verdict = filterVerdict({ name: tool.name, tags: tool.capabilities.tags }, filters);
    if (verdict !== undefined) {
      filtered.push(leftOut(entry, verdict.reason, verdict.reason === 'denied' ? verdict.detail : `expose.agent.tools: ${verdict.detail}`));
      continue;
    }
    if (!tool.mcpExposable()) {
      filtered.push(leftOut(entry, 'not_exposed', `a ${tool.kind} tool that does not declare MCP exposure`));
      continue;
    }
    if (tool.kind === 'builtin' && !allow.has(tool.name)) {
      filtered.push(leftOut(entry, 'not_exposed', 'a built-in not listed in expose.agent.mcp.builtins'));
      continue;
    }
    if (tool.capabilities.gate === null) {
      filtered.push(
        leftOut(entry, 'not_confirmable', 'cannot report whether it needs approval, so it is refused rather than served ungated'),
      );
      continue;
    }
    const prior = claimed.get(tool.name);
    if (prior !== undefined) {
      throw new McpServeError(
        'collision',
        `tool name ${JSON.stringify(tool.name)} is claimed by a ${prior.tool.kind} tool and a ${tool.kind} tool; leave one out with expose.agent.tools.exclude`,
      );
    }
    claimed.set(tool.name, entry);
    tools.push(tool);
  }
  return { tools, filtered };
}
