/**
 * The HTTP side of `fisk web`: the built page, a server-sent event stream of the conversation, and
 * a few JSON endpoints the page posts prompts, answers and cancels to. Every request must carry the
 * per-start access token (in the URL once, then in a cookie the page cannot read), and on a
 * loopback address must name a loopback Host and, when it has one, a loopback Origin.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, relative, sep } from 'node:path';
import { isLoopbackHost, loopbackRequestRefusal } from '../util/loopback.js';
import { chunkAt, parseCitation } from '../knowledge/index.js';
import type { Runtime } from '../host/index.js';
import type { QuestionAnswer } from '../host/index.js';
import { stripControl } from '../agent/sanitize.js';
import { Conversation, RequestRefused } from './conversation.js';
import { WebError } from './errors.js';
import type { ConversationOptions } from './conversation.js';

/**
 * The cookie carrying the token after the first load. Browsers keep cookies per host, not per port,
 * so the name carries the port: two servers on one machine do not overwrite each other's.
 */
const cookieName = (port: number): string => `fisk_web_token_${port}`;
/** The largest request body read. */
const MAX_BODY = 256 * 1024;
/** How often an idle event stream gets a comment, so proxies and browsers keep it open. */
const HEARTBEAT_MS = 15_000;

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
};

export interface WebServerOptions extends ConversationOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** The directory holding the built page (index.html and its assets). */
  readonly pageDir: string;
  /** The access token; a random one when absent. */
  readonly token?: string;
}

export interface RunningWebServer {
  readonly port: number;
  /** The address to open, token included. */
  readonly url: string;
  readonly token: string;
  close(): Promise<void>;
}

/** Reads the built page into memory; a missing build is a clear error. */
function loadPage(dir: string): Map<string, { readonly body: Buffer; readonly type: string }> {
  const files = new Map<string, { body: Buffer; type: string }>();
  const walk = (d: string): void => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      throw new WebError('page_missing', `the web page is not built (no ${dir}); run npm run build`);
    }
    for (const e of entries) {
      const full = join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.isFile())
        files.set(`/${relative(dir, full).split(sep).join('/')}`, {
          body: readFileSync(full),
          type: TYPES[extname(e.name)] ?? 'application/octet-stream',
        });
    }
  };
  walk(dir);
  if (!files.has('/index.html'))
    throw new WebError('page_missing', `the web page is not built (no index.html in ${dir}); run npm run build`);
  return files;
}

