/**
 * The streamable HTTP listener: one MCP session per client, all sharing one tool listing, one
 * concurrency limit and one confirm policy. Shutdown cancels held-open event streams and
 * in-flight calls first, because closing the listener alone waits on them forever.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ConfirmOverMcp } from '../../config/types.js';
import { isLoopbackHost } from '../../util/loopback.js';
import type { InvokeWrapper } from '../../toolkit/invoke/index.js';
import type { Tool } from '../../toolkit/tool.js';
import { admissionRefusal } from './admission.js';
import type { AdmissionPolicy } from './admission.js';
import { ELICITATION_TIMEOUT_MS } from './approval.js';
import type { CallEvent, CallPolicy } from './call-tool.js';
import { McpServeError } from './errors.js';
import { Semaphore } from './semaphore.js';
import { listTools, sessionServer } from './session-server.js';
import type { ServerIdentity } from './session-server.js';

/** One open client session: its transport and whether it is in use. */
interface SessionState {
  readonly transport: StreamableHTTPServerTransport;
  /** Requests of this session still open (a held-open event stream counts). */
  open: number;
  /** When the last request of this session ended or began. */
  lastSeen: number;
}

/** How long shutdown waits for open requests before cutting their connections. */
export const SHUTDOWN_BUDGET_MS = 5_000;
/** The largest request body read. */
const MAX_BODY = 4 << 20;
/** Open client sessions allowed at once, by default. */
export const DEFAULT_MAX_SESSIONS = 64;
/** How long a session with no request open and none arriving lives, by default. */
export const DEFAULT_SESSION_IDLE_MS = 10 * 60_000;
/** The path printed for clients to use; every path serves the endpoint. */
export const ENDPOINT_PATH = '/mcp';

/** Everything the server needs; values already resolved from configuration and flags. */
export interface McpServerOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly identity: ServerIdentity;
  /** The served tools, from `selectServedTools`, in registration order. */
  readonly tools: readonly Tool[];
  readonly confirmOverMcp: ConfirmOverMcp;
  /** `harness.confirm_tags`: a served tool carrying one is gated. */
  readonly confirmTags?: readonly string[];
  /** Replaces every credential value the server holds in tool output. */
  readonly scrub?: (text: string) => string;
  /** Wrappers around the whole handling of each call, outermost first (telemetry). */
  readonly wrappers?: readonly InvokeWrapper[];
  readonly maxConcurrentTools: number;
  readonly toolTimeoutMs: number;
  /** Default two minutes. */
  readonly elicitationTimeoutMs?: number;
  /** The directory command tools run in. */
  readonly workDir?: string;
  readonly observe?: (event: CallEvent) => void;
  /**
   * Open sessions allowed at once (default 64). A new client over the limit takes the place of
   * the session idle longest; when every session is busy it is refused with 503.
   */
  readonly maxSessions?: number;
  /** A session with no open request and no new one for this long is closed (default ten minutes). */
  readonly sessionIdleTimeoutMs?: number;
  /**
   * The bearer token every request must carry (`expose.agent.mcp.auth_token_env`'s value); a
   * request without it is answered 401. Absent means none is asked for.
   */
  readonly authToken?: string;
}

/** A running server. */
export interface RunningMcpServer {
  /** The bound address and port (the port is the real one when 0 was asked for). */
  readonly host: string;
  readonly port: number;
  /** The listener's base URL; `localhost` stands in for an unspecified bind. */
  readonly url: string;
  /**
   * The endpoint URL to print for clients: the base URL with `/mcp`. Every path serves the
   * endpoint, so clients configured with the bare base URL work as well.
   */
  readonly endpoint: string;
  /** Open client sessions. */
  sessions(): number;
  /**
   * Stops: cancels in-flight calls and held-open streams, closes every session, then closes the
   * listener, cutting connections still open after five seconds. Idempotent.
   */
  close(): Promise<void>;
}

