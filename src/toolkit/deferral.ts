import type { Tool } from './tool.js';

/** Past this many tools (deferrable ones plus built-ins), deferrable definitions are deferred. */
export const DEFER_THRESHOLD = 10;

/** What deferral depends on besides the tools. */
export interface DeferralPolicy {
  /** `llm.no_tool_search`. */
  readonly noToolSearch: boolean;
  /** Whether the provider offers server-side tool search. */
  readonly providerToolSearch: boolean;
}

/** The decision for one set: which names are deferred, and whether search was wanted but unavailable. */
export interface DeferralDecision {
  readonly deferred: ReadonlySet<string>;
  /** The count past the threshold with search switched off or unsupported: every tool is sent. */
  readonly sentAllInstead: boolean;
  readonly counted: number;
}

function canDefer(tool: Tool): boolean {
  return tool.kind !== 'builtin' && tool.capabilities.deferrable;
}

/**
 * Decides deferral for a whole set. Built-ins are counted but never deferred; a tool that cannot
 * say whether it is deferrable is sent in full. Re-run for every new set, so a set that grows past
 * the threshold starts deferring and one that shrinks stops.
 */
export function decideDeferral(tools: readonly Tool[], policy: DeferralPolicy): DeferralDecision {
  const counted = tools.filter((t) => t.kind === 'builtin' || canDefer(t)).length;
  if (counted <= DEFER_THRESHOLD) return { deferred: new Set(), sentAllInstead: false, counted };
  if (policy.noToolSearch || !policy.providerToolSearch) return { deferred: new Set(), sentAllInstead: true, counted };
  return { deferred: new Set(tools.filter(canDefer).map((t) => t.name)), sentAllInstead: false, counted };
}
