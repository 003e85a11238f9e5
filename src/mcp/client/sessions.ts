/**
 * The MCP servers of one runtime: opened once, strictly, in configuration order, and reused by
 * every run. A server that edits its list mid-conversation (`tools/list_changed`) gets its tools
 * rebuilt, and a listener hears about the new set so the host can publish it.
 */
import type { McpClientConfig } from '../../config/types.js';
import { compileFilters } from '../../toolkit/filter.js';
import type { CompiledFilters } from '../../toolkit/filter.js';
import type { FuncTool } from '../../toolkit/functool/functool.js';
import type { FilteredTool, ToolSource } from '../../toolkit/source.js';
import { connectServer, listAll } from './connect.js';
import type { ConnectOptions, OpenServer } from './connect.js';
import { McpClientError } from './errors.js';
import { errorText } from './redact.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { buildTools, callerFor } from './tools.js';
import type { BuiltTools, CallerSession, ToolNaming } from './tools.js';
import type { Redactor } from './redact.js';

/** How long a rebuild's `tools/list` may take. */
export const REBUILD_TIMEOUT_MS = 30_000;
/** A server that went away is started again at most this many times within `RESTART_WINDOW_MS`. */
export const MAX_RESTARTS = 3;
/** The window the restarts are counted over: a server failing faster than that waits it out. */
export const RESTART_WINDOW_MS = 60_000;
/** How many sessions' redactors a server's answers are cleaned with, newest first. */
const KEPT_REDACTORS = 4;

/** What `openMcpSessions` needs besides the entries. */
export interface OpenMcpOptions extends ConnectOptions {
  /**
   * Names other sources already hold, consulted when a server's list changes: an imported tool
   * claiming one is skipped and recorded (reason `collision`) instead of failing the run.
   */
  readonly reservedNames?: () => ReadonlySet<string>;
}

/** One server's new tools after `tools/list_changed`. */
export interface McpToolsChange {
  readonly server: string;
  /** The server's source as it now stands (unchanged when `error` is set). */
  readonly source: ToolSource;
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Tools left out of the rebuilt set because their name was taken or their descriptor is unusable. */
  readonly skipped: readonly FilteredTool[];
  /** Set when the new list could not be read; the previous tools stay. */
  readonly error?: string;
  /** One sentence for the model about what changed, to queue with its next tool snapshot. */
  readonly advisory: string;
}

export type McpToolsListener = (change: McpToolsChange) => void;

/** What became of a server while the agent ran, for the operator's log. */
export interface McpServerEvent {
  readonly server: string;
  /** `lost`: it went away on its own; `restarted`: it was started again; `unavailable`: it could not be, or not yet. */
  readonly kind: 'lost' | 'restarted' | 'unavailable';
  /** One sentence saying so, naming the server. */
  readonly message: string;
}

export type McpServerListener = (event: McpServerEvent) => void;

/** The open MCP servers of a runtime. */
export interface McpSessionSet {
  /** One source per server, in configuration order, each its current immutable tool list. */
  sources(): ToolSource[];
  /** What the operator should hear about the tools as first imported (a tool without a description). */
  readonly warnings: readonly McpWarning[];
  /** Registers a listener for rebuilt tool lists; returns the function that removes it. */
  onToolsChanged(listener: McpToolsListener): () => void;
  /** Registers a listener for servers going away and being started again; returns the function that removes it. */
  onServerEvent(listener: McpServerListener): () => void;
  /**
   * Resolves once every rebuild announced so far has finished and its listeners have heard of it
   * (never rejects): a loop that waits for this before its next model call sends the list a
   * server changed during the last tool call, not the one before.
   */
  settled(): Promise<void>;
  /** Closes every server (stdio children are stopped). Idempotent. */
  close(): Promise<void>;
}

interface Live {
  readonly entry: McpClientConfig;
  readonly filters: CompiledFilters;
  readonly naming: ToolNaming;
  /** Where its entry stands in `mcp_clients`, for starting it again. */
  readonly index: number;
  open: OpenServer | undefined;
  tools: readonly FuncTool[];
  filtered: readonly FilteredTool[];
  /** Serialises rebuilds, so two notifications cannot interleave their lists. */
  rebuilding: Promise<void>;
  /** A notification came while the server was still starting: rebuild once it is open. */
  notifiedEarly: boolean;
  /** Hears the server's `tools/list_changed`, whichever session it comes on. */
  readonly notified: () => void;
  /** How the open session's server went away on its own, until it is open again. */
  lost: string | undefined;
  /** The server being started again, which calls wait for. */
  reopening: Promise<void> | undefined;
  /** Why it could not be started again, told to each call until a later start succeeds. */
  unavailable: string | undefined;
  /** When it was started again, within the restart window. */
  restarts: number[];
  /** The newest sessions' redactors, newest first: a call's answer is cleaned of what any of them knows. */
  readonly redactors: Redactor[];
  /** The sessions that have gone away, with how, so a call they dropped says so. */
  readonly ended: WeakMap<Client, string>;
}

