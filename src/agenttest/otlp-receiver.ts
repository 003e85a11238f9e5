/**
 * An OTLP/HTTP receiver run in-process, for tests that check what telemetry really sends: it
 * accepts `http/protobuf` and `http/json` export requests for traces and metrics (gzipped or not),
 * decodes them into plain values, and keeps both the decoded data and the raw bodies so a test can
 * look for text that must not have left the process.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';
import { OTLP_PROTO } from './otlp-proto.js';

/** An attribute value as decoded. int64 values arrive as numbers (exact below 2^53). */
export type OtlpValue = string | number | boolean | null | readonly OtlpValue[] | { readonly [key: string]: OtlpValue };
export type OtlpAttributes = Readonly<Record<string, OtlpValue>>;

/** The OTLP signals the receiver takes (`/v1/traces`, `/v1/metrics`), as each received export names it. */
export const OTLP_SIGNALS = ['traces', 'metrics'] as const;
export type OtlpSignal = (typeof OTLP_SIGNALS)[number];
export type OtlpEncoding = 'protobuf' | 'json';

export interface ReceivedSpanEvent {
  readonly name: string;
  readonly attributes: OtlpAttributes;
}

export interface ReceivedSpan {
  /** Lower-case hex. */
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** The OTLP SpanKind number (1 internal, 2 server, 3 client). */
  readonly kind: number;
  readonly attributes: OtlpAttributes;
  readonly events: readonly ReceivedSpanEvent[];
  /** The OTLP status code (0 unset, 1 ok, 2 error) and message. */
  readonly status: { readonly code: number; readonly message: string };
  readonly resource: OtlpAttributes;
  readonly scope: string;
}

export interface ReceivedDataPoint {
  readonly attributes: OtlpAttributes;
  /** A sum or gauge point's value. */
  readonly value?: number;
  /** A histogram point's count, sum, boundaries and per-bucket counts. */
  readonly count?: number;
  readonly sum?: number;
  readonly explicitBounds?: readonly number[];
  readonly bucketCounts?: readonly number[];
}

export interface ReceivedMetric {
  readonly name: string;
  readonly unit: string;
  readonly description: string;
  readonly type: 'gauge' | 'sum' | 'histogram';
  readonly points: readonly ReceivedDataPoint[];
  readonly resource: OtlpAttributes;
}

export interface ReceivedExport {
  readonly signal: OtlpSignal;
  readonly encoding: OtlpEncoding;
  readonly gzip: boolean;
  /** The request body after decompression. */
  readonly body: Buffer;
}

export interface OtlpReceiver {
  /** The base URL (`http://127.0.0.1:<port>`), as `OTEL_EXPORTER_OTLP_ENDPOINT` or `telemetry.endpoint` take it. */
  readonly url: string;
  readonly exports: readonly ReceivedExport[];
  readonly spans: readonly ReceivedSpan[];
  readonly metrics: readonly ReceivedMetric[];
  /** Answer every later request with this HTTP status (200 by default), to test failed delivery. */
  respondWith(status: number): void;
  /** Never answer later requests (until `close`), to test a flush that runs out of time. */
  hang(): void;
  /** Every received body, decompressed, joined: for "this text never left" assertions. */
  allBodies(): Buffer;
  close(): Promise<void>;
}

const ROOT = protobuf.parse(OTLP_PROTO).root;
const TRACE_REQUEST = ROOT.lookupType('opentelemetry.proto.ExportTraceServiceRequest');
const METRICS_REQUEST = ROOT.lookupType('opentelemetry.proto.ExportMetricsServiceRequest');
/** Attribute values nest; decoding stops at this depth. */
const MAX_DEPTH = 32;

type Json = Record<string, unknown>;

