import { request } from 'node:http';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { afterEach, describe, expect, it } from 'vitest';
import { buildHttpCard } from './card.js';
import { A2aListener, MAX_BODY_BYTES } from './listener.js';

const card = buildHttpCard({
  identity: 'probe',
  version: '1.0.0',
  description: 'A probe',
  url: 'http://127.0.0.1:1/',
  bearer: false,
  tools: [],
});
/** Only the card is asked of the handler before the checks under test answer. */
const handler = { getAgentCard: () => Promise.resolve(card) } as unknown as A2ARequestHandler;

const open: A2aListener[] = [];
afterEach(async () => {
  for (const l of open.splice(0)) await l.close();
});

async function listen(token?: string): Promise<A2aListener> {
  const l = await A2aListener.start({ address: '127.0.0.1', port: 0, token, handler });
  open.push(l);
  return l;
}

function call(
  url: string,
  opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const u = new URL(opts.path ?? '/', url);
    const req = request(
      { host: u.hostname, port: u.port, path: u.pathname, method: opts.method ?? 'POST', headers: opts.headers ?? {} },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

describe('the A2A HTTP listener', () => {
  it('serves the card at the well-known path, and only GET there', async () => {
    const l = await listen();
    const r = await call(l.url, { method: 'GET', path: '/.well-known/agent-card.json' });
    expect(r.status).toBe(200);
    expect((JSON.parse(r.body) as { name: string }).name).toBe('probe');
    expect((await call(l.url, { method: 'POST', path: '/.well-known/agent-card.json' })).status).toBe(405);
    expect((await call(l.url, { method: 'GET', path: '/' })).status).toBe(405);
    expect((await call(l.url, { method: 'GET', path: '/elsewhere' })).status).toBe(404);
  });

  it('without a token, refuses a Host or an Origin that is not this machine', async () => {
    const l = await listen();
    const host = await call(l.url, { method: 'GET', path: '/.well-known/agent-card.json', headers: { host: 'rebound.example' } });
    expect(host.status).toBe(403);
    const origin = await call(l.url, { method: 'GET', path: '/.well-known/agent-card.json', headers: { origin: 'https://other.example' } });
    expect(origin.status).toBe(403);
  });

  it('with a token, answers a proxied Host but refuses a call without the token before reading it', async () => {
    const l = await listen('sekrit');
    const proxied = await call(l.url, { method: 'GET', path: '/.well-known/agent-card.json', headers: { host: 'agent.example' } });
    expect(proxied.status).toBe(200);
    const none = await call(l.url, { body: '{}', headers: { 'content-type': 'application/json' } });
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer');
    expect((await call(l.url, { body: '{}', headers: { authorization: 'Bearer sekrit-not' } })).status).toBe(401);
    expect((await call(l.url, { body: '{}', headers: { authorization: 'Basic sekrit' } })).status).toBe(401);
  });

  it('refuses a body over the limit', async () => {
    const l = await listen();
    const r = await call(l.url, { body: 'x'.repeat(MAX_BODY_BYTES + 1), headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(413);
  });

  it('says which key to change when the port is taken', async () => {
    const l = await listen();
    const port = Number(new URL(l.url).port);
    await expect(A2aListener.start({ address: '127.0.0.1', port, token: undefined, handler })).rejects.toThrow(
      /expose\.agent\.a2a_http: cannot listen on 127\.0\.0\.1:\d+ \(the port is taken\); set expose\.agent\.a2a_http\.port/u,
    );
  });
});
