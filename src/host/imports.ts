/**
 * Tools imported from elsewhere: other agents' tools over a2a (`remote_tools`) and MCP servers'
 * tools (`mcp_clients`). A runtime opened for runs imports strictly (any failure stops startup,
 * naming what to change) and keeps its MCP sessions open for every run; a listing discovers
 * leniently and reports what failed as warnings. Nothing is imported for `fisk mcp`: imported
 * tools are never served again.
 */
import type { SandboxSettings } from '../toolkit/sandbox/policy.js';
import { ConfigError } from '../config/index.js';
import type { Config } from '../config/index.js';
import type { McpServerEvent, McpSessionSet, McpToolsChange } from '../mcp/client/index.js';
import type { ImportResult } from '../remotetools/index.js';
import type { FilteredTool, ToolSource } from '../toolkit/source.js';
import type { Tool } from '../toolkit/tool.js';
import type { ConnectionPool } from './connections.js';

/** `strict` for runs (any failure stops startup), `lenient` for listings (failures are warnings). */
export type ImportStance = 'strict' | 'lenient';

/** A warning about an import, keyed by the configuration key it concerns. */
export interface ImportNote {
  readonly level: 'warning';
  readonly key: string;
  readonly message: string;
}

/** Where import warnings go: the runtime's notes. */
export interface NoteSink {
  push(note: ImportNote): unknown;
}

/** A listener for a rebuilt MCP tool list; runs subscribe while they are live. */
export type ImportedToolsListener = (change: McpToolsChange) => void;

/** The imported tool sources of a runtime. */
export interface ImportedTools {
  /** The a2a sources (one per host, configuration order), then the MCP sources as they stand now. */
  sources(): ToolSource[];
  /** Hears every rebuilt MCP tool list; returns the function that stops listening. */
  onToolsChanged(listener: ImportedToolsListener): () => void;
  /** Hears every MCP server that goes away and is started again, for the operator; returns the function that stops listening. */
  onServerEvent(listener: (event: McpServerEvent) => void): () => void;
  /** Resolves once every announced MCP rebuild has been heard by its listeners (see `McpSessionSet.settled`). */
  settled(): Promise<void>;
  /** Closes the MCP sessions. Idempotent. */
  close(): Promise<void>;
}

/** What importing needs from the runtime being opened. */
export interface ImportContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly credentialEnvNames: readonly string[];
  /** Replaces every credential value the runtime holds; applied to what servers say and what is printed about them. */
  readonly scrub?: (text: string) => string;
  readonly connections: ConnectionPool;
  /** The names the local sources hold (application, built-ins, custom). */
  readonly localNames: readonly string[];
  readonly signal?: AbortSignal;
  /** The runtime's sandbox, which stdio MCP servers with `sandbox` run in. */
  readonly sandbox?: SandboxSettings;
}

/** No imports: what an `mcp` runtime, or a configuration importing nothing, gets. */
export const NO_IMPORTS: ImportedTools = {
  sources: () => [],
  onToolsChanged: () => () => undefined,
  onServerEvent: () => () => undefined,
  settled: () => Promise.resolve(),
  close: () => Promise.resolve(),
};

/** The names of the built-ins and custom tools a run of `config` holds besides the application's. */
export async function localToolNames(
  config: Config,
  parts: {
    readonly application: readonly Tool[];
    readonly human: readonly Tool[];
    readonly knowledge: readonly Tool[];
    readonly custom: readonly Tool[];
  },
): Promise<string[]> {
  const memory = config.harness.memory.enabled
    ? (await import('../memory/tools.js')).memoryToolsForListing({ readOnly: config.harness.memory.readOnly })
    : [];
  return [...parts.application, ...parts.human, ...memory, ...parts.knowledge, ...parts.custom].map((t) => t.name);
}

