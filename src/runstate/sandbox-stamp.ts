/**
 * The sandbox as a run's fingerprint records it: per tool that runs a process, whether it ran
 * sandboxed and with what (network, writable paths, hidden paths). Comparing two says whether the
 * newer one is weaker: a tool that ran sandboxed and would not, that gains the network or a
 * writable path, or that loses a hidden path. A stronger sandbox, or one for tools the run did
 * not have, is no reason to refuse a resume (a changed tool set is refused on its own).
 */
import { sortedJson } from '../util/sorted-json.js';

/** One tool's process as stamped: `null` when it runs unsandboxed. */
export type StampedSandbox = { readonly network: boolean; readonly writable: readonly string[]; readonly hide: readonly string[] } | null;

/** Tool name to its stamped sandbox, for every tool that starts a process. */
export type SandboxStampInput = Readonly<Record<string, StampedSandbox>>;

/** The fingerprint's `sandbox` field: undefined when no tool runs sandboxed, so unsandboxed runs stamp nothing. */
export function sandboxStamp(tools: SandboxStampInput): string | undefined {
  const entries = Object.entries(tools);
  if (!entries.some(([, s]) => s !== null)) return undefined;
  const normal: Record<string, StampedSandbox> = {};
  for (const [name, s] of entries)
    normal[name] = s === null ? null : { network: s.network, writable: [...s.writable].sort(), hide: [...s.hide].sort() };
  return sortedJson(normal);
}

const strings = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === 'string');

function isStamped(v: unknown): v is StampedSandbox {
  if (v === null) return true;
  if (typeof v !== 'object' || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return typeof o['network'] === 'boolean' && strings(o['writable']) && strings(o['hide']);
}

function parse(stamp: string): Record<string, StampedSandbox> | undefined {
  let v: unknown;
  try {
    v = JSON.parse(stamp);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  return Object.values(v).every(isStamped) ? (v as Record<string, StampedSandbox>) : undefined;
}

function weakerTool(name: string, before: NonNullable<StampedSandbox>, after: StampedSandbox | undefined): string[] {
  if (after === undefined) return [];
  if (after === null) return [`${name} would run unsandboxed`];
  const out: string[] = [];
  if (after.network && !before.network) out.push(`${name} gains the network`);
  const added = after.writable.filter((w) => !before.writable.includes(w));
  if (added.length > 0) out.push(`${name} may also write ${added.join(', ')}`);
  const shown = before.hide.filter((h) => !after.hide.includes(h));
  if (shown.length > 0) out.push(`${name} would see ${shown.join(', ')}`);
  return out;
}

/**
 * How `current` is weaker than `stored`, one phrase each; empty when it is not. A stored stamp
 * that cannot be read compares as weaker, so an edited journal never lowers the bar.
 */
export function sandboxWeakening(stored: string | undefined, current: string | undefined): string[] {
  if (stored === undefined) return [];
  const before = parse(stored);
  if (before === undefined) return ['the recorded sandbox cannot be read'];
  if (current === undefined) return ['the sandbox is off'];
  const after = parse(current) ?? {};
  const out: string[] = [];
  for (const [name, s] of Object.entries(before)) {
    if (s !== null) out.push(...weakerTool(name, s, after[name]));
  }
  return out;
}
