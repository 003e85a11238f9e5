import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeModelServer } from '../agenttest/fake-model-server.js';
import type { FakeModelServer } from '../agenttest/fake-model-server.js';
import { freePort } from '../agenttest/nats-server.js';
import { nodeFetch } from './node-fetch.js';

describe('nodeFetch', () => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await startFakeModelServer({ keepAliveTimeoutMs: 10_000 });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => server.reset());

  it('answers as the global fetch does: status, headers, body, and the request as sent', async () => {
    const reply = { status: 429, headers: { 'retry-after-ms': '5', 'x-request-id': 'r1' }, body: { error: { message: 'slow down, ü' } } };
    server.reply(reply, reply);
    const init = { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k' }, body: '{"a":"ü"}' };
    const mine = await nodeFetch(`${server.url}/v1/messages?beta=true`, init);
    const theirs = await fetch(`${server.url}/v1/messages?beta=true`, init);
    expect(mine.status).toBe(theirs.status);
    expect(mine.headers.get('retry-after-ms')).toBe('5');
    expect(mine.headers.get('x-request-id')).toBe(theirs.headers.get('x-request-id'));
    expect(await mine.text()).toBe(await theirs.text());
    const [a, b] = server.requests;
    expect(a?.bodyText).toBe(b?.bodyText);
    expect(a?.path).toBe('/v1/messages?beta=true');
    expect(a?.method).toBe('POST');
    expect(a?.headers['x-api-key']).toBe('k');
  });

  it('rejects with an AbortError when the signal fires while the answer is awaited', async () => {
    server.reply({ hang: true });
    const controller = new AbortController();
    const pending = nodeFetch(`${server.url}/x`, { method: 'POST', body: '{}', signal: controller.signal });
    setImmediate(() => controller.abort());
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('rejects a refused connection with the TypeError fetch uses, carrying the cause', async () => {
    const port = await freePort();
    const err = await nodeFetch(`http://127.0.0.1:${port}/x`, { method: 'POST', body: '{}' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as TypeError).cause).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('follows a redirect as fetch does', async () => {
    const moved = { status: 307, headers: { location: `${server.url}/moved` }, body: '' };
    // The redirect is replayed through the global fetch, which sees it again and follows it.
    server.reply(moved, moved, { body: { ok: true } });
    const res = await nodeFetch(`${server.url}/first`, { method: 'POST', body: '{"x":1}' });
    expect(await res.json()).toEqual({ ok: true });
    expect(server.requests.map((r) => r.path)).toEqual(['/first', '/first', '/moved']);
  });

  it('passes an event stream on as a readable body', async () => {
    server.reply({ headers: { 'content-type': 'text/event-stream' }, body: 'data: 1\n\ndata: 2\n\n' });
    const res = await nodeFetch(`${server.url}/s`, { method: 'POST', body: '{}' });
    expect(res.body).not.toBeNull();
    expect(await res.text()).toBe('data: 1\n\ndata: 2\n\n');
  });
});
