/**
 * The HTTP side of the A2A channel, on Node's own server: the agent card at the well-known path,
 * and JSON-RPC at the root, answered by the SDK's transport handler (v1.0 methods, and the v0.3
 * names for a caller that asks for 0.3 or names no version); streams go out as server-sent events.
 * With a token configured every call but the card must carry it as a bearer token, compared in
 * constant time. Without a token the listener is on loopback, and refuses a Host or Origin that is
 * not this machine, so a page elsewhere cannot reach it through a rebound name.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import { AgentCard, A2A_VERSION_HEADER, formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { JsonRpcTransportHandler, ServerCallContext, UnauthenticatedUser, validateVersion } from '@a2a-js/sdk/server';
import type { A2ARequestHandler, User } from '@a2a-js/sdk/server';
import { isLoopbackHost, loopbackRequestRefusal } from '../../util/loopback.js';
import { listenOn } from '../listen.js';

export const CARD_PATH = '/.well-known/agent-card.json';
/** A request body larger than this is refused before it is parsed. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface ListenerOptions {
  readonly address: string;
  readonly port: number;
  /** The bearer token callers must present; undefined for none (loopback only). */
  readonly token: string | undefined;
  readonly handler: A2ARequestHandler;
}

class BearerUser implements User {
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return 'bearer';
  }
}

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } as const;

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...JSON_TYPE, ...headers }).end(`${JSON.stringify(body)}\n`);
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Whether the request carries the token; both sides hashed first so the compare is constant time. */
function authorized(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization ?? '';
  const m = /^Bearer\s+(\S+)\s*$/iu.exec(header);
  return m?.[1] !== undefined && timingSafeEqual(digest(m[1]), digest(token));
}

/** The body as text, or undefined past the limit: what is over it is read and dropped, so the refusal reaches the caller. */
async function body(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size <= MAX_BODY_BYTES) chunks.push(b);
  }
  return size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8');
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
};

export class A2aListener {
  readonly #http: HttpServer;
  readonly url: string;

  private constructor(http: HttpServer, url: string) {
    this.#http = http;
    this.url = url;
  }

  /** Listens; throws ServeError `a2a_http` naming the key when the address cannot be bound. */
  static async start(o: ListenerOptions): Promise<A2aListener> {
    const rpc = new JsonRpcTransportHandler(o.handler);
    const legacy = new LegacyJsonRpcTransportHandler(o.handler);
    const loopback = isLoopbackHost(o.address);
    const http = createServer((req, res) => {
      void answer(req, res, { ...o, rpc, legacy, loopback }).catch(() => {
        if (!res.headersSent) send(res, 500, { error: 'the request could not be answered' });
        else res.end();
      });
    });
    const origin = await listenOn(http, o.address, o.port, 'a2a_http');
    return new A2aListener(http, `${origin}/`);
  }

  /** Stops listening once every open request has ended; idle connections close now. Idempotent. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.#http.listening) return resolve();
      this.#http.close(() => resolve());
      this.#http.closeIdleConnections();
    });
  }
}

interface Answering extends ListenerOptions {
  readonly rpc: JsonRpcTransportHandler;
  readonly legacy: LegacyJsonRpcTransportHandler;
  readonly loopback: boolean;
}

async function answer(req: IncomingMessage, res: ServerResponse, o: Answering): Promise<void> {
  // without a token, a loopback listener is guarded by where requests come from; with one, the
  // token is the guard (a proxy on this machine forwards the public Host)
  if (o.loopback && o.token === undefined) {
    const refusal = loopbackRequestRefusal(req.headers.host, header(req, 'origin'));
    if (refusal !== undefined) return send(res, 403, { error: refusal });
  }
  const path = new URL(req.url ?? '/', 'http://a2a').pathname;
  if (path === CARD_PATH) {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(res, 405, { error: 'use GET for the agent card' }, { allow: 'GET, HEAD' });
    return send(res, 200, AgentCard.toJSON(await o.handler.getAgentCard()));
  }
  if (path !== '/') return send(res, 404, { error: `not found: the agent card is at ${CARD_PATH} and JSON-RPC at /` });
  if (req.method !== 'POST') return send(res, 405, { error: 'post JSON-RPC requests to /' }, { allow: 'POST' });
  if (o.token !== undefined && !authorized(req, o.token)) {
    return send(
      res,
      401,
      { error: 'unauthorized: send the token the operator gave you as Authorization: Bearer <token>' },
      { 'www-authenticate': 'Bearer' },
    );
  }
  const text = await body(req);
  if (text === undefined) return send(res, 413, { error: `the request is larger than ${MAX_BODY_BYTES} bytes` });
  await rpcAnswer(req, res, text, o);
}

async function rpcAnswer(req: IncomingMessage, res: ServerResponse, text: string, answering: Answering): Promise<void> {
  const version = header(req, A2A_VERSION_HEADER);
  const useLegacy = version === undefined || version === '' || version === '0.3';
  const user: User = answering.token === undefined ? new UnauthenticatedUser() : new BearerUser();
  // the headers travel in the call's state: a delegated task's chain of agents is among them
  const context = new ServerCallContext({
    user,
    state: new Map([['headers', req.headers]]),
    ...(version === undefined || version === '' ? {} : { requestedVersion: version }),
  });
  let out: Awaited<ReturnType<JsonRpcTransportHandler['handle']>>;
  try {
    validateVersion(context.requestedVersion, await answering.handler.getAgentCard(), 'JSONRPC');
    out = useLegacy ? await answering.legacy.handle(text, context) : await answering.rpc.handle(text, context);
  } catch (err) {
    const error = useLegacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(err) : JsonRpcTransportHandler.mapToJSONRPCError(err);
    return send(res, 200, { jsonrpc: '2.0', id: null, error });
  }
  if (!(Symbol.asyncIterator in out)) return send(res, 200, out);
  res.writeHead(200, SSE_HEADERS);
  res.flushHeaders();
  // a caller that goes away stops hearing the stream, not the task: reading on keeps the stored
  // task current for its GetTask
  const open = (): boolean => !res.writableEnded && !res.destroyed;
  try {
    for await (const event of out) if (open()) res.write(formatSSEEvent(event));
  } catch (err) {
    const error = useLegacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(err) : JsonRpcTransportHandler.mapToJSONRPCError(err);
    if (open()) res.write(formatSSEErrorEvent({ jsonrpc: '2.0', id: null, error }));
  } finally {
    if (!res.writableEnded) res.end();
  }
}
