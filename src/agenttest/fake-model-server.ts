import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** One request the fake server received, kept whole for assertions. */
export interface ReceivedRequest {
  readonly method: string;
  /** The path with its query string, e.g. `/v1/messages`. */
  readonly path: string;
  /** Header names lower-cased; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body exactly as received. */
  readonly bodyText: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly body: unknown;
}

/**
 * One scripted answer. `body` is sent as JSON unless it is already a string. `hang` never answers
 * (until the client gives up or the server closes), for timeout and cancellation tests.
 */
export interface FakeReply {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  readonly hang?: boolean;
  /**
   * The reply is held until this settles, so a test can keep the model "thinking" for as long as
   * it needs to watch a surface, without a timer: nothing of the reply is sent before it.
   */
  readonly until?: Promise<unknown>;
}

/** A reply, or a function choosing one from the request it answers. */
export type FakeReplyStep = FakeReply | ((request: ReceivedRequest) => FakeReply);

/**
 * A local HTTP server speaking whatever model API its scripted replies speak (Anthropic Messages,
 * OpenAI Responses, Chat Completions), so the official SDKs run end to end against it. Replies are
 * served in order to every request, whatever its path; a request with nothing queued gets a 500
 * whose body says so, so a test fails loudly rather than hanging.
 */
export interface FakeModelServer {
  /** `http://127.0.0.1:<port>`: a loopback base URL, so no API key is required. */
  readonly url: string;
  /** Every request received, in order, retries included. */
  readonly requests: readonly ReceivedRequest[];
  /** Queues replies. */
  reply(...steps: FakeReplyStep[]): this;
  /** How many queued replies are left. */
  readonly pending: number;
  /** Drops every queued reply and every recorded request, for a fresh start between tests. */
  reset(): void;
  /** Stops the server, cutting any hanging connection. */
  close(): Promise<void>;
}

/** Options for {@link startFakeModelServer}. */
export interface FakeModelServerOptions {
  /** Served whenever nothing is queued, instead of the 500 (for benchmarks and open-ended loops). */
  readonly fallback?: FakeReplyStep;
  /** Keep every request in `requests` (default true; a benchmark turns it off to bound memory). */
  readonly record?: boolean;
  /**
   * How long an idle connection stays open, in milliseconds (default 1000). Node's fetch reuses a
   * connection only when this is comfortably longer than its own idle threshold, so a benchmark
   * that wants kept-alive connections sets several seconds.
   */
  readonly keepAliveTimeoutMs?: number;
}

/** Starts a fake model server on a free loopback port. */
export async function startFakeModelServer(options: FakeModelServerOptions = {}): Promise<FakeModelServer> {
  const record = options.record ?? true;
  const queue: FakeReplyStep[] = [];
  const requests: ReceivedRequest[] = [];

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const bodyText = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        // Unrecorded requests are never inspected, so a benchmark does not pay for parsing them.
        body = bodyText === '' || !record ? undefined : (JSON.parse(bodyText) as unknown);
      } catch {
        body = undefined;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      const received: ReceivedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers, bodyText, body };
      if (record) requests.push(received);
      const step = queue.shift() ?? options.fallback;
      const reply: FakeReply =
        step === undefined
          ? {
              status: 500,
              body: {
                type: 'error',
                error: { type: 'api_error', message: `fake model server: no reply queued for request ${requests.length}` },
              },
            }
          : typeof step === 'function'
            ? step(received)
            : step;
      if (reply.hang === true) return;
      if (reply.until !== undefined) {
        // a held reply is sent once released, unless the client gave up meanwhile
        void reply.until.then(
          () => send(res, reply),
          () => send(res, reply),
        );
        return;
      }
      send(res, reply);
    });
  };

  const send = (res: ServerResponse, reply: FakeReply): void => {
    if (res.destroyed || res.writableEnded) return;
    const payload = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
    res.writeHead(reply.status ?? 200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
      ...reply.headers,
    });
    res.end(payload);
  };

  const server = createServer(handle);
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;

  const api: FakeModelServer = {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply(...steps) {
      queue.push(...steps);
      return api;
    },
    get pending() {
      return queue.length;
    },
    reset() {
      queue.length = 0;
      requests.length = 0;
    },
    close() {
      return new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
  return api;
}
