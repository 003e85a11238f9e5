/**
 * Importing other agents' tools (`remote_tools`). Each host's card is fetched, filtered by tool
 * name, named globally, and turned into tools that call the host with the remote name while the
 * model sees the local one. Authority sits with the serving agent: an imported tool is never
 * confirm-gated here and its arguments are not validated here, so the two ends cannot disagree.
 */
import { A2aClient } from '../a2a/client.js';
import { A2aError } from '../a2a/errors.js';
import { createTransport } from '../a2a/registry.js';
import type { Transport } from '../a2a/transport.js';
import type { DiscoveryReplyMessage, ToolDescriptor, ToolReplyMessage } from '../a2a/types.js';
import type { RemoteToolsConfig } from '../config/types.js';
import { newFuncTool } from '../toolkit/functool/functool.js';
import { isValidToolName } from '../toolkit/names.js';
import type { FilteredTool, ToolSource } from '../toolkit/source.js';
import type { Outcome, Tool } from '../toolkit/tool.js';
import { RemoteToolsError } from './errors.js';
import { nameRemoteTools } from './naming.js';
import type { Candidate } from './naming.js';

/** `strict` for runs (any failure aborts: the prompt may depend on the missing tools); `lenient` for `fisk info`. */
export type ImportMode = 'strict' | 'lenient';

export const REMOTE_WARNING_CODES = ['host_unavailable', 'include_tags_ignored', 'descriptor_unusable', 'collision', 'no_tools'] as const;
export type RemoteWarningCode = (typeof REMOTE_WARNING_CODES)[number];

export interface RemoteToolWarning {
  readonly code: RemoteWarningCode;
  readonly host: string;
  readonly message: string;
  readonly tool?: string;
}

export interface ImportOptions {
  /** Names already taken by local tools: an imported tool with one of them is prefixed. */
  readonly localNames: Iterable<string>;
  readonly mode: ImportMode;
  /** The importing agent's identity, sent as the sender. */
  readonly identity: string;
  /** Discovery and call timeout (the run's `llm.budget.call_timeout`; 30 s when absent). */
  readonly timeoutMs?: number;
}

export interface ImportResult {
  /** One `a2a` source per host that contributed, labelled with its alias, in configuration order. */
  readonly sources: ToolSource[];
  readonly warnings: RemoteToolWarning[];
  readonly filtered: FilteredTool[];
}

function compile(patterns: readonly string[], key: string): RegExp[] {
  return patterns.map((p) => {
    try {
      return new RegExp(p, 'u');
    } catch (err) {
      throw new RemoteToolsError('unusable_filter', `${key}: ${JSON.stringify(p)} is not a valid regular expression; fix the pattern`, {
        cause: err,
      });
    }
  });
}

/** Rebuilds a reply into the outcome a local command gives, so the model sees the same JSON either way. */
export function outcomeFromReply(reply: ToolReplyMessage): Outcome {
  const output = reply.output ?? '';
  const isError = reply.is_error === true;
  if (reply.exec === undefined) return { status: 'completed', output, isError };
  return {
    status: 'completed',
    output,
    isError,
    exec: { command: reply.exec.command ?? '', exitCode: reply.exec.exit_code ?? 0, truncated: reply.exec.truncated === true },
  };
}

/**
 * How long past a peer's advertised per-call limit a call is still waited for: the peer answers
 * a call it stopped at its limit, so only the round trip and its reply's encoding come on top.
 */
export const REMOTE_CALL_MARGIN_MS = 5000;

