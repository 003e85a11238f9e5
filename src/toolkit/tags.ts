import type { Behavior, ConfirmGate, Hint } from './tool.js';

/** Tags that change what the harness does with a tool. */
export const RESERVED_TAGS = {
  /** Dropped before include/exclude run; nothing adds it back. */
  deny: 'ai:deny',
  /** Never deferred behind tool search. */
  noDefer: 'ai:no_defer',
  /** Always stands behind the approval gate. */
  confirm: 'ai:confirm',
} as const;

/**
 * Behaviour tags: advice mapped onto the MCP hints. A command's tags come from a binary the
 * operator may not control, so these never gate anything; they only describe.
 */
export const BEHAVIOR_TAGS = ['ai:read_only', 'ai:destructive', 'ai:additive', 'ai:idempotent'] as const;
export type BehaviorTag = (typeof BEHAVIOR_TAGS)[number];

/** Every `ai:` tag this build understands. Any other `ai:` tag earns a warning, not a failure. */
export const KNOWN_AI_TAGS: readonly string[] = [...Object.values(RESERVED_TAGS), ...BEHAVIOR_TAGS];

/** Whether a tool with these tags is dropped by `ai:deny`. */
export function isDenied(tags: readonly string[]): boolean {
  return tags.includes(RESERVED_TAGS.deny);
}

/** Whether a tool with these tags may be deferred behind tool search. */
export function allowsDefer(tags: readonly string[]): boolean {
  return !tags.includes(RESERVED_TAGS.noDefer);
}

/**
 * The confirm gate for a tool's tags under the operator's `harness.confirm_tags`. The trigger
 * prefers `ai:confirm`; otherwise it is the first of the tool's own tags (in the tool's order)
 * that the operator listed, so the prompt names the same tag on every run.
 */
export function confirmGateFor(tags: readonly string[], confirmTags: readonly string[]): ConfirmGate {
  if (tags.includes(RESERVED_TAGS.confirm)) return { gated: true, trigger: RESERVED_TAGS.confirm };
  const listed = new Set(confirmTags);
  const trigger = tags.find((t) => listed.has(t));
  return trigger === undefined ? { gated: false } : { gated: true, trigger };
}

/** The `ai:` tags in `tags` this build does not know, in order, without repeats. */
export function unknownAiTags(tags: readonly string[]): string[] {
  const out: string[] = [];
  for (const t of tags) {
    if (t.startsWith('ai:') && !KNOWN_AI_TAGS.includes(t) && !out.includes(t)) out.push(t);
  }
  return out;
}

/** The behaviour tags that contradict each other in `tags` (empty when they agree). */
export function behaviorConflicts(tags: readonly string[]): string[] {
  const has = (t: BehaviorTag): boolean => tags.includes(t);
  const out: string[] = [];
  if (has('ai:read_only') && (has('ai:destructive') || has('ai:additive'))) out.push('ai:read_only');
  if (has('ai:destructive') && has('ai:additive')) out.push('ai:additive');
  return out;
}

/**
 * Resolves behaviour tags into hints, conservatively and independent of order: a read-only claim
 * beside a write tag (destructive or additive) is dropped, destructive beats additive, and a
 * conflict never throws because one mistagged command must not stop a run. Untagged commands
 * state nothing, leaving a client on its own conservative defaults.
 */
export function resolveBehavior(tags: readonly string[]): Behavior {
  const has = (t: BehaviorTag): boolean => tags.includes(t);
  const writes = has('ai:destructive') || has('ai:additive');
  const readOnly: Hint = has('ai:read_only') && !writes ? 'true' : 'unset';
  const destructive: Hint = has('ai:destructive') ? 'true' : has('ai:additive') ? 'false' : 'unset';
  const idempotent: Hint = has('ai:idempotent') ? 'true' : 'unset';
  return { readOnly, destructive, idempotent, openWorld: 'unset' };
}

/** The model-facing description: the plain one plus a trailing `Tags:` line when there are tags. */
export function modelDescription(description: string, tags: readonly string[]): string {
  if (tags.length === 0) return description;
  const line = `Tags: ${tags.join(', ')}`;
  return description === '' ? line : `${description}\n\n${line}`;
}
