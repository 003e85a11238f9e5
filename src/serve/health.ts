/**
 * The health endpoint of `fisk serve` (`expose.agent.health`): `/healthz` answers 200 while the
 * process is alive; `/readyz` answers 200 while the worker is connected and pulling, and 503 with
 * the reasons while it is not (draining, a channel paused, the NATS connection down), so a
 * supervisor or a load balancer stops sending work its way without killing it.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import { listenOn } from './listen.js';

export interface HealthServerOptions {
  readonly address: string;
  /** 0 picks a free port (tests); the configuration requires one. */
  readonly port: number;
  /** Why the worker is not ready now; empty while it is. Asked on every `/readyz`. */
  readonly notReady: () => readonly string[];
}

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } as const;

/** The listening endpoint; close it after the server drained. */
export class HealthServer {
  readonly #http: HttpServer;
  readonly #url: string;

  private constructor(http: HttpServer, url: string) {
    this.#http = http;
    this.#url = url;
  }

  /**
   * Listens on `address:port`. Throws ServeError `health` naming `expose.agent.health` when the
   * address cannot be bound (the port taken, an address not on this machine).
   */
  static async start(options: HealthServerOptions): Promise<HealthServer> {
    const http = createServer((req, res) => answer(req, res, options.notReady));
    // a probe holds no connection open across a drain
    http.keepAliveTimeout = 1_000;
    const origin = await listenOn(http, options.address, options.port, 'health');
    return new HealthServer(http, origin);
  }

  /** `http://address:port`, with the port actually bound. */
  get url(): string {
    return this.#url;
  }

  /** Stops listening and ends idle connections. Idempotent. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.#http.listening) return resolve();
      this.#http.close(() => resolve());
      this.#http.closeIdleConnections();
    });
  }
}

function answer(req: IncomingMessage, res: ServerResponse, notReady: () => readonly string[]): void {
  const path = new URL(req.url ?? '/', 'http://health').pathname;
  if (path !== '/healthz' && path !== '/readyz') {
    res.writeHead(404, JSON_TYPE).end(`${JSON.stringify({ error: 'not found: ask /healthz or /readyz' })}\n`);
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { ...JSON_TYPE, allow: 'GET, HEAD' }).end(`${JSON.stringify({ error: 'use GET or HEAD' })}\n`);
    return;
  }
  if (path === '/healthz') {
    res.writeHead(200, JSON_TYPE).end(req.method === 'HEAD' ? undefined : `${JSON.stringify({ status: 'alive' })}\n`);
    return;
  }
  let reasons: readonly string[];
  try {
    reasons = notReady();
  } catch (err) {
    reasons = [`readiness could not be decided: ${err instanceof Error ? err.message : String(err)}`];
  }
  const ready = reasons.length === 0;
  const body = ready ? { status: 'ready' } : { status: 'not ready', reasons };
  res.writeHead(ready ? 200 : 503, JSON_TYPE).end(req.method === 'HEAD' ? undefined : `${JSON.stringify(body)}\n`);
}
