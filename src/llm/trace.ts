import { closeSync, constants, openSync, writeSync } from 'node:fs';
import type { FetchMiddleware } from './http.js';
import { isEventStream, requestBodyText, requestMethod, requestUrl } from './http.js';
import { jsonTextDepth } from '../util/json-depth.js';

/** One HTTP event of a `--trace` file. Fields that do not apply are omitted. */
export type TraceHttpEvent =
  | {
      readonly type: 'request';
      readonly id: string;
      readonly iter?: number;
      readonly attempt?: number;
      readonly time: string;
      readonly method: string;
      readonly url: string;
      readonly body?: unknown;
      readonly body_unavailable?: true;
    }
  | {
      readonly type: 'response';
      readonly id: string;
      readonly iter?: number;
      readonly attempt?: number;
      readonly time: string;
      readonly status: string;
      readonly status_code: number;
      readonly duration_ms: number;
      readonly body: unknown;
    }
  | {
      readonly type: 'error';
      readonly id: string;
      readonly iter?: number;
      readonly attempt?: number;
      readonly time: string;
      readonly duration_ms: number;
      readonly error: string;
    };

/** Options for {@link traceMiddleware}. */
export interface TraceMiddlewareOptions {
  /** The agent loop's current iteration, stamped on each event when known. */
  readonly iteration?: () => number | undefined;
  /** The clock, for tests; `Date.now` otherwise. */
  readonly now?: () => number;
}

/**
 * Records every HTTP exchange a provider makes as trace events: the request, then its response or
 * error, with the retry attempt the SDK reports in `X-Stainless-Retry-Count`. Bodies are parsed
 * JSON when they are JSON and JSON strings otherwise. Headers are never recorded, so the API key
 * never reaches the trace.
 */
export function traceMiddleware(sink: (event: TraceHttpEvent) => void, options: TraceMiddlewareOptions = {}): FetchMiddleware {
  const now = options.now ?? Date.now;
  let seq = 0;
  return (next) => async (input, init) => {
    const id = `http-${++seq}`;
    const iter = options.iteration?.();
    const attempt = retryAttempt(init);
    const common = { id, ...(iter === undefined ? {} : { iter }), ...(attempt === undefined ? {} : { attempt }) };
    const started = now();
    const body = requestBodyText(init);
    sink({
      type: 'request',
      ...common,
      time: new Date(started).toISOString(),
      method: requestMethod(input, init),
      url: requestUrl(input),
      ...(body === undefined ? { body_unavailable: true as const } : { body: jsonOrString(body) }),
    });
    try {
      const res = await next(input, init);
      const record = res
        .clone()
        .text()
        .then((text) => {
          const t = now();
          sink({
            type: 'response',
            ...common,
            time: new Date(t).toISOString(),
            status: `${res.status} ${res.statusText}`.trim(),
            status_code: res.status,
            duration_ms: t - started,
            body: jsonOrString(text),
          });
        });
      // A streamed answer is recorded once it has arrived whole, without holding it back meanwhile.
      if (isEventStream(res)) record.catch(() => undefined);
      else await record;
      return res;
    } catch (err) {
      const failedAt = now();
      sink({
        type: 'error',
        ...common,
        time: new Date(failedAt).toISOString(),
        duration_ms: failedAt - started,
        error: err instanceof Error ? err.message : String(err),
      });
      throw err;
    }
  };
}

function retryAttempt(init?: RequestInit): number | undefined {
  if (init?.headers === undefined) return undefined;
  const v = new Headers(init.headers).get('x-stainless-retry-count');
  const n = v === null ? NaN : Number(v);
  return Number.isInteger(n) ? n : undefined;
}

/** Nesting past this is kept as text: the trace line is written with the recursive `JSON.stringify`. */
const TRACE_MAX_DEPTH = 256;

function jsonOrString(text: string): unknown {
  if (jsonTextDepth(text, TRACE_MAX_DEPTH) > TRACE_MAX_DEPTH) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** An open `--trace` file: JSON lines, created exclusively with mode 0600. */
export interface TraceFile {
  readonly path: string;
  /** Appends one event as a line. */
  write(event: object): void;
  /** A middleware recording the provider's HTTP exchanges into this file. */
  middleware(options?: TraceMiddlewareOptions): FetchMiddleware;
  close(): void;
}

/**
 * Creates a trace file. Refuses an existing path (exclusive create): a trace holds the whole
 * conversation, so it is never written through a planted link or over another run's trace. The
 * caller writes the `session` and `summary` events; the middleware writes the HTTP ones.
 */
export function openTraceFile(path: string): TraceFile {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  let open = true;
  const write = (event: object): void => {
    if (open) writeSync(fd, `${JSON.stringify(event)}\n`);
  };
  return {
    path,
    write,
    middleware: (options) => traceMiddleware(write, options),
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}
