/**
 * Opening one MCP server: the transport, the handshake and the first tool listing, all under the
 * server's own startup timeout. The client advertises no capability at all: no roots, no sampling
 * (a foreign server must not spend this agent's model budget) and no elicitation.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';
import { formatGoDuration } from '../../config/duration.js';
import { resolveMcpClient } from '../../config/expand.js';
import type { ResolvedMcpClient } from '../../config/expand.js';
import type { McpClientConfig } from '../../config/types.js';
import { childEnvironment } from './env.js';
import { McpClientError } from './errors.js';
import { headerSafeFetch } from './redirect.js';
import { GroupStdioTransport } from './stdio-transport.js';
import { errorText, printableEndpoint, redactorFor } from './redact.js';
import type { Redactor } from './redact.js';

/** The most `tools/list` pages read from one server; a server paging forever is refused. */
export const MAX_LIST_PAGES = 100;
/** How long closing waits for an HTTP server to acknowledge the end of its session. */
const TERMINATE_BUDGET_MS = 2_000;
/** How much of a stdio server's stderr is kept to explain a failed start. */
const STDERR_TAIL = 2_048;

/** Who this client says it is at initialize. */
export interface ClientIdentity {
  readonly name: string;
  readonly version: string;
}

export const DEFAULT_CLIENT_IDENTITY: ClientIdentity = { name: 'fisk-ai', version: '0.0.0' };

/** What opening a server needs besides its entry. */
export interface ConnectOptions {
  /** The environment `${VAR}` references resolve against and stdio children inherit from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Variables a stdio child must not inherit (the credential union). */
  readonly credentialEnvNames: readonly string[];
  /**
   * Replaces the value of every credential in the union. Applied, with the server's own secrets,
   * to whatever the server says (descriptions, results, errors, stderr) and to its endpoint, so a
   * server that reads another party's credential (from `/proc`, a file) cannot pass it on.
   */
  readonly scrub?: (text: string) => string;
  readonly signal?: AbortSignal;
  readonly clientIdentity?: ClientIdentity;
}

/** One open server: the protocol client and what may be printed about it. */
export interface OpenServer {
  readonly name: string;
  readonly index: number;
  readonly client: Client;
  readonly redact: Redactor;
  /** The URL or command line, redacted. */
  readonly endpoint: string;
  /** The raw `tools/list` entries, unchecked. */
  readonly listing: readonly unknown[];
  close(): Promise<void>;
}

// Loose on purpose: descriptors are checked one by one so a bad one can be named.
const ListPage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/** Reads every page of `tools/list`. */
export async function listAll(client: Client, opts: { readonly signal?: AbortSignal; readonly timeout?: number }): Promise<unknown[]> {
  const out: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const res = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, ListPage, opts);
    out.push(...res.tools);
    if (res.nextCursor === undefined || res.nextCursor === '') return out;
    cursor = res.nextCursor;
  }
  throw new Error(`tools/list kept paging past ${MAX_LIST_PAGES} pages`);
}

interface Opened {
  readonly transport: Transport;
  readonly endpoint: string;
  readonly stderr: () => string;
}

function openTransport(entry: McpClientConfig, resolved: ResolvedMcpClient, opts: ConnectOptions, redact: Redactor): Opened {
  switch (entry.transport) {
    case 'stdio': {
      const command = entry.command ?? '';
      const transport = new GroupStdioTransport({
        command,
        args: entry.args,
        env: childEnvironment(opts.env, opts.credentialEnvNames, resolved.env),
      });
      let tail = '';
      // drained always, so a chatty server never blocks on a full pipe
      transport.stderr.on('data', (chunk: Buffer) => {
        tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL);
      });
      return { transport, endpoint: redact([command, ...entry.args].join(' ')), stderr: () => redact(tail.trim()) };
    }
    case 'http': {
      const url = resolved.url ?? '';
      const transport = new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { ...resolved.headers } },
        fetch: headerSafeFetch(Object.keys(resolved.headers)),
        // redirects are followed by headerSafeFetch, which knows which headers to drop
        redirectPolicy: 'follow',
      });
      return { transport, endpoint: printableEndpoint(url, redact), stderr: () => '' };
    }
    default: {
      const never: never = entry.transport;
      return never;
    }
  }
}

