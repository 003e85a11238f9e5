/**
 * The HTTP seam every provider exposes. These are plain function types shaped like the global
 * `fetch`, so both vendor SDKs accept them unchanged and a caller installs a hook (the HTTP debug
 * log, the `--trace` recorder) without importing any SDK.
 */

/** A function with the shape of the global `fetch`. */
export type FetchLike = (input: string | URL | globalThis.Request, init?: RequestInit) => Promise<globalThis.Response>;

/** Wraps a fetch: sees every request and response the provider's SDK makes, retries included. */
export type FetchMiddleware = (next: FetchLike) => FetchLike;

/**
 * Builds one fetch from a base and a list of middlewares. The first middleware is outermost: it
 * sees the request first and the response last.
 */
export function composeFetch(base: FetchLike, middlewares: readonly FetchMiddleware[] = []): FetchLike {
  let f = base;
  for (let i = middlewares.length - 1; i >= 0; i--) {
    const m = middlewares[i];
    if (m !== undefined) f = m(f);
  }
  return f;
}

/** The URL text of a fetch input. */
export function requestUrl(input: string | URL | globalThis.Request): string {
  if (typeof input === 'string') return input;
  if (input instanceof URL) return input.href;
  return input.url;
}

/** The method of a fetch call (GET when unset, as fetch itself defaults). */
export function requestMethod(input: string | URL | globalThis.Request, init?: RequestInit): string {
  if (init?.method !== undefined) return init.method.toUpperCase();
  if (typeof input !== 'string' && !(input instanceof URL)) return input.method.toUpperCase();
  return 'GET';
}

/**
 * The request body as text, when it is text. The SDKs send JSON strings; any other body (a stream,
 * form data) is reported as unavailable rather than consumed, so logging never changes what is sent.
 */
export function requestBodyText(init?: RequestInit): string | undefined {
  const body = init?.body;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  if (body instanceof ArrayBuffer) return new TextDecoder().decode(new Uint8Array(body));
  return undefined;
}

/** Whether a response is a server-sent event stream, which arrives over time rather than at once. */
export function isEventStream(res: globalThis.Response): boolean {
  return (res.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
}
