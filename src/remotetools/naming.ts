/**
 * Global, deterministic naming of imported tools. Three passes: count bare names across every
 * host, decide each final name, count final names; only then build. The same inputs always give
 * the same names (the tool set is fingerprinted for resume), two hosts sharing a name are prefixed
 * alike, and a collision prefixing cannot resolve skips every tool involved rather than letting
 * whichever came first win.
 */
import { isValidToolName } from '../toolkit/names.js';

export interface Candidate {
  /** The host identity. */
  readonly host: string;
  /** The prefix used on a clash. */
  readonly alias: string;
  /** The name on the wire. */
  readonly remoteName: string;
}

export type Named =
  | { readonly candidate: Candidate; readonly status: 'named'; readonly name: string }
  | { readonly candidate: Candidate; readonly status: 'collision' | 'invalid'; readonly name: string; readonly detail: string };

export function nameRemoteTools(candidates: readonly Candidate[], localNames: ReadonlySet<string>): Named[] {
  const bare = new Map<string, number>();
  for (const c of candidates) bare.set(c.remoteName, (bare.get(c.remoteName) ?? 0) + 1);
  const finals = candidates.map((c) =>
    localNames.has(c.remoteName) || (bare.get(c.remoteName) ?? 0) > 1 ? `${c.alias}_${c.remoteName}` : c.remoteName,
  );
  const counts = new Map<string, number>();
  for (const f of finals) counts.set(f, (counts.get(f) ?? 0) + 1);
  return candidates.map((candidate, i) => {
    const name = finals[i] as string;
    if (!isValidToolName(name))
      return {
        candidate,
        status: 'invalid',
        name,
        detail: `the imported name ${JSON.stringify(name)} is not a valid tool name (1-64 letters, digits, "_" or "-"); give the host a shorter alias`,
      };
    if ((counts.get(name) ?? 0) > 1 || localNames.has(name)) {
      const with_ = localNames.has(name) ? 'a local tool' : 'another imported tool';
      return {
        candidate,
        status: 'collision',
        name,
        detail: `${JSON.stringify(name)} from remote agent ${JSON.stringify(candidate.host)} collides with ${with_}; set a distinct alias on the host`,
      };
    }
    return { candidate, status: 'named', name };
  });
}