/** How long to wait for one call: the peer's limit plus the margin, never longer than the caller's own. */
export function remoteCallTimeout(own: number | undefined, advertised: number | undefined): number | undefined {
  if (advertised === undefined) return own;
  const peer = advertised + REMOTE_CALL_MARGIN_MS;
  return own === undefined ? peer : Math.min(own, peer);
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/**
 * What the model is told when a call got no usable answer. A call that never reached the peer, or
 * that the peer refused before running it, did not run; one that went out and was not answered
 * (the peer died, or is still working past the wait) may have run, and saying otherwise would
 * invite the model to repeat an effect.
 */
export function remoteFailureText(
  host: string,
  remoteName: string,
  err: unknown,
  waited: { readonly timeoutMs: number | undefined; readonly advertisedMs: number | undefined },
): string {
  const why = err instanceof Error ? err.message : String(err);
  const notRun =
    err instanceof A2aError &&
    (err.code === 'unavailable' || err.code === 'rejected' || err.code === 'identity' || err.code === 'registry' || err.code === 'closed');
  if (notRun) return `remote agent ${JSON.stringify(host)} could not run ${JSON.stringify(remoteName)}: ${why}`;
  const limit =
    err instanceof A2aError && err.code === 'lost' && waited.timeoutMs !== undefined
      ? ` within ${seconds(waited.timeoutMs)}${waited.advertisedMs === undefined ? '' : ` (its own limit for a call is ${seconds(waited.advertisedMs)})`}`
      : '';
  return `remote agent ${JSON.stringify(host)} did not answer the call to ${JSON.stringify(remoteName)}${limit}: the call may or may not have run; check its effect before calling it again (${why})`;
}

function remoteTool(
  client: A2aClient,
  host: string,
  remoteName: string,
  localName: string,
  d: ToolDescriptor,
  ownTimeoutMs: number | undefined,
  advertisedMs: number | undefined,
): Tool {
  const timeoutMs = remoteCallTimeout(ownTimeoutMs, advertisedMs);
  const schema = d.input_schema !== undefined && d.input_schema['type'] === 'object' ? d.input_schema : { type: 'object', properties: {} };
  return newFuncTool({
    name: localName,
    description: d.description ?? '',
    inputSchema: schema,
    origin: { kind: 'remote', agent: host, remoteName },
    validateRequired: false,
    handler: async (input) => {
      try {
        const reply = await client.callTool(host, remoteName, input, timeoutMs !== undefined ? { timeoutMs } : {});
        return outcomeFromReply(reply);
      } catch (err) {
        // the model can reason about a peer that went away; the run goes on
        return { status: 'completed', output: remoteFailureText(host, remoteName, err, { timeoutMs, advertisedMs }), isError: true };
      }
    },
  });
}

/**
 * Imports the tools of every configured host. Throws `RemoteToolsError` for an exclude-by-tags
 * filter (always), and in strict mode for any host that cannot be discovered and any collision.
 */
export async function importRemoteTools(
  target: Transport | { readonly connection: unknown },
  hosts: readonly RemoteToolsConfig[],
  opts: ImportOptions,
): Promise<ImportResult> {
  const transport =
    'serve' in target
      ? target
      : createTransport('nats', { connection: target.connection, ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}) });
  const client = new A2aClient(transport, opts.identity);
  const warnings: RemoteToolWarning[] = [];
  const filtered: FilteredTool[] = [];
  for (const [i, host] of hosts.entries()) {
    if (host.exclude.tags.length > 0) {
      throw new RemoteToolsError(
        'unusable_filter',
        `remote_tools[${i}].exclude.tags cannot be honored for host ${JSON.stringify(host.name)}: discovery does not carry tags, so a tool excluded by tag would be imported anyway; exclude by tool name instead`,
      );
    }
    if (host.include.tags.length > 0) {
      warnings.push({
        code: 'include_tags_ignored',
        host: host.name,
        message: `remote_tools[${i}].include.tags is ignored for host ${JSON.stringify(host.name)}: discovery does not carry tags; include by tool name instead`,
      });
    }
  }
  const callOptions = opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {};
  const [cards, limits] = await Promise.all([
    Promise.all(
      hosts.map(async (host): Promise<DiscoveryReplyMessage | Error> => {
        try {
          return await client.discover(host.name, callOptions);
        } catch (err) {
          return err as Error;
        }
      }),
    ),
    Promise.all(hosts.map((h) => client.toolTimeout(h.name, callOptions))),
  ]);
  const candidates: Array<Candidate & { descriptor: ToolDescriptor }> = [];
  for (const [i, host] of hosts.entries()) {
    const card = cards[i];
    if (card instanceof Error || card === undefined) {
      const message = `remote agent ${JSON.stringify(host.name)} could not be discovered: ${card?.message ?? 'no answer'}`;
      if (opts.mode === 'strict')
        throw new RemoteToolsError(
          'host_failed',
          `${message}; check that it is serving and that nats_context reaches it, or remove it from remote_tools`,
          { cause: card },
        );
      warnings.push({ code: 'host_unavailable', host: host.name, message });
      continue;
    }
    const include = compile(host.include.tools, `remote_tools[${i}].include.tools`);
    const exclude = compile(host.exclude.tools, `remote_tools[${i}].exclude.tools`);
    for (const declared of card.tools ?? []) {
      if (!isValidToolName(declared.name) || (declared.description ?? '').trim() === '') {
        warnings.push({
          code: 'descriptor_unusable',
          host: host.name,
          tool: declared.name,
          message: `remote agent ${JSON.stringify(host.name)} offers ${JSON.stringify(declared.name)} ${isValidToolName(declared.name) ? 'without a description' : 'under an invalid name'}; it is not imported`,
        });
        continue;
      }
      if (include.length > 0 && !include.some((r) => r.test(declared.name))) {
        filtered.push({
          name: declared.name,
          source: 'a2a',
          label: host.alias,
          reason: 'not_included',
          detail: `matches no remote_tools[${i}].include.tools pattern`,
        });
        continue;
      }
      const ex = exclude.find((r) => r.test(declared.name));
      if (ex !== undefined) {
        filtered.push({
          name: declared.name,
          source: 'a2a',
          label: host.alias,
          reason: 'excluded',
          detail: `matches remote_tools[${i}].exclude.tools ${JSON.stringify(ex.source)}`,
        });
        continue;
      }
      candidates.push({ host: host.name, alias: host.alias, remoteName: declared.name, descriptor: declared });
    }
  }
  const named = nameRemoteTools(candidates, new Set(opts.localNames));
  const byHost = new Map<string, Tool[]>();
  for (const [i, naming] of named.entries()) {
    const candidate = candidates[i] as (typeof candidates)[number];
    if (naming.status !== 'named') {
      if (opts.mode === 'strict') throw new RemoteToolsError('collision', naming.detail);
      warnings.push({ code: 'collision', host: candidate.host, tool: naming.name, message: naming.detail });
      filtered.push({ name: naming.name, source: 'a2a', label: candidate.alias, reason: 'collision', detail: naming.detail });
      continue;
    }
    byHost.set(candidate.host, [
      ...(byHost.get(candidate.host) ?? []),
      remoteTool(
        client,
        candidate.host,
        candidate.remoteName,
        naming.name,
        candidate.descriptor,
        opts.timeoutMs,
        limits[hosts.findIndex((h) => h.name === candidate.host)],
      ),
    ]);
  }
  const sources: ToolSource[] = [];
  for (const [i, host] of hosts.entries()) {
    const tools = byHost.get(host.name);
    if (tools !== undefined) {
      sources.push({ source: 'a2a', label: host.alias, tools });
      continue;
    }
    // a host that answered and gave nothing would otherwise vanish without a word
    const card = cards[i];
    if (card instanceof Error || card === undefined) continue;
    const offered = card.tools?.length ?? 0;
    const why =
      offered === 0
        ? 'it offers no tools'
        : `none of the ${offered} ${offered === 1 ? 'tool' : 'tools'} it offers is left after remote_tools[${i}]'s include and exclude filters or name checks`;
    warnings.push({ code: 'no_tools', host: host.name, message: `remote agent ${JSON.stringify(host.name)} contributes no tools: ${why}` });
  }
  return { sources, warnings, filtered };
}
