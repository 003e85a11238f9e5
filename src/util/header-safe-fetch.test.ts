import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headerSafeFetch } from './header-safe-fetch.js';

interface Seen {
  readonly method: string | undefined;
  readonly path: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

async function listen(
  handler: (path: string, res: ServerResponse, seen: Seen[]) => void,
): Promise<{ server: Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method, path: req.url, headers: req.headers, body });
      handler(req.url ?? '/', res, seen);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

describe('headerSafeFetch', () => {
  let target: Awaited<ReturnType<typeof listen>>;
  let origin: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    target = await listen((_path, res) => res.end('landed'));
    origin = await listen((path, res) => {
      // "localhost" and "127.0.0.1" are the same machine but different origins
      if (path === '/away') res.writeHead(307, { location: `http://localhost:${target.port}/mcp` }).end();
      else if (path === '/home') res.writeHead(308, { location: '/mcp' }).end();
      else if (path === '/see-other') res.writeHead(303, { location: `http://localhost:${target.port}/after` }).end();
      else if (path === '/loop') res.writeHead(302, { location: '/loop' }).end();
      else res.end('home');
    });
  });
  afterAll(async () => {
    await new Promise((r) => target.server.close(r));
    await new Promise((r) => origin.server.close(r));
  });

  const headers = { 'X-Api-Key': 'secret-key-value', Authorization: 'Bearer t0ken-value', Accept: 'application/json' };

  it('drops the configured and credential headers on a hop to another origin, keeping the rest and the body', async () => {
    const f = headerSafeFetch(['X-Api-Key']);
    const res = await f(`http://127.0.0.1:${origin.port}/away`, { method: 'POST', headers, body: '{"a":1}' });
    expect(await res.text()).toBe('landed');
    const last = target.seen.at(-1);
    expect(last?.headers['x-api-key']).toBeUndefined();
    expect(last?.headers['authorization']).toBeUndefined();
    expect(last?.headers['accept']).toBe('application/json');
    expect(last).toMatchObject({ method: 'POST', body: '{"a":1}' });
  });

  it('keeps the headers on a redirect within the origin', async () => {
    const f = headerSafeFetch(['X-Api-Key']);
    await (await f(`http://127.0.0.1:${origin.port}/home`, { method: 'POST', headers, body: '{}' })).text();
    const last = origin.seen.at(-1);
    expect(last?.path).toBe('/mcp');
    expect(last?.headers['x-api-key']).toBe('secret-key-value');
  });

  it('turns a 303 into a bodiless GET', async () => {
    const f = headerSafeFetch([]);
    await (await f(`http://127.0.0.1:${origin.port}/see-other`, { method: 'POST', headers, body: '{}' })).text();
    expect(target.seen.at(-1)).toMatchObject({ method: 'GET', path: '/after', body: '' });
  });

  it('gives up on a redirect loop', async () => {
    await expect(headerSafeFetch([])(`http://127.0.0.1:${origin.port}/loop`)).rejects.toThrow(/more than 10 redirects/);
  });
});