/**
 * Opens `entry` (the `index`th of `mcp_clients`) and reads its tool list, within its
 * `startup_timeout`. On any failure everything this call opened is closed and an
 * `McpClientError` names the server and its (redacted) endpoint. `onListChanged` is registered
 * before the handshake so a notification sent right after it is not lost.
 */
export async function connectServer(entry: McpClientConfig, index: number, opts: ConnectOptions, onListChanged?: () => void): Promise<OpenServer> {
  const resolved = resolveMcpClient(entry, index, opts.env);
  const redact = redactorFor(resolved.secrets, resolved.url, opts.scrub);
  const opened = openTransport(entry, resolved, opts, redact);
  const client = new Client(opts.clientIdentity ?? DEFAULT_CLIENT_IDENTITY, { capabilities: {} });
  if (onListChanged !== undefined) {
    client.setNotificationHandler(z.object({ method: z.literal('notifications/tools/list_changed') }).loose(), () => onListChanged());
  }
  const who = `MCP server ${JSON.stringify(entry.name)} (${opened.endpoint})`;
  const key = `mcp_clients[${index}]`;
  const ms = entry.startupTimeout.ms;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error('startup timeout')), ms);
  const signal = opts.signal === undefined ? deadline.signal : AbortSignal.any([deadline.signal, opts.signal]);
  const stopped = new Promise<never>((_resolve, reject) => {
    const fail = (): void => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  stopped.catch(() => undefined);
  const close = async (): Promise<void> => {
    // an HTTP session is ended on the server too, within a bound: a dead server must not hold up closing
    if (opened.transport instanceof StreamableHTTPClientTransport && opened.transport.sessionId !== undefined) {
      const transport = opened.transport;
      await Promise.race([transport.terminateSession().catch(() => undefined), new Promise((r) => setTimeout(r, TERMINATE_BUDGET_MS).unref())]);
    }
    await client.close().catch(() => undefined);
    await opened.transport.close().catch(() => undefined);
  };
  let phase = 'connect' as 'connect' | 'list';
  try {
    const listing = await Promise.race([
      (async () => {
        await client.connect(opened.transport, { signal, timeout: ms });
        phase = 'list';
        return listAll(client, { signal, timeout: ms });
      })(),
      stopped,
    ]);
    return { name: entry.name, index, client, redact, endpoint: opened.endpoint, listing, close };
  } catch (err) {
    if (opened.transport instanceof GroupStdioTransport) await opened.transport.terminate();
    await close();
    const stderr = opened.stderr();
    const said = stderr === '' ? '' : `; it wrote: ${stderr}`;
    if (deadline.signal.aborted) {
      throw new McpClientError('timeout', entry.name, `${who} did not finish starting within ${formatGoDuration(ms)}; raise ${key}.startup_timeout or check the server${said}`, { cause: err });
    }
    if (opts.signal?.aborted === true) {
      throw new McpClientError('connect', entry.name, `${who}: cancelled while starting`, { cause: err });
    }
    if (phase === 'list') {
      throw new McpClientError('list', entry.name, `${who} started but its tool list could not be read: ${errorText(err, redact)}${said}`, { cause: err });
    }
    if (isMissingCommand(err) && entry.transport === 'stdio') {
      throw new McpClientError('connect', entry.name, `${who} could not be started: there is no program ${JSON.stringify(entry.command)} on PATH or at that path; install it or set ${key}.command`, { cause: err });
    }
    throw new McpClientError('connect', entry.name, `${who} could not be started: ${errorText(err, redact)}${said}`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}

/** Whether starting a stdio server failed because its command does not exist. */
function isMissingCommand(err: unknown): boolean {
  return err instanceof Error && 'code' in err && err.code === 'ENOENT' && 'syscall' in err && typeof err.syscall === 'string' && err.syscall.startsWith('spawn');
}
