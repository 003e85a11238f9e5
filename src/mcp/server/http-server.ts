/**
 * The streamable HTTP listener: one MCP session per client, all sharing one tool listing, one
 * concurrency limit and one confirm policy. Shutdown cancels held-open event streams and
 * in-flight calls first, because closing the listener alone waits on them forever.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
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
import { SessionPool } from './session-pool.js';
import { listTools, sessionServer } from './session-server.js';
import type { ServerIdentity } from './session-server.js';

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

function jsonError(
  res: ServerResponse,
  status: number,
  message: string,
  code = -32000,
  headers: Readonly<Record<string, string>> = {},
): void {
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
    throw new McpServeError(
      'auth',
      'the bearer token is empty; set the variable expose.agent.mcp.auth_token_env names to the token clients must send',
    );
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
 * A controller whose signal may carry any number of listeners: Node warns of a leak past ten, and
 * a server with more calls in flight than that would print the warning to its operator.
 */
function unboundedController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

/** The listener behind `startMcpServer`. */
class McpHttpServer implements RunningMcpServer {
  readonly host: string;
  readonly #options: McpServerOptions;
  readonly #admission: AdmissionPolicy;
  // every call in flight (and every one waiting for a slot) listens to it, and unhooks when answered
  readonly #shutdown = unboundedController();
  readonly #policy: CallPolicy;
  readonly #listing: ReturnType<typeof listTools>;
  readonly #sessions: SessionPool;
  readonly #http: HttpServer;
  // requests being answered; shutdown waits for these, calls in flight among them, to be answered
  readonly #posts = new Set<ServerResponse>();
  #drained: (() => void) | undefined;
  #port = 0;
  #closing: Promise<void> | undefined;

  private constructor(options: McpServerOptions, admission: AdmissionPolicy) {
    this.host = options.host;
    this.#options = options;
    this.#admission = admission;
    // A backstop for a caller that did not go through selectServedTools: the first claim on a name
    // keeps it, so a later tool can never take over a name (and strip a gate) by being listed twice.
    const byName = new Map<string, Tool>();
    for (const tool of options.tools) if (!byName.has(tool.name)) byName.set(tool.name, tool);
    this.#policy = {
      tools: byName,
      confirmOverMcp: options.confirmOverMcp,
      ...(options.confirmTags === undefined ? {} : { confirmTags: options.confirmTags }),
      ...(options.scrub === undefined ? {} : { scrub: options.scrub }),
      ...(options.wrappers === undefined ? {} : { wrappers: options.wrappers }),
      slots: new Semaphore(options.maxConcurrentTools),
      toolTimeoutMs: options.toolTimeoutMs,
      elicitationTimeoutMs: options.elicitationTimeoutMs ?? ELICITATION_TIMEOUT_MS,
      workDir: options.workDir,
      ...(options.observe === undefined ? {} : { observe: options.observe }),
      stopping: this.#shutdown.signal,
    };
    this.#listing = listTools([...byName.values()]);
    this.#sessions = new SessionPool(options.maxSessions ?? DEFAULT_MAX_SESSIONS, options.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_MS);
    this.#http = createServer((req, res) => {
      this.#handle(req, res).catch((err: unknown) => {
        jsonError(res, 500, `internal error: ${err instanceof Error ? err.message : String(err)}`);
      });
    });
  }

  /** Checks who may be served, then binds the listener. */
  static async start(options: McpServerOptions): Promise<McpHttpServer> {
    const server = new McpHttpServer(options, admissionPolicy(options.host, options.authToken));
    await server.#listen();
    return server;
  }

  get port(): number {
    return this.#port;
  }

  get url(): string {
    return endpointUrl(this.host, this.#port);
  }

  get endpoint(): string {
    return `${this.url}${ENDPOINT_PATH}`;
  }

  sessions(): number {
    return this.#sessions.size;
  }

  close(): Promise<void> {
    return (this.#closing ??= this.#close());
  }

  async #listen(): Promise<void> {
    const { host, port } = this.#options;
    await new Promise<void>((resolve, reject) => {
      this.#http.once('error', (err) => {
        this.#sessions.stopSweeping();
        reject(
          new McpServeError(
            'listen',
            `cannot listen on ${endpointUrl(host, port)}: ${err.message}; choose another with --port/--address (or FISK_AI_MCP_PORT/FISK_AI_MCP_ADDRESS, or expose.agent.mcp.port/address)`,
            { cause: err },
          ),
        );
      });
      this.#http.listen(port, host, () => resolve());
    });
    this.#port = (this.#http.address() as AddressInfo).port;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.#shutdown.signal.aborted) return jsonError(res, 503, 'the server is shutting down');
    const refused = admissionRefusal(req, this.#admission);
    if (refused !== undefined) return jsonError(res, refused.status, refused.message, -32000, refused.headers);
    let body: unknown;
    if (req.method === 'POST') {
      this.#answering(res);
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
      const transport = this.#sessions.use(sessionId, res);
      if (transport === undefined) return jsonError(res, 404, 'unknown or closed session; initialize a new one');
      return transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return jsonError(res, 400, 'no session: send an initialize request first');
    }
    return this.#openSession(req, res, body);
  }

  /** Opens a session for an initialize request, making room for it first. */
  async #openSession(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const sessions = this.#sessions;
    if (!sessions.makeRoom()) {
      return jsonError(res, 503, `too many open sessions (${sessions.max}, all in use); close a client that is no longer needed and retry`);
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.add(id, transport, res),
    });
    transport.onclose = () => sessions.forget(transport);
    const server = sessionServer(this.#options.identity, this.#listing, this.#policy);
    await sessions.starting(async () => {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    });
  }

  /** Counts a POST as being answered until its response closes. */
  #answering(res: ServerResponse): void {
    this.#posts.add(res);
    res.once('close', () => {
      this.#posts.delete(res);
      if (this.#posts.size === 0) this.#drained?.();
    });
  }

  /** Resolves once every request being answered has been, or the budget ran out. */
  #answered(): Promise<void> {
    if (this.#posts.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const giveUp = setTimeout(resolve, SHUTDOWN_BUDGET_MS);
      this.#drained = () => {
        clearTimeout(giveUp);
        resolve();
      };
    });
  }

  async #close(): Promise<void> {
    // Calls in flight first: each is stopped (a command with its process group) and answered as
    // not completed while its session can still carry the answer.
    this.#shutdown.abort(new Error('the server is shutting down'));
    this.#sessions.stopSweeping();
    await this.#answered();
    // Then held-open GET streams: closing a session ends them and aborts anything left over.
    // The listener would otherwise wait on them.
    await this.#sessions.closeAll();
    await new Promise<void>((resolve) => {
      const cut = setTimeout(() => this.#http.closeAllConnections(), SHUTDOWN_BUDGET_MS);
      this.#http.close(() => {
        clearTimeout(cut);
        resolve();
      });
      this.#http.closeIdleConnections();
    });
  }
}

/**
 * Starts serving `tools` over streamable HTTP on every path of the listener (clients are told
 * `/mcp`). Open sessions are capped and idle ones expire, so clients that vanish without closing
 * cannot pile sessions up. Throws `McpServeError` (`listen`) when the address cannot be bound,
 * naming the flags that choose another, and (`auth`) when it is not a loopback address and no
 * token was given.
 */
export function startMcpServer(opts: McpServerOptions): Promise<RunningMcpServer> {
  return McpHttpServer.start(opts);
}
