/**
 * A fetch that follows redirects itself, so configured headers (which usually carry a credential
 * for one MCP server or one peer agent) never travel to another origin. Fetch's own rules drop
 * only `Authorization` on a cross-origin hop; an `X-Api-Key` would follow the redirect anywhere.
 */

/** The shape of `fetch` the MCP SDK and the A2A SDK both take. */
export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** How many hops one request may take. */
export const MAX_REDIRECTS = 10;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers that carry credentials whatever the operator configured. */
const ALWAYS_DROPPED = ['authorization', 'cookie', 'proxy-authorization'];

function urlOf(input: string | URL): URL {
  return input instanceof URL ? new URL(input.href) : new URL(input);
}

/**
 * Wraps `base` so redirects are followed by hand: on a hop to another origin (scheme, host or
 * port differ from the first request's), every header named in `configuredHeaders` and the
 * standard credential headers are removed for that hop and every later one. A 303, and a 301 or
 * 302 answering a POST, continue as a bodiless GET, as browsers do.
 */
export function headerSafeFetch(configuredHeaders: readonly string[], base: FetchLike = fetch): FetchLike {
  const sensitive = [...new Set([...configuredHeaders.map((h) => h.toLowerCase()), ...ALWAYS_DROPPED])];
  return async (input, init) => {
    const origin = urlOf(input).origin;
    let url = urlOf(input);
    let method = (init?.method ?? 'GET').toUpperCase();
    let body = init?.body;
    const headers = new Headers(init?.headers);
    let dropped = false;
    for (let hop = 0; ; hop++) {
      const res = await base(url, { ...init, method, headers, body: body ?? null, redirect: 'manual' });
      const location = res.headers.get('location');
      if (!REDIRECT_STATUSES.has(res.status) || location === null) return res;
      if (hop >= MAX_REDIRECTS) {
        await res.body?.cancel();
        throw new Error(`more than ${MAX_REDIRECTS} redirects`);
      }
      const next = new URL(location, url);
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        await res.body?.cancel();
        throw new Error(`a redirect to a ${next.protocol} URL is not followed`);
      }
      await res.body?.cancel();
      if (!dropped && next.origin !== origin) {
        for (const name of sensitive) headers.delete(name);
        dropped = true;
      }
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        if (method !== 'HEAD') method = 'GET';
        body = undefined;
        headers.delete('content-type');
        headers.delete('content-length');
      }
      url = next;
    }
  };
}
