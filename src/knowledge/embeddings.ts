import { KnowledgeError } from './errors.js';

/**
 * Why an embeddings call failed, by step outcome rather than message text: a deadline or a
 * cancellation is named as such even when the server also misbehaved, because a hung server is both.
 */
export const EMBED_FAILURES = ['deadline', 'canceled', 'failed'] as const;
export type EmbedFailure = (typeof EMBED_FAILURES)[number];

/** An embeddings call that did not produce usable vectors. */
export class EmbeddingsError extends KnowledgeError {
  constructor(
    readonly failure: EmbedFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('embeddings', message, options);
    this.name = 'EmbeddingsError';
  }
}

/** How to reach an OpenAI-compatible `/embeddings` endpoint. */
export interface EmbeddingsOptions {
  /** Base URL without `/embeddings`; checked by the configuration loader (https unless loopback). */
  readonly baseUrl: string;
  readonly model: string;
  /** The bearer token's value (read from the configured variable by the caller), if any. */
  readonly apiKey?: string | undefined;
  readonly timeoutMs: number;
  /** Inputs per request before halving; 64 unless a test wants less. */
  readonly batchSize?: number;
}

/** What a probe learned from the live model. */
export interface ProbeResult {
  readonly dimension: number;
  /** Whether the server's vector arrived unit-length. */
  readonly normalized: boolean;
}

const MAX_INPUT_BYTES = 128 * 1024;
const MAX_QUERY_BYTES = 8192;
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** Truncates text to a byte budget on a character boundary. */
export function truncateUtf8(text: string, maxBytes: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return text;
  let end = maxBytes;
  // back up over continuation bytes so no character is cut in half
  while (end > 0 && ((buf[end] ?? 0) & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}

/** Scales a vector to unit length in place and reports whether it already was. */
export function normalize(v: Float32Array): boolean {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm === 0) return false;
  for (let i = 0; i < v.length; i++) v[i] = (v[i] ?? 0) / norm;
  return Math.abs(norm - 1) < 1e-3;
}

async function readCapped(res: Response): Promise<string> {
  if (res.body === null) return '';
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const value of res.body as unknown as AsyncIterable<Uint8Array>) {
    total += value.byteLength;
    if (total > MAX_RESPONSE_BYTES) {
      throw new EmbeddingsError('failed', `the embeddings response exceeded ${MAX_RESPONSE_BYTES} bytes`);
    }
    parts.push(value);
  }
  return Buffer.concat(parts).toString('utf8');
}

/**
 * Maps a response body to vectors strictly by each item's own `index`. A gap, a duplicate, an
 * out-of-range index, an empty or non-numeric vector, a count mismatch, mixed dimensions or an
 * error object inside a 200 all fail the batch, so a vector can never land on the wrong chunk.
 */
export function mapResponse(body: unknown, count: number): Float32Array[] {
  if (typeof body !== 'object' || body === null) throw new EmbeddingsError('failed', 'the embeddings response is not a JSON object');
  const rec = body as Record<string, unknown>;
  if (rec['error'] !== undefined && rec['error'] !== null) {
    const error = rec['error'];
    const msg =
      typeof error === 'object' && error !== null && typeof (error as Record<string, unknown>)['message'] === 'string'
        ? String((error as Record<string, unknown>)['message'])
        : JSON.stringify(error);
    throw new EmbeddingsError('failed', `the embeddings server answered with an error: ${msg}`);
  }
  const data = rec['data'];
  if (!Array.isArray(data)) throw new EmbeddingsError('failed', 'the embeddings response has no data array');
  if (data.length !== count)
    throw new EmbeddingsError('failed', `the embeddings response holds ${data.length} vectors for ${count} inputs`);
  const out: (Float32Array | undefined)[] = new Array<Float32Array | undefined>(count).fill(undefined);
  let dim = -1;
  for (const item of data as unknown[]) {
    if (typeof item !== 'object' || item === null) throw new EmbeddingsError('failed', 'an embeddings data item is not an object');
    const it = item as Record<string, unknown>;
    const index = it['index'];
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count) {
      throw new EmbeddingsError('failed', `an embeddings data item has index ${JSON.stringify(index)}, outside 0..${count - 1}`);
    }
    if (out[index] !== undefined) throw new EmbeddingsError('failed', `the embeddings response repeats index ${index}`);
    const emb = it['embedding'];
    if (!Array.isArray(emb) || emb.length === 0)
      throw new EmbeddingsError('failed', `the embedding at index ${index} is empty or not an array`);
    const vector = new Float32Array(emb.length);
    for (let i = 0; i < emb.length; i++) {
      const value: unknown = emb[i];
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw new EmbeddingsError('failed', `the embedding at index ${index} holds a non-numeric value`);
      vector[i] = value;
    }
    if (dim === -1) dim = vector.length;
    else if (vector.length !== dim)
      throw new EmbeddingsError('failed', `the embeddings response mixes dimensions ${dim} and ${vector.length}`);
    out[index] = vector;
  }
  const missing = out.findIndex((v) => v === undefined);
  if (missing !== -1) throw new EmbeddingsError('failed', `the embeddings response has no vector for index ${missing}`);
  return out as Float32Array[];
}

