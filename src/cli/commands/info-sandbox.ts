/** What `fisk info` says about the sandbox: the runtime's (which program, what is hidden, the limits) and each tool's. */
import type { Runtime } from '../../host/index.js';
import type { SandboxLimits } from '../../config/index.js';
import type { Tool } from '../../toolkit/tool.js';
import type { Io } from '../io.js';
import { println } from '../io.js';

/**
 * A tool's sandbox as listed: `enabled: false` for a process run unsandboxed; with `enabled: true`,
 * whether it has the network, what it may write (`<work directory>` for the call's) and which
 * `harness.sandbox.tools` entries widened it. `null` on a tool that starts no process of fisk's.
 */
export type InfoToolSandbox =
  | { readonly enabled: false }
  | { readonly enabled: true; readonly network: boolean; readonly writable: readonly string[]; readonly grants: readonly number[] };

/** The runtime's sandbox: the bubblewrap it runs, what every child has hidden, and the limits. */
export interface InfoSandbox {
  /** `harness.sandbox.enabled`; false when only stdio MCP servers asked for the sandbox. */
  readonly enabled: boolean;
  readonly bwrap: string;
  readonly hide: readonly string[];
  readonly limits: SandboxLimits;
}

export function toolSandbox(tool: Tool): InfoToolSandbox | null {
  const s = tool.capabilities.sandbox;
  if (s === undefined) return null;
  if (s === null) return { enabled: false };
  return { enabled: true, network: s.network, writable: [...s.writable], grants: [...s.grants] };
}

export function runtimeSandbox(runtime: Runtime): InfoSandbox | null {
  const s = runtime.sandbox;
  return s === undefined ? null : { enabled: s.enabled, bwrap: s.bwrap, hide: [...s.hide], limits: s.limits };
}

/** The Sandbox column of the tools table. */
export function sandboxCell(s: InfoToolSandbox | null): string {
  if (s === null) return '-';
  if (!s.enabled) return 'off';
  const writes = s.writable.length === 0 ? 'writes nothing' : `writes ${s.writable.join(', ')}`;
  return `on (${s.network ? 'network' : 'no network'}; ${writes})`;
}

/** A size as written in agent.yaml: the largest binary unit it is a whole number of, else bytes. */
function sizeText(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ] as const) {
    if (bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return `${bytes} bytes`;
}

function limitsLine(l: SandboxLimits): string {
  const parts = [
    ...(l.addressSpace === undefined ? [] : [`address space ${sizeText(l.addressSpace)}`]),
    ...(l.cpuSeconds === undefined ? [] : [`CPU ${l.cpuSeconds}s`]),
    ...(l.openFiles === undefined ? [] : [`${l.openFiles} open files`]),
  ];
  return parts.length === 0 ? 'none (as inherited)' : parts.join(', ');
}

/** The Sandbox section, after the settings; nothing when no sandbox was asked for. */
export function renderSandbox(s: InfoSandbox | null, out: Io['out']): void {
  if (s === null) return;
  println(out);
  println(out, 'Sandbox');
  println(
    out,
    `  Applies to  ${s.enabled ? 'application commands, the --fisk-introspect run and sandboxed stdio MCP servers' : 'stdio MCP servers with sandbox: true only'}`,
  );
  println(out, `  bubblewrap  ${s.bwrap}`);
  println(out, `  Hidden      ${s.hide.join(', ')}`);
  println(out, `  Limits      ${limitsLine(s.limits)}`);
}
