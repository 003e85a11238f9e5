/**
 * The HTTP transports of an MCP server: streamable HTTP, the legacy SSE transport, and `http`,
 * which tries streamable HTTP and falls back to SSE when the server refuses it (the MCP
 * specification's backwards-compatibility procedure). What travels with each request (configured
 * headers, Basic authorization from `user:pass@`, an OAuth bearer token) is added by fetch
 * wrappers that send it to the server's own origin only.
 */
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpTransport } from '../../config/types.js';
import { headerSafeFetch } from '../../util/header-safe-fetch.js';

/** One concrete HTTP wire protocol. */
export type HttpWire = 'streamable-http' | 'sse';

/** The wires to try, in order, for a configured transport. */
export function wiresFor(transport: Exclude<McpTransport, 'stdio'>): readonly HttpWire[] {
  switch (transport) {
    case 'http':
      return ['streamable-http', 'sse'];
    case 'streamable-http':
      return ['streamable-http'];
    case 'sse':
      return ['sse'];
    default: {
      const never: never = transport;
      return never;
    }
  }
}

/** The URL to connect to and the headers to send, once `user:pass@` has been taken out of the URL. */
export interface HttpTarget {
  /** The endpoint without userinfo (fetch refuses a URL that carries credentials). */
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  /** Values derived here that must be redacted like any configured secret (the Basic credential). */
  readonly secrets: readonly string[];
}

/**
 * Turns the resolved URL and headers into what is sent. A URL with userinfo becomes a Basic
 * `Authorization` header (user and password percent-decoded, as written in a URL); a URL that does
 * not parse throws with the key to fix.
 */
export function httpTarget(resolvedUrl: string, headers: Readonly<Record<string, string>>, key: string): HttpTarget {
  let url: URL;
  try {
    url = new URL(resolvedUrl);
  } catch {
    throw new Error(`${key}.url is not a valid URL; write the server's full endpoint, e.g. https://mcp.example.com/mcp`);
  }
  if (url.username === '' && url.password === '') return { url, headers: { ...headers }, secrets: [] };
  if (Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) {
    throw new Error(`${key}.url carries user:pass@ and ${key}.headers sets Authorization too; keep one of them`);
  }
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  const credential = Buffer.from(`${user}:${password}`, 'utf8').toString('base64');
  url.username = '';
  url.password = '';
  return { url, headers: { ...headers, Authorization: `Basic ${credential}` }, secrets: [credential, `${user}:${password}`] };
}

function requestUrl(input: string | URL): URL {
  return input instanceof URL ? input : new URL(input);
}

/**
 * Adds `headers` to requests for `origin` only. The SDK would send its `requestInit` headers with
 * every request, the authorization server's included; a credential meant for the MCP server must
 * not reach a third party that way.
 */
export function originScopedFetch(origin: string, headers: Readonly<Record<string, string>>, base: FetchLike): FetchLike {
  const entries = Object.entries(headers);
  if (entries.length === 0) return base;
  return (input, init) => {
    if (requestUrl(input).origin !== origin) return base(input, init);
    const merged = new Headers(init?.headers);
    for (const [name, value] of entries) if (!merged.has(name)) merged.set(name, value);
    return base(input, { ...init, headers: merged });
  };
}

/** The fetch every HTTP transport of a server uses: headers to its origin only, redirects followed safely. */
export function serverFetch(target: HttpTarget, wrap: (next: FetchLike) => FetchLike = (next) => next): FetchLike {
  const safe = headerSafeFetch(Object.keys(target.headers));
  return wrap(originScopedFetch(target.url.origin, target.headers, safe));
}

/** A transport for one wire. Redirects are followed by `headerSafeFetch`, which knows what to drop. */
export function createHttpTransport(wire: HttpWire, url: URL, fetchFn: FetchLike): Transport {
  switch (wire) {
    case 'streamable-http':
      return new StreamableHTTPClientTransport(url, { fetch: fetchFn, redirectPolicy: 'follow' });
    case 'sse':
      return new SSEClientTransport(url, { fetch: fetchFn, redirectPolicy: 'follow' });
    default: {
      const never: never = wire;
      return never;
    }
  }
}

/**
 * Whether a failed streamable HTTP handshake means "this server speaks the old protocol": a 4xx
 * answer other than an authorization refusal (400, 404 and 405 are what SSE-only servers send), or
 * a successful answer that is not JSON-RPC at all (an HTML page). Anything else (no connection, a
 * 5xx, a 401) is a real failure and is reported as such.
 */
export function refusesStreamableHttp(err: unknown): boolean {
  if (!(err instanceof StreamableHTTPError)) return false;
  const code = err.code;
  if (code === -1) return true;
  return code !== undefined && code >= 400 && code < 500 && code !== 401 && code !== 403 && code !== 408 && code !== 429;
}

/** The Basic credential a URL's `user:pass@` turns into, to redact; empty when there is none or the URL does not parse. */
export function basicSecrets(resolvedUrl: string): string[] {
  try {
    return [...httpTarget(resolvedUrl, {}, '').secrets];
  } catch {
    return [];
  }
}

/**
 * The HTTP status of a transport failure, when it has one: the SDK's messages carry the server's
 * body but not always its status, and the status is what tells a refused credential from a missing
 * endpoint.
 */
export function httpStatusOf(err: unknown): number | undefined {
  if (err instanceof StreamableHTTPError && err.code !== undefined && err.code >= 100) return err.code;
  if (err instanceof SseError && err.code !== undefined && err.code >= 100) return err.code;
  return undefined;
}