/** Attaches the filtered tools of each host to its source, so a listing shows them with the rest. */
function remoteSources(result: ImportResult): ToolSource[] {
  const byLabel = new Map<string, FilteredTool[]>();
  for (const f of result.filtered) byLabel.set(f.label ?? '', [...(byLabel.get(f.label ?? '') ?? []), f]);
  const sources = result.sources.map((s) => ({ ...s, filtered: [...(s.filtered ?? []), ...(byLabel.get(s.label ?? '') ?? [])] }));
  const shown = new Set(result.sources.map((s) => s.label ?? ''));
  // a host whose every tool was left out still shows what was left out
  for (const [label, filtered] of byLabel) if (!shown.has(label)) sources.push({ source: 'a2a', label, tools: [], filtered });
  return sources;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function remoteImport(config: Config, stance: ImportStance, ctx: ImportContext, notes: NoteSink): Promise<ToolSource[]> {
  if (config.remoteTools.length === 0) return [];
  const context = config.natsContext;
  if (stance === 'lenient') {
    if (context === undefined) {
      notes.push({
        level: 'warning',
        key: 'nats_context',
        message: 'remote_tools are not listed: nats_context is not set, and a run needs it to reach the peers',
      });
      return [];
    }
    try {
      const nats = await ctx.connections.connection(context);
      const { importRemoteTools } = await import('../remotetools/index.js');
      const result = await importRemoteTools(nats, config.remoteTools, {
        localNames: ctx.localNames,
        mode: 'lenient',
        identity: config.identity,
        timeoutMs: config.llm.budget.callTimeout.ms,
      });
      for (const warning of result.warnings) notes.push({ level: 'warning', key: 'remote_tools', message: warning.message });
      return remoteSources(result);
    } catch (err) {
      notes.push({ level: 'warning', key: 'remote_tools', message: `the tools of remote_tools are not listed: ${message(err)}` });
      return [];
    }
  }
  if (context === undefined)
    throw ConfigError.of('missing', 'nats_context', 'is required when remote_tools is set: the NATS context to reach the peers through');
  const nats = await ctx.connections.connection(context);
  const { importRemoteTools } = await import('../remotetools/index.js');
  const result = await importRemoteTools(nats, config.remoteTools, {
    localNames: ctx.localNames,
    mode: 'strict',
    identity: config.identity,
    timeoutMs: config.llm.budget.callTimeout.ms,
  });
  for (const warning of result.warnings) notes.push({ level: 'warning', key: 'remote_tools', message: warning.message });
  return remoteSources(result);
}

/** The delegation tools of `remote_agents` (spec'd beside the imported tools: they are another agent's work). */
async function delegates(config: Config, stance: ImportStance, ctx: ImportContext, notes: NoteSink): Promise<ToolSource[]> {
  if (config.remoteAgents.length === 0) return [];
  const context = config.natsContext;
  const { openDelegates } = await import('../remotetools/index.js');
  const scrub = ctx.scrub ?? ((text: string): string => text);
  try {
    const opened = await openDelegates(config, {
      env: ctx.env,
      nats: () => {
        if (context === undefined) throw ConfigError.of('missing', 'nats_context', 'is not set, and a peer reached over NATS needs it');
        return ctx.connections.connection(context);
      },
      timeoutMs: config.llm.budget.callTimeout.ms,
      mode: stance,
    });
    for (const w of opened.warnings) notes.push({ level: 'warning', key: w.key, message: scrub(w.message) });
    return opened.sources;
  } catch (err) {
    if (err instanceof Error) err.message = scrub(err.message);
    throw err;
  }
}

/**
 * Imports the tools of `remote_tools` and `mcp_clients`. `strict`: a host that cannot be
 * discovered, a server that will not start or a collision throws, after closing whatever was
 * opened, and the MCP sessions stay open for every run; `lenient`: each failure is a warning in
 * `notes` and the servers are only listed.
 */
export async function openImports(config: Config, stance: ImportStance, ctx: ImportContext, notes: NoteSink): Promise<ImportedTools> {
  const remote = [...(await remoteImport(config, stance, ctx, notes)), ...(await delegates(config, stance, ctx, notes))];
  if (config.mcpClients.length === 0) return remote.length === 0 ? NO_IMPORTS : { ...NO_IMPORTS, sources: () => [...remote] };
  // the MCP client SDK loads only for a configuration with MCP servers
  const { discoverMcpTools, openMcpSessions } = await import('../mcp/client/index.js');
  const connect = {
    env: ctx.env,
    credentialEnvNames: ctx.credentialEnvNames,
    ...(ctx.scrub === undefined ? {} : { scrub: ctx.scrub }),
    ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
    ...(ctx.sandbox === undefined ? {} : { sandbox: ctx.sandbox }),
  };
  if (stance === 'lenient') {
    const found = await discoverMcpTools(config.mcpClients, connect);
    for (const w of found.warnings) notes.push({ level: 'warning', key: 'mcp_clients', message: w.message });
    const listed = [...found.sources];
    return { ...NO_IMPORTS, sources: () => [...remote, ...listed] };
  }
  // what a rebuilt list may not claim: every local name and every imported peer tool
  const reserved = new Set([...ctx.localNames, ...remote.flatMap((s) => s.tools.map((t) => t.name))]);
  const sessions: McpSessionSet = await openMcpSessions(config.mcpClients, { ...connect, reservedNames: () => reserved });
  for (const w of sessions.warnings) notes.push({ level: 'warning', key: 'mcp_clients', message: w.message });
  return {
    sources: () => [...remote, ...sessions.sources()],
    onToolsChanged: (listener) => sessions.onToolsChanged(listener),
    onServerEvent: (listener) => sessions.onServerEvent(listener),
    settled: () => sessions.settled(),
    close: () => sessions.close(),
  };
}