/** `http://host:port` with brackets for IPv6 and `localhost` for an unspecified bind. */
function baseUrl(host: string, port: number): string {
  const shown = host === '' || host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function cookieToken(req: IncomingMessage, name: string): string | undefined {
  for (const part of (header(req, 'cookie') ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function send(res: ServerResponse, status: number, body: unknown, extra: Readonly<Record<string, string>> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', ...extra });
  res.end(JSON.stringify(body));
}

function refuse(res: ServerResponse, status: number, message: string): void {
  send(res, status, { error: message });
}

/** The style of the page below, allowed by its hash: the policy still admits no other inline style. */
const TOKEN_PAGE_STYLE =
  'body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5}code{font-size:.95em}@media (prefers-color-scheme:dark){body{background:#16181a;color:#e6e6e6}}';
const TOKEN_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>fisk web: open the address it printed</title><style>${TOKEN_PAGE_STYLE}</style></head>
<body><main>
<h1>This address does not open this agent</h1>
<p>The access token in it is wrong, or it is from an earlier start of <code>fisk web</code>: each start makes a new one, and a restart makes the old address useless.</p>
<p>Open the address <code>fisk web</code> printed on the first line of its output when it started (it ends in <code>?token=…</code>). If that terminal is gone, start it again with <code>fisk web --config agent.yaml</code> and open the new address.</p>
</main></body>
</html>
`;
const TOKEN_PAGE_POLICY = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(TOKEN_PAGE_STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** A browser opening the page without a valid token gets a page saying what to do, not a JSON error. */
function refuseToken(res: ServerResponse, page: boolean): void {
  const message = 'unauthorized: open the address fisk web printed, with its token';
  if (!page) return refuse(res, 401, message);
  res.writeHead(401, { ...SECURITY_HEADERS, 'content-security-policy': TOKEN_PAGE_POLICY, 'content-type': 'text/html; charset=utf-8' });
  res.end(TOKEN_PAGE);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const type = header(req, 'content-type') ?? '';
  if (!/^application\/json\b/i.test(type)) throw new RequestRefused(415, 'send the request body as application/json');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > MAX_BODY) throw new RequestRefused(413, `the request body is larger than ${MAX_BODY} bytes`);
    chunks.push(b);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new RequestRefused(400, 'the request body is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new RequestRefused(400, 'the request body must be a JSON object');
  return parsed as Record<string, unknown>;
}

function text(body: Record<string, unknown>, key: string): string {
  const v = body[key];
  if (typeof v !== 'string' || v === '') throw new RequestRefused(400, `${key} must be a non-empty string`);
  return v;
}

function answerValue(body: Record<string, unknown>): QuestionAnswer {
  const v = body['answer'];
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (Object.keys(o).sort().join(',') === 'decision,reason' && o['decision'] === 'decline' && typeof o['reason'] === 'string')
      return { decision: 'decline', reason: o['reason'] };
  }
  throw new RequestRefused(
    400,
    'answer must be a string, a boolean, null, or {"decision":"decline","reason":"..."} for a decline with a reason',
  );
}

/** The journaled runs, newest first, as the session list shows them. */
async function sessionList(runtime: Runtime): Promise<unknown[]> {
  const store = runtime.sessions;
  if (store === undefined) return [];
  return (await store.list()).map((r) =>
    r.status === 'corrupt'
      ? { runId: r.runId, status: 'corrupt', updated: r.updated.toISOString(), prompt: stripControl(r.problem), model: '' }
      : {
          runId: r.runId,
          status: r.status,
          updated: r.updated.toISOString(),
          prompt: stripControl(r.prompt),
          model: stripControl(r.model),
        },
  );
}

/** What `fisk knowledge show` prints for a citation: the heading path and the chunk. */
function citation(runtime: Runtime, ref: string): { ref: string; heading: string; content: string } {
  const reader = runtime.knowledge?.reader;
  if (reader === undefined) throw new RequestRefused(404, 'knowledge is not enabled for this agent');
  let c;
  try {
    c = parseCitation(ref);
  } catch (err) {
    throw new RequestRefused(400, err instanceof Error ? err.message : String(err));
  }
  const db = reader.handle();
  if (db === undefined) throw new RequestRefused(404, 'the knowledge index has not been built yet; run: fisk knowledge index');
  const chunk = chunkAt(db, c);
  if (chunk === undefined)
    throw new RequestRefused(404, `no chunk found for citation ${JSON.stringify(ref)}: the file may have changed since the last index`);
  return { ref, heading: stripControl(chunk.headingPath), content: stripControl(chunk.content) };
}

/** The listener behind `startWebServer`: the page, its event streams and its JSON endpoints over one conversation. */
class WebServer implements RunningWebServer {
  readonly token: string;
  readonly #options: WebServerOptions;
  readonly #page: ReadonlyMap<string, { readonly body: Buffer; readonly type: string }>;
  readonly #conversation: Conversation;
  readonly #streams = new Set<ServerResponse>();
  readonly #guardHost: boolean;
  readonly #http: Server;
  #port = 0;
  #closing: Promise<void> | undefined;

  private constructor(options: WebServerOptions) {
    this.#page = loadPage(options.pageDir);
    this.token = options.token ?? randomBytes(24).toString('base64url');
    this.#options = options;
    this.#conversation = new Conversation(options);
    this.#guardHost = isLoopbackHost(options.host);
    this.#http = createServer((req, res) => {
      this.#handle(req, res).catch((err: unknown) => {
        if (err instanceof RequestRefused) refuse(res, err.status, err.message);
        else refuse(res, 500, `internal error: ${err instanceof Error ? err.message : String(err)}`);
      });
    });
  }

  /** Loads the built page, then binds the listener. */
  static async start(options: WebServerOptions): Promise<WebServer> {
    const server = new WebServer(options);
    await server.#listen();
    return server;
  }

  get port(): number {
    return this.#port;
  }

  get url(): string {
    return `${baseUrl(this.#options.host, this.#port)}/?token=${this.token}`;
  }

  close(): Promise<void> {
    return (this.#closing ??= this.#close());
  }

  async #listen(): Promise<void> {
    const { host, port } = this.#options;
    await new Promise<void>((resolve, reject) => {
      this.#http.once('error', (err) =>
        reject(
          new WebError('listen', `cannot listen on ${baseUrl(host, port)}: ${err.message}; choose another with --port or --address`, {
            cause: err,
          }),
        ),
      );
      this.#http.listen(port, host, () => resolve());
    });
    this.#port = (this.#http.address() as AddressInfo).port;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fisk.invalid');
    if (!this.#admitted(req, res, url)) return;
    const path = url.pathname;
    if (url.searchParams.has('token') && req.method === 'GET' && path === '/') {
      // the token moves into a cookie the page's scripts cannot read, and out of the address bar
      res.writeHead(303, {
        ...SECURITY_HEADERS,
        location: '/',
        'set-cookie': `${cookieName(this.#port)}=${this.token}; HttpOnly; SameSite=Strict; Path=/`,
      });
      res.end();
      return;
    }
    if (path.startsWith('/api/')) return this.#api(req, res, path, url);
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new RequestRefused(405, `${req.method ?? ''} is not allowed here`);
    const file = this.#page.get(path === '/' ? '/index.html' : path);
    if (file === undefined) throw new RequestRefused(404, `not found: ${path}`);
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': file.type, 'content-length': String(file.body.length) });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  }

  /** Whether the request may be answered: its Host and Origin first, then the token; a refusal is sent here. */
  #admitted(req: IncomingMessage, res: ServerResponse, url: URL): boolean {
    const host = header(req, 'host');
    const origin = header(req, 'origin');
    if (this.#guardHost) {
      const refused = loopbackRequestRefusal(host, origin);
      if (refused !== undefined) {
        refuse(res, 403, refused);
        return false;
      }
    } else if (origin !== undefined) {
      // off loopback the page must come from this very server
      let same: boolean;
      try {
        same = new URL(origin).host === host;
      } catch {
        same = false;
      }
      if (!same) {
        refuse(res, 403, 'forbidden: requests from another web origin are refused');
        return false;
      }
    }
    if (!sameToken(url.searchParams.get('token') ?? cookieToken(req, cookieName(this.#port)), this.token)) {
      refuseToken(res, (req.method === 'GET' || req.method === 'HEAD') && !url.pathname.startsWith('/api/'));
      return false;
    }
    return true;
  }

  async #api(req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<void> {
    const conversation = this.#conversation;
    if (req.method === 'GET') {
      if (path === '/api/events') return this.#events(req, res, url);
      if (path === '/api/sessions') return send(res, 200, { sessions: await sessionList(this.#options.runtime) });
      if (path === '/api/citation') return send(res, 200, citation(this.#options.runtime, url.searchParams.get('ref') ?? ''));
      throw new RequestRefused(404, `no such endpoint: GET ${path}`);
    }
    if (req.method !== 'POST') throw new RequestRefused(405, `${req.method ?? ''} is not allowed here`);
    const body = await readJson(req);
    const tab = text(body, 'tab');
    switch (path) {
      case '/api/prompt':
        await conversation.prompt(tab, text(body, 'prompt'));
        break;
      case '/api/answer':
        conversation.answer(tab, text(body, 'id'), answerValue(body));
        break;
      case '/api/cancel':
        conversation.cancel(tab);
        break;
      case '/api/suspend':
        conversation.suspend(tab);
        break;
      case '/api/new':
        await conversation.clear(tab);
        break;
      case '/api/reopen':
        await conversation.reopen(tab, text(body, 'runId'));
        break;
      case '/api/resume':
        await conversation.resume(tab, text(body, 'runId'));
        break;
      default:
        throw new RequestRefused(404, `no such endpoint: POST ${path}`);
    }
    send(res, 200, { ok: true });
  }

  /** Holds a tab's event stream open, with a heartbeat, until the tab goes. */
  #events(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const tab = randomUUID();
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
    res.write(': connected\n\n');
    this.#streams.add(res);
    const beat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    const claim = url.searchParams.get('claim') ?? undefined;
    this.#conversation.attach(tab, (event) => res.write(`data: ${JSON.stringify(event)}\n\n`), claim === '' ? undefined : claim);
    req.on('close', () => {
      clearInterval(beat);
      this.#streams.delete(res);
      this.#conversation.detach(tab);
    });
  }

  async #close(): Promise<void> {
    for (const stream of this.#streams) stream.end();
    await this.#conversation.close();
    await new Promise<void>((resolve) => {
      const cut = setTimeout(() => this.#http.closeAllConnections(), 2_000);
      this.#http.close(() => {
        clearTimeout(cut);
        resolve();
      });
      this.#http.closeIdleConnections();
    });
  }
}

/**
 * Serves the page and its endpoints for one conversation. Throws `WebError`: `page_missing` when the
 * page is not built, `listen` when the address cannot be bound, naming the flags that choose another.
 */
export function startWebServer(opts: WebServerOptions): Promise<RunningWebServer> {
  return WebServer.start(opts);
}
