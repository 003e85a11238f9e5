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
import { redactSecrets, resolveMcpClient } from '../../config/expand.js';
import type { ResolvedMcpClient } from '../../config/expand.js';
import type { McpClientConfig } from '../../config/types.js';
import { childEnvironment } from './env.js';
import { McpClientError } from './errors.js';
import { GroupStdioTransport } from './stdio-transport.js';
import { expandHome, serverPolicy } from '../../toolkit/sandbox/policy.js';
import { reportPolicy } from '../../toolkit/sandbox/policy.js';
import type { SandboxPolicy, SandboxSettings } from '../../toolkit/sandbox/policy.js';
import type { SandboxReport } from '../../toolkit/sandbox/report.js';
import {
  basicSecrets,
  createHttpTransport,
  httpStatusOf,
  httpTarget,
  refusesStreamableHttp,
  serverFetch,
  wiresFor,
} from './http-transport.js';
import { loginRequiredIn } from './oauth/login-required.js';
import type { OAuthAuthorizer } from './oauth/oauth-fetch.js';
import { oauthLayerFor } from './oauth/setup.js';
import type { OAuthLayer } from './oauth/setup.js';
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
  /**
   * A person logging in (`fisk mcp login`): an OAuth server's authorization code flow is run
   * through it, and the startup timeout stretches to `LOGIN_TIMEOUT_MS`. Without one, a server
   * that needs a login fails naming the command to run.
   */
  readonly authorizer?: OAuthAuthorizer;
  /** The runtime's sandbox: a stdio server whose entry has `sandbox` on runs inside it. */
  readonly sandbox?: SandboxSettings;
}

/** How long a login may take, from the first request to the browser coming back. */
export const LOGIN_TIMEOUT_MS = 300_000;

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
  /** The sandbox a stdio server runs in (`null`: unsandboxed); undefined for an http server, which fisk does not start. */
  readonly sandbox: SandboxReport | null | undefined;
  /** How the session ended when it ended on its own: a stdio server's exit, or the connection closing. */
  endedWhy(): string;
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

/** The policy a stdio server runs under: its entry's own keys over the runtime's sandbox; none when `sandbox` is off. */
export function stdioSandbox(
  entry: McpClientConfig,
  key: string,
  opts: Pick<ConnectOptions, 'env' | 'sandbox'>,
): SandboxPolicy | undefined {
  if (!entry.sandbox.enabled) return undefined;
  // fail closed: a server asked to run sandboxed never starts outside one
  if (opts.sandbox === undefined)
    throw new Error(
      `${key}.sandbox is on but this runtime opened no sandbox; open it through the host (openRuntime), which checks bubblewrap`,
    );
  return serverPolicy(opts.sandbox, {
    network: entry.sandbox.network,
    writable: entry.sandbox.writable?.map((p) => expandHome(p, opts.env)),
  });
}

/** How a report shows a server's sandbox: undefined for an http server, `null` for an unsandboxed stdio one. */
export function serverSandbox(
  entry: McpClientConfig,
  key: string,
  opts: Pick<ConnectOptions, 'env' | 'sandbox'>,
): SandboxReport | null | undefined {
  if (entry.transport !== 'stdio') return undefined;
  const policy = stdioSandbox(entry, key, opts);
  return policy === undefined ? null : reportPolicy(policy);
}

function openStdio(entry: McpClientConfig, resolved: ResolvedMcpClient, opts: ConnectOptions, redact: Redactor, key: string): Opened {
  const command = entry.command ?? '';
  const sandbox = stdioSandbox(entry, key, opts);
  const transport = new GroupStdioTransport({
    command,
    args: entry.args,
    env: childEnvironment(opts.env, opts.credentialEnvNames, resolved.env),
    ...(sandbox === undefined ? {} : { sandbox }),
  });
  let tail = '';
  // drained always, so a chatty server never blocks on a full pipe
  transport.stderr.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL);
  });
  return { transport, endpoint: redact([command, ...entry.args].join(' ')), stderr: () => redact(tail.trim()) };
}

