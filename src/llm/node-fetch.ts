import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import type { FetchLike } from './http.js';

/** One kept-alive connection pool per scheme, shared by every provider in the process. */
const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
const NULL_BODY: ReadonlySet<number> = new Set([101, 204, 205, 304]);

/**
 * A `fetch` for the providers' SDKs over Node's own HTTP client with kept-alive connections. A
 * model call is one JSON body out and one answer back, so this skips the general machinery of the
 * global `fetch` that such a call never uses, which is a large part of a call's cost on this side.
 * It handles what the SDKs send (a string URL, a text or byte body, an abort signal); anything else
 * (a `Request` object, a streamed body) and any redirect is handed to the global `fetch`, so the
 * result is always what `fetch` would have produced. An event stream is passed on as it arrives;
 * any other answer is read whole first. Failures reject with the error shapes `fetch` uses (an
 * `AbortError` when aborted, a `TypeError` with the cause otherwise), so the SDKs classify and
 * retry them as before.
 */
export const nodeFetch: FetchLike = (input, init) => {
  const body = init?.body;
  const plainBody = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
  if (typeof input !== 'string' && !(input instanceof URL)) return fetch(input, init);
  const url = typeof input === 'string' ? new URL(input) : input;
  const https = url.protocol === 'https:';
  if (!plainBody || (!https && url.protocol !== 'http:')) return fetch(input, init);
  const signal = init?.signal ?? undefined;
  if (signal?.aborted === true) return Promise.reject(abortError(signal));
  const headers: OutgoingHttpHeaders = {};
  new Headers(init?.headers).forEach((value, key) => {
    headers[key] = value;
  });
  const payload = body === undefined || body === null ? undefined : typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  if (payload !== undefined) headers['content-length'] = String(payload.byteLength);
  return new Promise<Response>((resolve, reject) => {
    const req = (https ? httpsRequest : httpRequest)(url, {
      method: init?.method ?? 'GET',
      headers,
      agent: https ? agents.https : agents.http,
    });
    let settled = false;
    const fail = (err: Error): void => {
      if (settled) return;
      settled = true;
      cleanup();
      reject(err);
    };
    const onAbort = (): void => {
      req.destroy();
      fail(abortError(signal));
    };
    const cleanup = (): void => signal?.removeEventListener('abort', onAbort);
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => fail(signal?.aborted === true ? abortError(signal) : new TypeError('fetch failed', { cause: err })));
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      if (REDIRECTS.has(status) && res.headers.location !== undefined) {
        res.resume();
        settled = true;
        cleanup();
        fetch(input, init).then(resolve, reject);
        return;
      }
      const responseHeaders = new Headers();
      for (let i = 0; i < res.rawHeaders.length; i += 2) responseHeaders.append(res.rawHeaders[i] ?? '', res.rawHeaders[i + 1] ?? '');
      const meta = { status, statusText: res.statusMessage ?? '', headers: responseHeaders };
      if ((responseHeaders.get('content-type') ?? '').startsWith('text/event-stream')) {
        settled = true;
        // The stream stays cancellable by the same signal until it ends.
        res.once('close', cleanup);
        resolve(new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, meta));
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err) => fail(signal?.aborted === true ? abortError(signal) : new TypeError('fetch failed', { cause: err })));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        cleanup();
        resolve(new Response(NULL_BODY.has(status) ? null : Buffer.concat(chunks), meta));
      });
    });
    req.end(payload);
  });
};

function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error && reason.name === 'AbortError' ? reason : new DOMException('This operation was aborted', 'AbortError');
}
