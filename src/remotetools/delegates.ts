/**
 * Opening the peers of `remote_agents` and building their delegation tools. A run opens them
 * strictly: a card that cannot be read, a peer that does not answer discovery or an unset header
 * variable stops it before the model is called, naming the entry. A listing opens them leniently:
 * each failure is a warning and the rest are listed.
 */
import { createTransport } from '../a2a/registry.js';
import { ConfigError, delegateToolName, resolveRemoteAgentHeaders } from '../config/index.js';
import type { Config, RemoteAgentConfig } from '../config/index.js';
import type { ToolSource } from '../toolkit/source.js';
import type { Tool } from '../toolkit/tool.js';
import { A2aHttpPeer } from './a2a-http-peer.js';
import { delegationTool } from './delegation.js';
import type { DelegatePeer } from './delegation.js';
import { RemoteToolsError } from './errors.js';
import { NatsPeer } from './nats-peer.js';

/** What opening the peers needs. */
export interface DelegatesContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The connection of `nats_context`, opened on first use. */
  readonly nats: () => Promise<{ readonly connection: unknown }>;
  /** How long discovery waits (the run's call timeout). */
  readonly timeoutMs: number;
  readonly mode: 'strict' | 'lenient';
}

/** The delegation tools, one source per peer, and what a listing could not open. */
export interface OpenedDelegates {
  readonly sources: ToolSource[];
  readonly warnings: { readonly key: string; readonly message: string }[];
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function openPeer(config: Config, entry: RemoteAgentConfig, index: number, ctx: DelegatesContext): Promise<DelegatePeer> {
  if (entry.transport === 'a2a-http') {
    // the values are credentials: the runtime's scrubber already holds every variable they name
    const resolved = resolveRemoteAgentHeaders(entry, index, ctx.env);
    return A2aHttpPeer.open(entry.name, entry.url ?? '', resolved.headers);
  }
  const transport = createTransport('nats', { connection: (await ctx.nats()).connection, timeoutMs: ctx.timeoutMs });
  return NatsPeer.open(transport, config.identity, entry.name);
}

/** Opens every `remote_agents` peer and builds its `delegate_<alias>` tool. Throws `RemoteToolsError` (`host_failed`) in strict mode. */
export async function openDelegates(config: Config, ctx: DelegatesContext): Promise<OpenedDelegates> {
  const sources: ToolSource[] = [];
  const warnings: { key: string; message: string }[] = [];
  for (const [index, entry] of config.remoteAgents.entries()) {
    const key = `remote_agents[${index}]`;
    let peer: DelegatePeer;
    try {
      peer = await openPeer(config, entry, index, ctx);
    } catch (err) {
      // a header naming an unset variable is a configuration problem, which names its own key
      if (err instanceof ConfigError) {
        if (ctx.mode === 'strict') throw err;
        warnings.push({ key, message: `delegate_${entry.alias} is not listed: ${err.message}` });
        continue;
      }
      const remedy =
        entry.transport === 'a2a-http'
          ? `check ${key}.url and ${key}.headers`
          : `check that ${entry.name} is served on NATS context ${config.natsContext ?? '(unset)'}`;
      const text = `${key} (${entry.name}): ${message(err)}; ${remedy}`;
      if (ctx.mode === 'strict') throw new RemoteToolsError('host_failed', text, { cause: err });
      warnings.push({ key, message: `delegate_${entry.alias} is not listed: ${text}` });
      continue;
    }
    const tool: Tool = delegationTool(entry, index, config.identity, peer, delegateToolName(entry.alias));
    sources.push({ source: 'delegate', label: entry.alias, tools: [tool] });
  }
  return { sources, warnings };
}