/** The session open now (read afresh: it changes while a call waits). */
function openOf(live: Live): OpenServer | undefined {
  return live.open;
}

function sourceOf(live: Live): ToolSource {
  return { source: 'mcp', label: live.entry.name, tools: live.tools, filtered: live.filtered };
}

/** Something the operator should hear about one server. */
export interface McpWarning {
  readonly server: string;
  readonly message: string;
}

/**
 * Two tools claiming one name: the run is refused (shadowing one could strip a gate), and the
 * message says how to tell them apart.
 */
export function collisionMessage(entry: McpClientConfig, index: number, name: string, holder: string): string {
  const key = `mcp_clients[${index}]`;
  const hint =
    entry.prefix === undefined
      ? `set ${key}.prefix (prefix: ${entry.name} names its tools ${entry.name}_<tool>)`
      : `choose another ${key}.prefix than ${JSON.stringify(entry.prefix)}`;
  return `MCP server ${JSON.stringify(entry.name)} lists ${name}, a name ${holder} already has; ${hint}, or leave it out with ${key}.exclude.tools`;
}

function problemsMessage(server: string, index: number, built: BuiltTools): string {
  const lines = built.problems.map((p) => `tool ${p.tool}: ${p.reason}`);
  return `MCP server ${JSON.stringify(server)} lists tools that cannot be sent to a model: ${lines.join('; ')}; exclude them with mcp_clients[${index}].exclude.tools or fix the server`;
}

/**
 * Opens every entry in order, each within its own `startup_timeout`, and builds its tools. Strict:
 * a server that fails to start, a descriptor that cannot reach a model, or two servers claiming
 * one name closes everything already opened and throws an `McpClientError` naming the server.
 * Collisions with other sources are the tool assembly's to find (it aborts on them).
 */
