import { ToolkitError } from './errors.js';
import { decideDeferral } from './deferral.js';
import type { DeferralDecision, DeferralPolicy } from './deferral.js';
import { describeSource, SOURCE_ORDER } from './source.js';
import type { FilteredTool, SourceName, ToolSource, ToolWarning } from './source.js';
import { behaviorConflicts, isDenied, RESERVED_TAGS, unknownAiTags } from './tags.js';
import { FrozenToolSet } from './tool-set.js';
import type { ToolEntry } from './tool-set.js';
import type { Tool } from './tool.js';

/** Everything the one selection function needs. */
export interface SelectionInput {
  /** Each source's built tools; the order given is ignored in favour of `SOURCE_ORDER`. */
  readonly sources: readonly ToolSource[];
  /** `harness.confirm_tags`, for the unmatched-tag warning. */
  readonly confirmTags: readonly string[];
  readonly deferral: DeferralPolicy;
  /**
   * `abort` (the default) throws on a name claimed twice. `skip` keeps the first claimant and
   * records the later one as filtered (`collision`): for a rebuild after a third party changed its
   * own list mid-run, where failing the run would hand that party a kill switch.
   */
  readonly collisions?: 'abort' | 'skip';
}

/** A run's tool set, every tool left out with its reason, and what the operator should hear. */
export interface Selection {
  readonly toolSet: FrozenToolSet;
  readonly filtered: readonly FilteredTool[];
  readonly warnings: readonly ToolWarning[];
  /** The deferral decided for this set: which names are deferred, and who answers searches for them. */
  readonly deferral: DeferralDecision;
}

function claimant(source: SourceName, label: string | undefined): string {
  return describeSource(source, label);
}

function record(name: string, src: ToolSource, reason: FilteredTool['reason'], detail: string): FilteredTool {
  return src.label === undefined
    ? { name, source: src.source, reason, detail }
    : { name, source: src.source, label: src.label, reason, detail };
}

/** How to part two claimants of one name: an MCP server's tools can be renamed by its entry's prefix. */
export function collisionRemedy(
  prior: { readonly source: SourceName; readonly label?: string | undefined },
  later: { readonly source: SourceName; readonly label?: string | undefined },
): string {
  const server = [later, prior].find((c) => c.source === 'mcp' && c.label !== undefined);
  if (server?.label !== undefined) {
    return `set a prefix on MCP server ${JSON.stringify(server.label)} (mcp_clients[].prefix: p names its tools p_<tool>), rename the other, or leave one out with include/exclude`;
  }
  return 'rename one, or leave one out with include/exclude';
}

/**
 * The single function that decides a run's tools. `fisk run`, `fisk info` and the serving
 * surfaces all call it, so what the model is sent, what is listed and what can be dispatched are
 * one list. Sources are laid out in the fixed order (application, human-in-the-loop, memory,
 * knowledge, a2a peers, MCP servers, custom); a name claimed twice aborts with a `ToolkitError`
 * (`collision`) naming both claimants, because the model addresses every tool by one flat name
 * and a silent winner could strip a gate.
 */
export function selectTools(input: SelectionInput): Selection {
  const ordered = [...input.sources].sort((a, b) => SOURCE_ORDER.indexOf(a.source) - SOURCE_ORDER.indexOf(b.source));
  const taken = new Map<string, { source: SourceName; label: string | undefined }>();
  const tools: { tool: Tool; source: SourceName; label: string | undefined }[] = [];
  const filtered: FilteredTool[] = [];
  for (const src of ordered) {
    filtered.push(...(src.filtered ?? []));
    for (const tool of src.tools) {
      // ai:deny holds for every source that carries tags, not only the application's filters.
      if (isDenied(tool.capabilities.tags)) {
        filtered.push(record(tool.name, src, 'denied', `tagged ${RESERVED_TAGS.deny}`));
        continue;
      }
      const prior = taken.get(tool.name);
      if (prior !== undefined && input.collisions === 'skip') {
        filtered.push(record(tool.name, src, 'collision', `the name is already taken by ${claimant(prior.source, prior.label)}`));
        continue;
      }
      if (prior !== undefined) {
        throw new ToolkitError(
          'collision',
          `tool name ${JSON.stringify(tool.name)} is claimed by both ${claimant(prior.source, prior.label)} and ${claimant(src.source, src.label)}; ${collisionRemedy(prior, src)}`,
        );
      }
      taken.set(tool.name, { source: src.source, label: src.label });
      tools.push({ tool, source: src.source, label: src.label });
    }
  }

  const warnings: ToolWarning[] = [];
  const allTags = new Set<string>();
  // tools built together share one frozen tag list per distinct list: each is read once
  const read = new Map<readonly string[], { unknown: string[]; conflicts: string[] }>();
  for (const { tool } of tools) {
    const tags = tool.capabilities.tags;
    let facts = read.get(tags);
    if (facts === undefined) {
      for (const tag of tags) allTags.add(tag);
      facts = { unknown: unknownAiTags(tags), conflicts: behaviorConflicts(tags) };
      if (Object.isFrozen(tags)) read.set(tags, facts);
    }
    const { unknown, conflicts } = facts;
    if (unknown.length > 0) {
      warnings.push({
        code: 'unknown_ai_tag',
        tool: tool.name,
        message: `tool ${JSON.stringify(tool.name)} carries ${unknown.join(', ')}, which this build does not know; the tag does nothing (check its spelling)`,
      });
    }
    if (conflicts.length > 0) {
      warnings.push({
        code: 'behavior_conflict',
        tool: tool.name,
        message: `tool ${JSON.stringify(tool.name)} has contradicting behaviour tags; ${conflicts.join(', ')} was dropped in favour of the more cautious reading`,
      });
    }
  }
  for (const tag of input.confirmTags) {
    if (!allTags.has(tag)) {
      warnings.push({
        code: 'confirm_tag_unmatched',
        message: `harness.confirm_tags lists ${JSON.stringify(tag)}, but no loaded tool carries it; nothing is gated by it (check the spelling)`,
      });
    }
  }

  const decision = decideDeferral(
    tools.map((t) => t.tool),
    input.deferral,
  );
  if (decision.sentAllInstead) {
    const why = input.deferral.noToolSearch ? 'llm.no_tool_search is set' : 'the provider has no tool search';
    warnings.push({
      code: 'tool_search_unavailable',
      message: `${decision.counted} tools would be deferred behind tool search, but ${why}; every definition is sent with each request`,
    });
  }
  const entries: ToolEntry[] = tools.map(({ tool, source, label }) =>
    label === undefined
      ? { tool, source, deferred: decision.deferred.has(tool.name) }
      : { tool, source, label, deferred: decision.deferred.has(tool.name) },
  );
  return { toolSet: new FrozenToolSet(entries), filtered, warnings, deferral: decision };
}