/** How to open the transport, once per attempt: stdio once, http once per wire to try. */
interface Attempt {
  readonly open: () => Opened;
  /** Whether a failure of this attempt lets the next one be tried. */
  readonly fallsBack: (err: unknown) => boolean;
}

function attemptsFor(
  entry: McpClientConfig,
  resolved: ResolvedMcpClient,
  opts: ConnectOptions,
  redact: Redactor,
  key: string,
  oauth: OAuthLayer | undefined,
): Attempt[] {
  if (entry.transport === 'stdio') return [{ open: () => openStdio(entry, resolved, opts, redact, key), fallsBack: () => false }];
  const target = httpTarget(resolved.url ?? '', resolved.headers, key);
  const fetchFn = serverFetch(target, oauth?.fetch.wrap);
  const endpoint = printableEndpoint(resolved.url ?? '', redact);
  const wires = wiresFor(entry.transport);
  return wires.map((wire, i) => ({
    open: () => ({ transport: createHttpTransport(wire, target.url, fetchFn), endpoint, stderr: () => '' }),
    fallsBack: (err: unknown) => i < wires.length - 1 && refusesStreamableHttp(err),
  }));
}

/**
 * Opens `entry` (the `index`th of `mcp_clients`) and reads its tool list, within its
 * `startup_timeout`. On any failure everything this call opened is closed and an
 * `McpClientError` names the server and its (redacted) endpoint. `onListChanged` is registered
 * before the handshake so a notification sent right after it is not lost.
 */
