import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeEmbeddings } from '../../test/knowledge/support.js';
import type { FakeEmbeddings } from '../../test/knowledge/support.js';
import { EmbeddingsClient, EmbeddingsError, mapResponse, truncateUtf8 } from './embeddings.js';

let fake: FakeEmbeddings;
beforeAll(async () => {
  fake = await startFakeEmbeddings(8);
});
afterAll(async () => fake.close());

const signal = new AbortController().signal;

describe('mapResponse', () => {
  const item = (index: unknown, embedding: unknown = [1, 0]) => ({ index, embedding });
  it("maps by each item's own index, not by position", () => {
    const out = mapResponse({ data: [item(1, [0, 1]), item(0, [1, 0])] }, 2);
    expect([...(out[0] ?? [])]).toEqual([1, 0]);
    expect([...(out[1] ?? [])]).toEqual([0, 1]);
  });
  it.each([
    ['a count mismatch', { data: [item(0)] }, /1 vectors for 2 inputs/],
    ['a duplicate index', { data: [item(0), item(0)] }, /repeats index 0/],
    ['an out-of-range index', { data: [item(0), item(2)] }, /outside 0..1/],
    ['a non-integer index', { data: [item(0), item('1')] }, /index "1"/],
    ['an empty vector', { data: [item(0), item(1, [])] }, /empty/],
    ['a non-numeric value', { data: [item(0), item(1, [1, 'x'])] }, /non-numeric/],
    ['mixed dimensions', { data: [item(0), item(1, [1, 0, 0])] }, /mixes dimensions/],
    ['an error object in a 200', { error: { message: 'overloaded' } }, /overloaded/],
    ['no data array', { object: 'list' }, /no data array/],
  ])('fails the batch on %s', (_name, body, msg) => {
    expect(() => mapResponse(body, 2)).toThrow(msg);
  });
});

describe('EmbeddingsClient', () => {
  it('batches, halves a failing batch down to single inputs, and keeps order', async () => {
    fake.requests.length = 0;
    fake.behaviour = (input) => (input.length > 2 ? 'error_500' : 'ok');
    const c = new EmbeddingsClient({ baseUrl: fake.baseUrl, model: 'toy', timeoutMs: 5000, batchSize: 5 });
    const inputs = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
    const out = await c.embed(inputs, signal);
    expect(out).toHaveLength(6);
    const direct = new EmbeddingsClient({ baseUrl: fake.baseUrl, model: 'toy', timeoutMs: 5000 });
    fake.behaviour = () => 'ok';
    const one = await direct.embed(['gamma'], signal);
    expect([...(out[2] ?? [])]).toEqual([...(one[0] ?? [])]);
    // every vector is unit length
    const norm = Math.hypot(...(out[0] ?? []));
    expect(norm).toBeCloseTo(1, 5);
  });

  it('fails with the single input when even one cannot be embedded', async () => {
    fake.behaviour = () => 'gap';
    const c = new EmbeddingsClient({ baseUrl: fake.baseUrl, model: 'toy', timeoutMs: 5000 });
    await expect(c.embed(['a', 'b'], signal)).rejects.toMatchObject({ failure: 'failed' });
    fake.behaviour = () => 'ok';
  });

  it('classifies a hung server as a deadline and a caller abort as canceled', async () => {
    fake.behaviour = () => 'hang';
    const c = new EmbeddingsClient({ baseUrl: fake.baseUrl, model: 'toy', timeoutMs: 150 });
    await expect(c.embedQuery('q', signal)).rejects.toMatchObject({ failure: 'deadline' });
    const ac = new AbortController();
    const p = new EmbeddingsClient({ baseUrl: fake.baseUrl, model: 'toy', timeoutMs: 60_000 }).embedQuery('q', ac.signal);
    ac.abort();
    await expect(p).rejects.toMatchObject({ failure: 'canceled' });
    fake.behaviour = () => 'ok';
  });

  it('probes the dimension once and reports whether the server normalizes', async () => {
    const c = new EmbeddingsClient({ baseUrl: fake.baseUrl, model: 'toy', timeoutMs: 5000, apiKey: 'k1' });
    fake.requests.length = 0;
    const p = await c.probe(signal);
    await c.probe(signal);
    expect(p).toEqual({ dimension: 8, normalized: false });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ input: ['dimension probe'], model: 'toy', auth: 'Bearer k1' });
  });

  it('reports an unreachable server as a failure, not a crash', async () => {
    const c = new EmbeddingsClient({ baseUrl: 'http://127.0.0.1:1/v1', model: 'toy', timeoutMs: 2000 });
    const err: unknown = await c.probe(signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbeddingsError);
    expect((err as EmbeddingsError).message).toMatch(/cannot reach the embeddings server/);
  });
});

describe('truncateUtf8', () => {
  it('cuts on a character boundary', () => {
    expect(truncateUtf8('aé€', 4)).toBe('aé');
    expect(truncateUtf8('abc', 10)).toBe('abc');
  });
});