/**
 * A client for any OpenAI-compatible `/embeddings` endpoint over plain `fetch`. Vectors come back
 * L2-normalized, so the vector table's L2 distance orders like cosine similarity.
 */
export class EmbeddingsClient {
  readonly model: string;
  readonly #url: string;
  readonly #apiKey: string | undefined;
  readonly #timeoutMs: number;
  readonly #batch: number;
  #probe: ProbeResult | undefined;

  constructor(opts: EmbeddingsOptions) {
    this.model = opts.model;
    this.#url = `${opts.baseUrl.replace(/\/+$/, '')}/embeddings`;
    this.#apiKey = opts.apiKey === '' ? undefined : opts.apiKey;
    this.#timeoutMs = opts.timeoutMs;
    this.#batch = Math.max(1, opts.batchSize ?? 64);
  }

  async #request(inputs: readonly string[], signal: AbortSignal): Promise<Float32Array[]> {
    const deadline = AbortSignal.timeout(this.#timeoutMs);
    const both = AbortSignal.any([signal, deadline]);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.#apiKey !== undefined) headers['authorization'] = `Bearer ${this.#apiKey}`;
    try {
      const res = await fetch(this.#url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ input: inputs, model: this.model }),
        signal: both,
      });
      const text = await readCapped(res);
      if (!res.ok)
        throw new EmbeddingsError(
          'failed',
          `the embeddings server answered HTTP ${res.status}${text === '' ? '' : `: ${text.slice(0, 200)}`}`,
        );
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch (err) {
        throw new EmbeddingsError('failed', 'the embeddings response is not JSON', { cause: err });
      }
      return mapResponse(body, inputs.length);
    } catch (err) {
      if (signal.aborted) throw new EmbeddingsError('canceled', 'the embeddings call was canceled', { cause: err });
      if (deadline.aborted)
        throw new EmbeddingsError('deadline', `the embeddings server did not answer within ${this.#timeoutMs} ms`, { cause: err });
      if (err instanceof EmbeddingsError) throw err;
      throw new EmbeddingsError('failed', `cannot reach the embeddings server at ${this.#url}: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Halves a failing batch recursively down to single inputs; a deadline or cancel stops at once. */
  async #embedSplit(inputs: readonly string[], signal: AbortSignal): Promise<Float32Array[]> {
    try {
      return await this.#request(inputs, signal);
    } catch (err) {
      if (inputs.length === 1 || !(err instanceof EmbeddingsError) || err.failure !== 'failed') throw err;
      const mid = Math.ceil(inputs.length / 2);
      const left = await this.#embedSplit(inputs.slice(0, mid), signal);
      const right = await this.#embedSplit(inputs.slice(mid), signal);
      return [...left, ...right];
    }
  }

  /** Embeds inputs in order, in batches. Every vector is normalized; the raw norms are not kept. */
  async embed(inputs: readonly string[], signal: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < inputs.length; i += this.#batch) {
      const batch = inputs.slice(i, i + this.#batch).map((t) => truncateUtf8(t === '' ? ' ' : t, MAX_INPUT_BYTES));
      const vectors = await this.#embedSplit(batch, signal);
      for (const v of vectors) normalize(v);
      out.push(...vectors);
    }
    return out;
  }

  /** Embeds a query (truncated to 8 KiB on a character boundary). */
  async embedQuery(text: string, signal: AbortSignal): Promise<Float32Array> {
    const [v] = await this.#request([truncateUtf8(text, MAX_QUERY_BYTES)], signal);
    if (v === undefined) throw new EmbeddingsError('failed', 'the embeddings server returned no vector for the query');
    normalize(v);
    return v;
  }

  /** Learns the live model's dimension and whether it normalizes, once per client. */
  async probe(signal: AbortSignal): Promise<ProbeResult> {
    if (this.#probe !== undefined) return this.#probe;
    const [v] = await this.#request(['dimension probe'], signal);
    if (v === undefined) throw new EmbeddingsError('failed', 'the embeddings server returned no vector for the probe');
    this.#probe = { dimension: v.length, normalized: normalize(v) };
    return this.#probe;
  }
}