/** `http://host:port`, with `localhost` for an unspecified bind and brackets for IPv6. */
export function endpointUrl(host: string, port: number): string {
  const shown = host === '' || host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/**
 * JSON-RPC's own codes for a body that is not JSON and for JSON that is not a JSON-RPC message;
 * every other refusal here is a server error (-32000).
 */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/** Whether a parsed body is a JSON-RPC message, or a non-empty batch of them. */
function isJsonRpcBody(body: unknown): boolean {
  const one = (m: unknown): boolean => JSONRPCMessageSchema.safeParse(m).success;
  return Array.isArray(body) ? body.length > 0 && body.every(one) : one(body);
}

function jsonError(res: ServerResponse, status: number, message: string, code = -32000, headers: Readonly<Record<string, string>> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { ...headers, 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > MAX_BODY) throw new RangeError('request body too large');
    chunks.push(b);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Who the listener admits. A loopback bind is guarded against DNS rebinding, so a page in a browser
 * cannot reach it by name. Anything else can be reached by whoever reaches the port, so it is
 * refused outright without a token: the gate fails closed.
 */
export function admissionPolicy(host: string, token: string | undefined): AdmissionPolicy {
  if (token !== undefined && token.trim() === '') {
    throw new McpServeError('auth', 'the bearer token is empty; set the variable expose.agent.mcp.auth_token_env names to the token clients must send');
  }
  const loopback = isLoopbackHost(host);
  if (!loopback && token === undefined) {
    throw new McpServeError(
      'auth',
      `refusing to serve on ${host}, which is not a loopback address, without a token: anyone who can reach the port could call the tools; set expose.agent.mcp.auth_token_env to the name of a variable holding a token clients must send as Authorization: Bearer, or listen on 127.0.0.1`,
    );
  }
  return token === undefined ? { loopback } : { loopback, token };
}

/**
 * Starts serving `tools` over streamable HTTP on every path of the listener (clients are told
 * `/mcp`). Open sessions are capped and idle ones expire, so clients that vanish without closing
 * cannot pile sessions up. Throws `McpServeError` (`listen`) when the address cannot be bound,
 * naming the flags that choose another, and (`auth`) when it is not a loopback address and no
 * token was given.
 */
export async function startMcpServer(opts: McpServerOptions): Promise<RunningMcpServer> {
  const admission = admissionPolicy(opts.host, opts.authToken);
  const shutdown = new AbortController();
  // A backstop for a caller that did not go through selectServedTools: the first claim on a name
  // keeps it, so a later tool can never take over a name (and strip a gate) by being listed twice.
  const byName = new Map<string, Tool>();
  for (const t of opts.tools) if (!byName.has(t.name)) byName.set(t.name, t);
  const served = [...byName.values()];
  const policy: CallPolicy = {
    tools: byName,
    confirmOverMcp: opts.confirmOverMcp,
    ...(opts.confirmTags === undefined ? {} : { confirmTags: opts.confirmTags }),
    ...(opts.scrub === undefined ? {} : { scrub: opts.scrub }),
    ...(opts.wrappers === undefined ? {} : { wrappers: opts.wrappers }),
    slots: new Semaphore(opts.maxConcurrentTools),
    toolTimeoutMs: opts.toolTimeoutMs,
    elicitationTimeoutMs: opts.elicitationTimeoutMs ?? ELICITATION_TIMEOUT_MS,
    workDir: opts.workDir,
    ...(opts.observe === undefined ? {} : { observe: opts.observe }),
    stopping: shutdown.signal,
  };
  const listing = listTools(served);
  const transports = new Map<string, SessionState>();
  let starting = 0;
  const maxSessions = opts.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const idleMs = opts.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_MS;
  const idleFor = (s: SessionState, now: number): number => (s.open > 0 ? 0 : now - s.lastSeen);
  const expire = (): void => {
    const now = Date.now();
    for (const s of transports.values()) if (idleFor(s, now) >= idleMs) void s.transport.close();
  };
  const sweep = setInterval(expire, Math.min(60_000, Math.max(50, Math.floor(idleMs / 4))));
  sweep.unref();
  /** Makes room for one more session: the longest-idle ones go; `false` when the rest are in use. */
  const makeRoom = (): boolean => {
    while (transports.size + starting >= maxSessions) {
      let oldest: [string, SessionState] | undefined;
      for (const entry of transports) {
        if (entry[1].open === 0 && (oldest === undefined || entry[1].lastSeen < oldest[1].lastSeen)) oldest = entry;
      }
      if (oldest === undefined) return false;
      transports.delete(oldest[0]);
      void oldest[1].transport.close();
    }
    return true;
  };
  const track = (state: SessionState, res: ServerResponse): void => {
    state.open++;
    state.lastSeen = Date.now();
    res.once('close', () => {
      state.open--;
      state.lastSeen = Date.now();
    });
  };
  // requests being answered; shutdown waits for these, calls in flight among them, to be answered
  const posts = new Set<ServerResponse>();
  let drained: (() => void) | undefined;
  const answering = (res: ServerResponse): void => {
    posts.add(res);
    res.once('close', () => {
      posts.delete(res);
      if (posts.size === 0) drained?.();
    });
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (shutdown.signal.aborted) return jsonError(res, 503, 'the server is shutting down');
    const refused = admissionRefusal(req, admission);
    if (refused !== undefined) return jsonError(res, refused.status, refused.message, -32000, refused.headers);
    let body: unknown;
    if (req.method === 'POST') {
      answering(res);
      try {
        body = await readBody(req);
      } catch (err) {
        if (err instanceof RangeError) return jsonError(res, 413, 'request body too large');
        return jsonError(res, 400, 'the request body is not JSON', PARSE_ERROR);
      }
      if (!isJsonRpcBody(body)) return jsonError(res, 400, 'the request body is not a JSON-RPC 2.0 message', INVALID_REQUEST);
    }
    const sessionId = headerValue(req, 'mcp-session-id');
    if (sessionId !== undefined) {
      const state = transports.get(sessionId);
      if (state === undefined) return jsonError(res, 404, 'unknown or closed session; initialize a new one');
      track(state, res);
      return state.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return jsonError(res, 400, 'no session: send an initialize request first');
    }
    if (!makeRoom()) {
      return jsonError(res, 503, `too many open sessions (${maxSessions}, all in use); close a client that is no longer needed and retry`);
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        const state: SessionState = { transport, open: 0, lastSeen: Date.now() };
        transports.set(id, state);
        track(state, res);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined && transports.get(transport.sessionId)?.transport === transport) transports.delete(transport.sessionId);
    };
    const server = sessionServer(opts.identity, listing, policy);
    // counted while it initializes, so simultaneous newcomers cannot all slip under the cap
    starting++;
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      starting--;
    }
  }

  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      jsonError(res, 500, `internal error: ${err instanceof Error ? err.message : String(err)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', (err) => {
      clearInterval(sweep);
      reject(new McpServeError('listen', `cannot listen on ${endpointUrl(opts.host, opts.port)}: ${err.message}; choose another with --port/--address (or FISK_AI_MCP_PORT/FISK_AI_MCP_ADDRESS, or expose.agent.mcp.port/address)`, { cause: err }));
    });
    http.listen(opts.port, opts.host, () => resolve());
  });
  const bound = http.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  /** Resolves once every request being answered has been, or the budget ran out. */
  function answered(): Promise<void> {
    if (posts.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const giveUp = setTimeout(resolve, SHUTDOWN_BUDGET_MS);
      drained = () => {
        clearTimeout(giveUp);
        resolve();
      };
    });
  }

  async function close(): Promise<void> {
    // Calls in flight first: each is stopped (a command with its process group) and answered as
    // not completed while its session can still carry the answer.
    shutdown.abort(new Error('the server is shutting down'));
    clearInterval(sweep);
    await answered();
    // Then held-open GET streams: closing a session ends them and aborts anything left over.
    // The listener would otherwise wait on them.
    await Promise.allSettled([...transports.values()].map((s) => s.transport.close()));
    transports.clear();
    await new Promise<void>((resolve) => {
      const cut = setTimeout(() => http.closeAllConnections(), SHUTDOWN_BUDGET_MS);
      http.close(() => {
        clearTimeout(cut);
        resolve();
      });
      http.closeIdleConnections();
    });
  }

  return {
    host: opts.host,
    port: bound.port,
    url: endpointUrl(opts.host, bound.port),
    endpoint: `${endpointUrl(opts.host, bound.port)}${ENDPOINT_PATH}`,
    sessions: () => transports.size,
    close: () => (closing ??= close()),
  };
}
