/**
 * Whether anything accepts connections at a collector's address. An OTLP exporter retries a
 * refused connection until its own timeout, so a run whose collector is not running would wait out
 * the whole shutdown deadline (and the process the exporter's timers) to report that nothing was
 * delivered; a refused connection says so at once.
 */
import { connect } from 'node:net';

/** Connection failures that mean nothing will accept the export soon: refused, or no such host or route. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/** The host and port an export URL connects to. */
function endpointOf(url: string): { readonly host: string; readonly port: number } | undefined {
  try {
    const u = new URL(url);
    const host = u.hostname.startsWith('[') && u.hostname.endsWith(']') ? u.hostname.slice(1, -1) : u.hostname;
    const port = u.port === '' ? (u.protocol === 'https:' ? 443 : 80) : Number(u.port);
    return { host, port };
  } catch {
    return undefined;
  }
}

/** Resolves with the error text when the connection fails in an unreachable way, with undefined when it connects or fails otherwise. */
function probe(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.unref();
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      socket.destroy();
      resolve(err.code !== undefined && UNREACHABLE.has(err.code) ? err.message : undefined);
    });
  });
}

/** A promise that never settles: the caller's other race entrants decide. */
const NEVER: Promise<never> = new Promise(() => undefined);

/**
 * Resolves with a sentence naming the collector when none of the URLs' addresses accepts a
 * connection; never resolves when one of them does (or when a connection neither succeeds nor fails
 * in time: the caller's deadline decides then).
 */
export async function collectorUnreachable(urls: readonly string[]): Promise<string> {
  const endpoints = new Map<string, { readonly host: string; readonly port: number; readonly url: string }>();
  for (const url of urls) {
    const e = endpointOf(url);
    if (e !== undefined) endpoints.set(`${e.host}:${e.port}`, { ...e, url });
  }
  const results = await Promise.all([...endpoints.values()].map(async (e) => ({ url: e.url, error: await probe(e.host, e.port) })));
  const first = results[0];
  if (first?.error === undefined || results.some((r) => r.error === undefined)) return NEVER;
  return `the collector at ${new URL(first.url).origin} cannot be reached (${first.error}); is it running?`;
}
