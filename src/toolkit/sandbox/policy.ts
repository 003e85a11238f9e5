/**
 * What a sandboxed child is given. `SandboxSettings` is a runtime's whole sandbox, resolved once
 * (bubblewrap found and working, `~/` expanded, fisk's own stores added to the hidden set); a
 * `SandboxPolicy` is what one child gets from it: the tool's own name picks the operator's grants,
 * and nothing the tool says about itself (its tags, its description) widens it.
 */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { SandboxGrant, SandboxLimits } from '../../config/types.js';
import type { SandboxReport } from './report.js';

/** A configured sandbox path with `~` and `~/…` resolved against the children's HOME. */
export function expandHome(path: string, env: Readonly<Record<string, string | undefined>>): string {
  const h = env['HOME'];
  const home = h !== undefined && isAbsolute(h) ? h : homedir();
  if (path === '~') return home;
  return path.startsWith('~/') ? join(home, path.slice(2)) : path;
}

/** A runtime's sandbox, resolved. */
export interface SandboxSettings {
  /** `harness.sandbox.enabled`: application commands and the introspection run inside. */
  readonly enabled: boolean;
  /** The absolute path of the working `bwrap`. */
  readonly bwrap: string;
  /** The absolute path of `prlimit`, present exactly when a limit is set. */
  readonly prlimit: string | undefined;
  readonly network: boolean;
  /** Absolute paths; undefined: the call's work directory only. */
  readonly writable: readonly string[] | undefined;
  /** Absolute paths made empty inside. */
  readonly hide: readonly string[];
  readonly limits: SandboxLimits;
  readonly grants: readonly SandboxGrant[];
}

/** What one child runs with. */
export interface SandboxPolicy {
  readonly bwrap: string;
  readonly prlimit: string | undefined;
  readonly network: boolean;
  /** Whether the call's work directory (or the working directory) is writable. */
  readonly workDirWritable: boolean;
  /** Further absolute paths bound writable. */
  readonly writable: readonly string[];
  readonly hide: readonly string[];
  readonly limits: SandboxLimits;
}

/** The placeholder a report shows for the call's work directory. */
export const WORK_DIRECTORY = '<work directory>';

function base(settings: SandboxSettings): Omit<SandboxPolicy, 'network' | 'workDirWritable' | 'writable'> {
  return { bwrap: settings.bwrap, prlimit: settings.prlimit, hide: settings.hide, limits: settings.limits };
}

function grantsFor(settings: SandboxSettings, toolName: string): number[] {
  const out: number[] = [];
  settings.grants.forEach((g, i) => {
    if (g.tools.some((re) => new RegExp(re, 'u').test(toolName))) out.push(i);
  });
  return out;
}

/** The policy of the tool called `toolName`: the harness settings plus every grant matching its name. */
export function toolPolicy(settings: SandboxSettings, toolName: string): SandboxPolicy {
  const matched = grantsFor(settings, toolName).map((i) => settings.grants[i] as SandboxGrant);
  return {
    ...base(settings),
    network: settings.network || matched.some((g) => g.network),
    workDirWritable: settings.writable === undefined,
    writable: [...new Set([...(settings.writable ?? []), ...matched.flatMap((g) => g.writable)])],
  };
}

/** What `--fisk-introspect` runs with: the harness network setting and nothing writable at all. */
export function introspectionPolicy(settings: SandboxSettings): SandboxPolicy {
  return { ...base(settings), network: settings.network, workDirWritable: false, writable: [] };
}

/** A stdio MCP server's policy: its own `network` and `writable` keys over the harness's hidden set and limits. */
export function serverPolicy(
  settings: SandboxSettings,
  own: { readonly network: boolean; readonly writable: readonly string[] | undefined },
): SandboxPolicy {
  return { ...base(settings), network: own.network, workDirWritable: own.writable === undefined, writable: own.writable ?? [] };
}

/** A policy as a report shows it. */
export function reportPolicy(policy: SandboxPolicy, grants: readonly number[] = []): SandboxReport {
  return {
    network: policy.network,
    writable: [...(policy.workDirWritable ? [WORK_DIRECTORY] : []), ...policy.writable],
    hide: [...policy.hide],
    grants: [...grants],
  };
}

/** The report of the tool called `toolName`. */
export function reportTool(settings: SandboxSettings, toolName: string): SandboxReport {
  return reportPolicy(toolPolicy(settings, toolName), grantsFor(settings, toolName));
}
