import type { Filter } from '../config/types.js';
import { ToolkitError } from './errors.js';
import type { FilteredTool, SourceName } from './source.js';
import { isDenied, RESERVED_TAGS } from './tags.js';

/** A tool as the filters see it: a name and its tags. */
export interface Filterable {
  readonly name: string;
  readonly tags: readonly string[];
}

/** Compiled include/exclude rules. */
export interface CompiledFilters {
  readonly includeTools: readonly RegExp[];
  readonly includeTags: readonly string[];
  readonly excludeTools: readonly RegExp[];
  readonly excludeTags: readonly string[];
}

function compile(patterns: readonly string[], key: string): RegExp[] {
  return patterns.map((p) => {
    try {
      return new RegExp(p, 'u');
    } catch (err) {
      throw new ToolkitError(
        'filter',
        `${key}: ${JSON.stringify(p)} is not a valid regular expression (${(err as Error).message}); fix the pattern`,
        { cause: err },
      );
    }
  });
}

/** Compiles filters once; `keyPrefix` (`""`, `expose.agent.tools.`) names the keys in errors. */
export function compileFilters(include: Filter, exclude: Filter, keyPrefix = ''): CompiledFilters {
  return {
    includeTools: compile(include.tools, `${keyPrefix}include.tools`),
    includeTags: include.tags,
    excludeTools: compile(exclude.tools, `${keyPrefix}exclude.tools`),
    excludeTags: exclude.tags,
  };
}

function tagMatch(tool: Filterable, wanted: readonly string[]): string | undefined {
  for (const w of wanted) {
    if (w === '' ? tool.tags.length === 0 : tool.tags.includes(w)) return w;
  }
  return undefined;
}

/**
 * Why `tool` is left out, or `undefined` when it stays. `ai:deny` is decided first and nothing
 * adds the tool back; include filters only apply when some are set (a name pattern or a tag,
 * either is enough); exclude wins over include; `""` as a tag matches an untagged tool.
 */
export function filterVerdict(tool: Filterable, f: CompiledFilters): Pick<FilteredTool, 'reason' | 'detail'> | undefined {
  if (isDenied(tool.tags)) return { reason: 'denied', detail: `tagged ${RESERVED_TAGS.deny}` };
  if (f.includeTools.length + f.includeTags.length > 0) {
    const byName = f.includeTools.some((r) => r.test(tool.name));
    const byTag = tagMatch(tool, f.includeTags) !== undefined;
    if (!byName && !byTag) return { reason: 'not_included', detail: 'matches no include.tools pattern or include.tags tag' };
  }
  const pattern = f.excludeTools.find((r) => r.test(tool.name));
  if (pattern !== undefined) return { reason: 'excluded', detail: `name matches exclude.tools ${JSON.stringify(pattern.source)}` };
  const tag = tagMatch(tool, f.excludeTags);
  if (tag !== undefined) {
    return { reason: 'excluded', detail: tag === '' ? 'untagged, and exclude.tags lists ""' : `tagged ${tag}, listed in exclude.tags` };
  }
  return undefined;
}

/**
 * Splits tools into those kept and a record of each one left out, in input order. `view` says how
 * a tool is seen by the filters (its name and tags), so tools of any shape are filtered as they
 * are, without a wrapper made for each.
 */
export function applyFilters<T extends Filterable>(
  tools: readonly T[],
  filters: CompiledFilters,
  source: SourceName,
): { kept: T[]; filtered: FilteredTool[] };
export function applyFilters<T>(
  tools: readonly T[],
  filters: CompiledFilters,
  source: SourceName,
  view: (tool: T) => Filterable,
): { kept: T[]; filtered: FilteredTool[] };
export function applyFilters<T>(
  tools: readonly T[],
  filters: CompiledFilters,
  source: SourceName,
  view: (tool: T) => Filterable = (tool) => tool as unknown as Filterable,
): { kept: T[]; filtered: FilteredTool[] } {
  const kept: T[] = [];
  const filtered: FilteredTool[] = [];
  for (const t of tools) {
    const seen = view(t);
    const verdict = filterVerdict(seen, filters);
    if (verdict === undefined) kept.push(t);
    else filtered.push({ name: seen.name, source, ...verdict });
  }
  return { kept, filtered };
}
