import type { Tool } from './tool.js';

/** Past this many tools (deferrable ones plus built-ins), deferrable definitions are deferred. */
export const DEFER_THRESHOLD = 10;

/** What deferral depends on besides the tools. */
export interface DeferralPolicy {
  /** `llm.no_tool_search`: turns deferral off whatever the provider offers. */
  readonly noToolSearch: boolean;
  /** Whether the provider offers server-side tool search. */
  readonly providerToolSearch: boolean;
  /**
   * Whether the host attaches the harness-side search tool (`attachToolSearch`) when the provider
   * has no search of its own. Absent means no: every definition is sent, with a warning.
   */
  readonly harnessToolSearch?: boolean;
}

/** Who answers the model's searches for deferred definitions. */
export const DEFERRAL_VIA = ['none', 'provider', 'harness'] as const;
export type DeferralVia = (typeof DEFERRAL_VIA)[number];

/** The decision for one set: which names are deferred, and whether search was wanted but unavailable. */
export interface DeferralDecision {
  readonly deferred: ReadonlySet<string>;
  /** The count past the threshold with search switched off or unsupported: every tool is sent. */
  readonly sentAllInstead: boolean;
  readonly counted: number;
  /** `none` when nothing is deferred; else the provider's server-side search or the harness's own. */
  readonly via: DeferralVia;
}

/** The policy for a provider: its own search when it has one, the harness's otherwise. */
export function deferralPolicy(providerToolSearch: boolean, noToolSearch: boolean): DeferralPolicy {
  return { noToolSearch, providerToolSearch, harnessToolSearch: true };
}

function canDefer(tool: Tool): boolean {
  return tool.kind !== 'builtin' && tool.capabilities.deferrable;
}

/**
 * Decides deferral for a whole set. Built-ins are counted but never deferred; a tool that cannot
 * say whether it is deferrable is sent in full. Re-run for every new set, so a set that grows past
 * the threshold starts deferring and one that shrinks stops. `llm.no_tool_search` wins over both
 * kinds of search; the provider's own search wins over the harness's.
 */
export function decideDeferral(tools: readonly Tool[], policy: DeferralPolicy): DeferralDecision {
  const counted = tools.filter((t) => t.kind === 'builtin' || canDefer(t)).length;
  if (counted <= DEFER_THRESHOLD) return { deferred: new Set(), sentAllInstead: false, counted, via: 'none' };
  const via: DeferralVia = policy.noToolSearch
    ? 'none'
    : policy.providerToolSearch
      ? 'provider'
      : policy.harnessToolSearch === true
        ? 'harness'
        : 'none';
  if (via === 'none') return { deferred: new Set(), sentAllInstead: true, counted, via };
  const deferred = new Set(tools.filter(canDefer).map((t) => t.name));
  return { deferred, sentAllInstead: false, counted, via: deferred.size === 0 ? 'none' : via };
}