function obj(v: unknown): Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {};
}
function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? (v as unknown[]) : [];
}
function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
function num(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

/** Ids arrive base64 from protobuf (as protobufjs renders bytes) and hex from JSON. */
function id(v: unknown, encoding: OtlpEncoding): string {
  const s = str(v);
  return encoding === 'json' ? s.toLowerCase() : Buffer.from(s, 'base64').toString('hex');
}

function anyValue(v: unknown, depth: number): OtlpValue {
  const o = obj(v);
  if (depth > MAX_DEPTH) return null;
  if ('stringValue' in o) return str(o['stringValue']);
  if ('boolValue' in o) return o['boolValue'] === true;
  if ('intValue' in o) return num(o['intValue']) ?? null;
  if ('doubleValue' in o) return num(o['doubleValue']) ?? null;
  if ('arrayValue' in o) return arr(obj(o['arrayValue'])['values']).map((x) => anyValue(x, depth + 1));
  if ('kvlistValue' in o) return attributes(obj(o['kvlistValue'])['values'], depth + 1);
  if ('bytesValue' in o) return str(o['bytesValue']);
  return null;
}

function attributes(list: unknown, depth = 0): OtlpAttributes {
  const out: Record<string, OtlpValue> = {};
  for (const kv of arr(list)) {
    const o = obj(kv);
    out[str(o['key'])] = anyValue(o['value'], depth);
  }
  return out;
}

function decodeSpans(req: Json, encoding: OtlpEncoding): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of arr(req['resourceSpans'])) {
    const resource = attributes(obj(obj(rs)['resource'])['attributes']);
    for (const ss of arr(obj(rs)['scopeSpans'])) {
      const scope = str(obj(obj(ss)['scope'])['name']);
      for (const sp of arr(obj(ss)['spans'])) {
        const s = obj(sp);
        const status = obj(s['status']);
        out.push({
          traceId: id(s['traceId'], encoding),
          spanId: id(s['spanId'], encoding),
          parentSpanId: id(s['parentSpanId'], encoding),
          name: str(s['name']),
          kind: num(s['kind']) ?? 0,
          attributes: attributes(s['attributes']),
          events: arr(s['events']).map((e) => ({ name: str(obj(e)['name']), attributes: attributes(obj(e)['attributes']) })),
          status: { code: num(status['code']) ?? 0, message: str(status['message']) },
          resource,
          scope,
        });
      }
    }
  }
  return out;
}

function decodePoint(p: unknown): ReceivedDataPoint {
  const o = obj(p);
  const value = num(o['asDouble']) ?? num(o['asInt']);
  const count = num(o['count']);
  const sum = num(o['sum']);
  const point: { -readonly [K in keyof ReceivedDataPoint]: ReceivedDataPoint[K] } = { attributes: attributes(o['attributes']) };
  if (value !== undefined) point.value = value;
  if (count !== undefined) point.count = count;
  if (sum !== undefined) point.sum = sum;
  if ('explicitBounds' in o) point.explicitBounds = arr(o['explicitBounds']).map((x) => num(x) ?? NaN);
  if ('bucketCounts' in o) point.bucketCounts = arr(o['bucketCounts']).map((x) => num(x) ?? NaN);
  return point;
}

function decodeMetrics(req: Json): ReceivedMetric[] {
  const out: ReceivedMetric[] = [];
  for (const rm of arr(req['resourceMetrics'])) {
    const resource = attributes(obj(obj(rm)['resource'])['attributes']);
    for (const sm of arr(obj(rm)['scopeMetrics'])) {
      for (const m of arr(obj(sm)['metrics'])) {
        const o = obj(m);
        const type = 'histogram' in o ? 'histogram' : 'sum' in o ? 'sum' : 'gauge';
        out.push({
          name: str(o['name']),
          unit: str(o['unit']),
          description: str(o['description']),
          type,
          points: arr(obj(o[type])['dataPoints']).map(decodePoint),
          resource,
        });
      }
    }
  }
  return out;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Starts a receiver on a free loopback port. Paths: `/v1/traces`, `/v1/metrics`. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: ReceivedExport[] = [];
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetric[] = [];
  let status = 200;
  let hanging = false;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://receiver').pathname;
    const signal: OtlpSignal | undefined = path === '/v1/traces' ? 'traces' : path === '/v1/metrics' ? 'metrics' : undefined;
    if (req.method !== 'POST' || signal === undefined) {
      res.writeHead(404).end();
      return;
    }
    const raw = await readBody(req);
    if (hanging) return;
    const gzip = (req.headers['content-encoding'] ?? '').toLowerCase() === 'gzip';
    const body = gzip ? gunzipSync(raw) : raw;
    const encoding: OtlpEncoding = (req.headers['content-type'] ?? '').includes('json') ? 'json' : 'protobuf';
    exports.push({ signal, encoding, gzip, body });
    if (status !== 200) {
      res.writeHead(status, { 'content-type': 'text/plain' }).end('rejected by the test receiver');
      return;
    }
    let decoded: Json;
    if (encoding === 'json') {
      decoded = obj(JSON.parse(body.toString('utf8')));
    } else {
      const type = signal === 'traces' ? TRACE_REQUEST : METRICS_REQUEST;
      decoded = obj(type.toObject(type.decode(body), { longs: Number, bytes: String }));
    }
    if (signal === 'traces') spans.push(...decodeSpans(decoded, encoding));
    else metrics.push(...decodeMetrics(decoded));
    if (encoding === 'json') res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(err instanceof Error ? err.message : String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    spans,
    metrics,
    respondWith(code: number): void {
      status = code;
    },
    hang(): void {
      hanging = true;
    },
    allBodies: () => Buffer.concat(exports.map((e) => e.body)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