export async function connectServer(
  entry: McpClientConfig,
  index: number,
  opts: ConnectOptions,
  onListChanged?: () => void,
): Promise<OpenServer> {
  const resolved = resolveMcpClient(entry, index, opts.env);
  const key = `mcp_clients[${index}]`;
  const basic = entry.transport === 'stdio' || resolved.url === undefined ? [] : basicSecrets(resolved.url);
  const staticRedact = redactorFor([...resolved.secrets, ...basic], resolved.url, opts.scrub);
  let oauth: OAuthLayer | undefined;
  // tokens change while the session lives: the redactor asks the provider for the current ones each time
  const redact: Redactor = (text) => redactSecrets(staticRedact(text), oauth?.provider.secrets() ?? []);
  let attempts: Attempt[];
  try {
    if (entry.transport !== 'stdio' && entry.oauth !== undefined) {
      const clientName = (opts.clientIdentity ?? DEFAULT_CLIENT_IDENTITY).name;
      oauth = oauthLayerFor(entry, key, httpTarget(resolved.url ?? '', {}, key).url, {
        env: opts.env,
        clientName,
        ...(opts.authorizer === undefined ? {} : { authorizer: opts.authorizer }),
      });
    }
    attempts = attemptsFor(entry, resolved, opts, redact, key, oauth);
  } catch (err) {
    throw new McpClientError('connect', entry.name, `MCP server ${JSON.stringify(entry.name)}: ${errorText(err, redact)}`, { cause: err });
  }
  const newClient = (): Client => {
    const c = new Client(opts.clientIdentity ?? DEFAULT_CLIENT_IDENTITY, { capabilities: {} });
    if (onListChanged !== undefined) {
      c.setNotificationHandler(z.object({ method: z.literal('notifications/tools/list_changed') }).loose(), () => onListChanged());
    }
    return c;
  };
  let client = newClient();
  let opened = (attempts[0] as Attempt).open();
  const who = `MCP server ${JSON.stringify(entry.name)} (${opened.endpoint})`;
  const ms =
    opts.authorizer !== undefined && oauth !== undefined ? Math.max(entry.startupTimeout.ms, LOGIN_TIMEOUT_MS) : entry.startupTimeout.ms;
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
      await Promise.race([
        transport.terminateSession().catch(() => undefined),
        new Promise((r) => setTimeout(r, TERMINATE_BUDGET_MS).unref()),
      ]);
    }
    await client.close().catch(() => undefined);
    await opened.transport.close().catch(() => undefined);
  };
  let phase = 'connect' as 'connect' | 'list';
  try {
    const listing = await Promise.race([
      (async () => {
        for (let i = 0; ; i++) {
          try {
            await client.connect(opened.transport, { signal, timeout: ms });
            break;
          } catch (err) {
            const next = attempts[i + 1];
            if (next === undefined || !(attempts[i] as Attempt).fallsBack(err) || signal.aborted) throw err;
            // the server refused streamable HTTP: the same URL is tried as a legacy SSE endpoint
            await client.close().catch(() => undefined);
            await opened.transport.close().catch(() => undefined);
            client = newClient();
            opened = next.open();
          }
        }
        phase = 'list';
        return listAll(client, { signal, timeout: ms });
      })(),
      stopped,
    ]);
    return {
      name: entry.name,
      index,
      client,
      redact,
      endpoint: opened.endpoint,
      listing,
      sandbox: serverSandbox(entry, `mcp_clients[${index}]`, opts),
      endedWhy: () => (opened.transport instanceof GroupStdioTransport ? opened.transport.ended : undefined) ?? 'closed its connection',
      close,
    };
  } catch (err) {
    if (opened.transport instanceof GroupStdioTransport) await opened.transport.terminate();
    await close();
    const stderr = opened.stderr();
    const said = stderr === '' ? '' : `; it wrote: ${stderr}`;
    const login = loginRequiredIn(err) ?? oauth?.fetch.lastLoginRequired();
    if (login !== undefined) {
      throw new McpClientError('login', entry.name, `${who}: ${redact(login.message)}`, { cause: err });
    }
    if (deadline.signal.aborted) {
      throw new McpClientError(
        'timeout',
        entry.name,
        `${who} did not finish starting within ${formatGoDuration(ms)}; raise ${key}.startup_timeout or check the server${said}`,
        { cause: err },
      );
    }
    if (opts.signal?.aborted === true) {
      throw new McpClientError('connect', entry.name, `${who}: cancelled while starting`, { cause: err });
    }
    if (phase === 'list') {
      throw new McpClientError('list', entry.name, `${who} started but its tool list could not be read: ${errorText(err, redact)}${said}`, {
        cause: err,
      });
    }
    if (isMissingCommand(err) && entry.transport === 'stdio') {
      throw new McpClientError(
        'connect',
        entry.name,
        `${who} could not be started: there is no program ${JSON.stringify(entry.command)} on PATH or at that path; install it or set ${key}.command`,
        { cause: err },
      );
    }
    throw new McpClientError('connect', entry.name, `${who} could not be started: ${httpFailureText(err, redact, entry, key)}${said}`, {
      cause: err,
    });
  } finally {
    clearTimeout(timer);
  }
}

/** A transport failure with its HTTP status, and what to change when the server refused to authorize. */
function httpFailureText(err: unknown, redact: Redactor, entry: McpClientConfig, key: string): string {
  const text = errorText(err, redact);
  const status = httpStatusOf(err);
  if (status === undefined) return text;
  const said = text.includes(String(status)) ? text : `HTTP ${status}: ${text}`;
  if ((status === 401 || status === 403) && entry.oauth === undefined) {
    return `${said}; the server refused to authorize the request: check the credential in ${key}.url or ${key}.headers, or set ${key}.oauth if the server uses OAuth`;
  }
  return said;
}

/** Whether starting a stdio server failed because its command does not exist. */
function isMissingCommand(err: unknown): boolean {
  return (
    err instanceof Error &&
    'code' in err &&
    err.code === 'ENOENT' &&
    'syscall' in err &&
    typeof err.syscall === 'string' &&
    err.syscall.startsWith('spawn')
  );
}