export async function openMcpSessions(entries: readonly McpClientConfig[], opts: OpenMcpOptions): Promise<McpSessionSet> {
  const lives: Live[] = [];
  const warnings: McpWarning[] = [];
  const listeners = new Set<McpToolsListener>();
  const serverListeners = new Set<McpServerListener>();
  const tell = (server: string, kind: McpServerEvent['kind'], message: string): void => {
    for (const listener of [...serverListeners]) listener({ server, kind, message });
  };
  let closed = false;

  const closeAll = async (): Promise<void> => {
    closed = true;
    const open = lives.map((l) => l.open).filter((o): o is OpenServer => o !== undefined);
    for (const live of lives) live.open = undefined;
    await Promise.allSettled(open.map((o) => o.close()));
  };

  const takenElsewhere = (self: Live): Map<string, string> => {
    const taken = new Map<string, string>();
    for (const name of opts.reservedNames?.() ?? []) taken.set(name, 'another tool source');
    for (const live of lives) {
      if (live === self) continue;
      for (const tool of live.tools) taken.set(tool.name, `MCP server ${JSON.stringify(live.entry.name)}`);
    }
    return taken;
  };

  /** `open` ended on its own (`how`): the next call starts the server, or a session, again. */
  const lose = (live: Live, open: OpenServer, how: string): void => {
    if (closed || live.open !== open) return;
    live.ended.set(open.client, how);
    live.open = undefined;
    live.lost = how;
    // whatever it left behind (a process group, an HTTP session) is ended too
    void open.close();
    const next = live.entry.transport === 'stdio' ? 'it is started again' : 'a new session is opened';
    tell(live.entry.name, 'lost', `MCP server ${JSON.stringify(live.entry.name)} ${how}; ${next} at the next call to one of its tools`);
  };

  /** Follows `open` until it ends; one that ends on its own is started again at the next call. */
  const watch = (live: Live, open: OpenServer): void => {
    // the newest few: an old session's tokens are the ones least likely to come back
    live.redactors.unshift(open.redact);
    live.redactors.length = Math.min(live.redactors.length, KEPT_REDACTORS);
    open.client.onclose = (): void => lose(live, open, open.endedWhy());
  };

  /** Starts a server that went away again, within the restart limit. */
  const reopen = async (live: Live): Promise<void> => {
    const now = Date.now();
    live.restarts = live.restarts.filter((at) => now - at < RESTART_WINDOW_MS);
    if (live.restarts.length >= MAX_RESTARTS) {
      const again = Math.ceil(((live.restarts[0] ?? now) + RESTART_WINDOW_MS - now) / 1000);
      // told once: every call meanwhile comes here, and each answers the reason itself
      const told = live.unavailable !== undefined;
      live.unavailable = `it ${live.lost ?? 'went away'} after being started again ${live.restarts.length} times within a minute; it is started again in ${again} s`;
      if (!told)
        tell(live.entry.name, 'unavailable', `MCP server ${JSON.stringify(live.entry.name)} is not available: ${live.unavailable}`);
      return;
    }
    live.restarts.push(now);
    try {
      const open = await connectServer(live.entry, live.index, opts, live.notified);
      if (closed) {
        await open.close();
        return;
      }
      live.open = open;
      live.lost = undefined;
      live.unavailable = undefined;
      watch(live, open);
      // the list it gives now may not be the one the runs hold: a rebuild tells them what changed
      live.rebuilding = live.rebuilding.then(() => rebuild(live));
      const how = live.entry.transport === 'stdio' ? 'was started again' : 'has a new session';
      tell(live.entry.name, 'restarted', `MCP server ${JSON.stringify(live.entry.name)} ${how} (${open.endpoint})`);
    } catch (err) {
      live.unavailable = `it ${live.lost ?? 'went away'} and could not be started again: ${errorText(err, redactorOf(live))}`;
      tell(live.entry.name, 'unavailable', `MCP server ${JSON.stringify(live.entry.name)} is not available: ${live.unavailable}`);
    }
  };

  /** The session a call goes through: the open one, or one started again after the last went away. */
  const sessionOf = (live: Live): CallerSession => ({
    client: async () => {
      if (live.open !== undefined) return live.open.client;
      if (closed || live.lost === undefined) return undefined;
      const lost = live.lost;
      live.reopening ??= reopen(live).finally(() => (live.reopening = undefined));
      await live.reopening;
      return openOf(live)?.client ?? live.unavailable ?? `it ${lost}`;
    },
    gone: (client) => live.ended.get(client),
    expired: (client, how) => {
      const open = openOf(live);
      if (open?.client === client) lose(live, open, how);
    },
  });

  const redactorOf =
    (live: Live): Redactor =>
    (text) =>
      live.redactors.reduce((out, redact) => redact(out), text);

  const rebuild = async (live: Live): Promise<void> => {
    const open = live.open;
    if (open === undefined || closed) return;
    const before = new Map(live.tools.map((t) => [t.name, definitionOf(t)]));
    let change: McpToolsChange;
    try {
      const listing = await listAll(open.client, { timeout: REBUILD_TIMEOUT_MS });
      const built = buildTools(
        live.entry.name,
        listing,
        live.filters,
        callerFor(live.entry.name, sessionOf(live), redactorOf(live), live.entry.maxOutput),
        open.redact,
        live.naming,
        live.entry.confirm,
        open.sandbox,
      );
      const taken = takenElsewhere(live);
      const skipped: FilteredTool[] = built.problems.map((problem) => ({
        name: problem.tool,
        source: 'mcp',
        label: live.entry.name,
        reason: 'unusable',
        detail: problem.reason,
      }));
      const kept = built.tools.filter((tool) => {
        const holder = taken.get(tool.name);
        if (holder === undefined) return true;
        skipped.push({
          name: tool.name,
          source: 'mcp',
          label: live.entry.name,
          reason: 'collision',
          detail: `the name is already taken by ${holder}`,
        });
        return false;
      });
      if (live.open === undefined || closed) return;
      live.tools = kept;
      live.filtered = [...built.filtered, ...skipped];
      const after = new Map(kept.map((t) => [t.name, definitionOf(t)]));
      const added = [...after.keys()].filter((n) => !before.has(n));
      const removed = [...before.keys()].filter((n) => !after.has(n));
      const redefined = [...after].filter(([n, d]) => before.has(n) && before.get(n) !== d).map(([n]) => n);
      // a server may announce a change that changes nothing (some do once at start): nobody is told
      if (added.length === 0 && removed.length === 0 && skipped.length === 0 && redefined.length === 0) return;
      change = {
        server: live.entry.name,
        source: sourceOf(live),
        added,
        removed,
        skipped,
        advisory: advisoryFor(live.entry.name, added, removed, skipped, redefined),
      };
    } catch (err) {
      const error = errorText(err, open.redact);
      change = {
        server: live.entry.name,
        source: sourceOf(live),
        added: [],
        removed: [],
        skipped: [],
        error,
        advisory: `The MCP server ${JSON.stringify(live.entry.name)} said its tools changed, but the new list could not be read; its tools are unchanged.`,
      };
    }
    for (const listener of [...listeners]) listener(change);
  };

  try {
    for (const [index, entry] of entries.entries()) {
      if (opts.signal?.aborted === true)
        throw new McpClientError('connect', entry.name, `opening MCP server ${JSON.stringify(entry.name)} was cancelled`);
      const filters = compileFilters(entry.include, entry.exclude, `mcp_clients[${index}].`);
      const naming = { prefix: entry.prefix, key: `mcp_clients[${index}]` };
      const live: Live = {
        entry,
        filters,
        naming,
        index,
        open: undefined,
        tools: [],
        filtered: [],
        rebuilding: Promise.resolve(),
        notifiedEarly: false,
        notified: () => {
          if (live.open === undefined) live.notifiedEarly = true;
          else live.rebuilding = live.rebuilding.then(() => rebuild(live));
        },
        lost: undefined,
        reopening: undefined,
        unavailable: undefined,
        restarts: [],
        redactors: [],
        ended: new WeakMap(),
      };
      lives.push(live);
      live.open = await connectServer(entry, index, opts, live.notified);
      const open = live.open;
      watch(live, open);
      const built = buildTools(
        entry.name,
        open.listing,
        filters,
        callerFor(entry.name, sessionOf(live), redactorOf(live), entry.maxOutput),
        open.redact,
        live.naming,
        entry.confirm,
        open.sandbox,
      );
      if (built.problems.length > 0) throw new McpClientError('descriptor', entry.name, problemsMessage(entry.name, index, built));
      const taken = takenElsewhere(live);
      for (const tool of built.tools) {
        const holder = taken.get(tool.name);
        if (holder !== undefined) throw new McpClientError('collision', entry.name, collisionMessage(entry, index, tool.name, holder));
      }
      for (const note of built.notes) warnings.push({ server: entry.name, message: note.message });
      live.tools = built.tools;
      live.filtered = built.filtered;
      // the first listing may already predate the change, so it is read again
      if (live.notifiedEarly) live.notified();
    }
  } catch (err) {
    await closeAll();
    throw err;
  }

  let closing: Promise<void> | undefined;
  return {
    sources: () => lives.map(sourceOf),
    warnings,
    onToolsChanged: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onServerEvent: (listener) => {
      serverListeners.add(listener);
      return () => serverListeners.delete(listener);
    },
    settled: async () => {
      // a notification heard while waiting chains another rebuild: wait until the chains stand still
      for (;;) {
        const chains = lives.map((l) => l.rebuilding);
        await Promise.allSettled(chains);
        if (lives.every((l, i) => l.rebuilding === chains[i])) return;
      }
    },
    close: () =>
      (closing ??= (async () => {
        await Promise.allSettled(lives.map((l) => l.rebuilding));
        await closeAll();
      })()),
  };
}

/** What the model is sent of a tool: a change to it is a change the model must hear of. */
function definitionOf(tool: FuncTool): string {
  return JSON.stringify([tool.description, tool.inputSchema]);
}

function advisoryFor(
  server: string,
  added: readonly string[],
  removed: readonly string[],
  skipped: readonly FilteredTool[],
  redefined: readonly string[],
): string {
  const parts: string[] = [];
  if (added.length > 0) parts.push(`added ${added.join(', ')}`);
  if (removed.length > 0) parts.push(`removed ${removed.join(', ')}`);
  if (redefined.length > 0) parts.push(`changed the description or parameters of ${redefined.join(', ')}`);
  if (skipped.length > 0) parts.push(`left out ${skipped.map((s) => `${s.name} (${s.detail})`).join(', ')}`);
  return `The MCP server ${JSON.stringify(server)} changed its tool list: ${parts.join('; ')}.`;
}
