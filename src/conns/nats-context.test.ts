import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as rawConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startNatsServer } from '../agenttest/nats-server.js';
import type { NatsServer } from '../agenttest/nats-server.js';
import { ConnError } from './errors.js';
import { connectNats, connectionOptions } from './nats-connect.js';
import { loadNatsContext, natsContextDir } from './nats-context.js';
import { eventually } from '../agenttest/eventually.js';

let home: string;
let env: Record<string, string>;
const write = (name: string, body: unknown): void => {
  const dir = natsContextDir(env);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.json`), typeof body === 'string' ? body : JSON.stringify(body));
};
function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return err instanceof ConnError ? `${err.code}: ${err.message}` : String(err);
  }
  return 'ok';
}

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'fisk-conns-'));
  env = { HOME: home, XDG_CONFIG_HOME: join(home, 'xdg') };
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('NATS contexts', () => {
  it('honours XDG_CONFIG_HOME and falls back to ~/.config', () => {
    expect(natsContextDir(env)).toBe(join(home, 'xdg', 'nats', 'context'));
    expect(natsContextDir({ HOME: home })).toBe(join(home, '.config', 'nats', 'context'));
    expect(natsContextDir({ HOME: home, XDG_CONFIG_HOME: 'relative' })).toBe(join(home, '.config', 'nats', 'context'));
  });

  it('reads every supported field, expanding ~ in paths', () => {
    write('full', {
      description: 'd',
      url: 'nats://a:4222, nats://b:4222',
      token: 't',
      user: 'u',
      password: 'p',
      creds: '~/x.creds',
      cert: '/c.pem',
      key: '/k.pem',
      ca: '/ca.pem',
      inbox_prefix: '_INBOX_me',
      jetstream_domain: 'hub',
      jetstream_api_prefix: '',
      tls_first: true,
      nsc: '',
      color_scheme: 'dark',
    });
    const ctx = loadNatsContext('full', env);
    expect(ctx).toMatchObject({
      servers: ['nats://a:4222', 'nats://b:4222'],
      token: 't',
      user: 'u',
      password: 'p',
      creds: join(home, 'x.creds'),
      cert: '/c.pem',
      inboxPrefix: '_INBOX_me',
      jetstreamDomain: 'hub',
      tlsFirst: true,
    });
    expect(ctx.jetstreamApiPrefix).toBeUndefined();
    const withoutCreds = { ...ctx, creds: undefined } as unknown as typeof ctx;
    const opts = connectionOptions(withoutCreds, { name: 'fisk-ai x' });
    expect(opts).toMatchObject({ token: 't', user: 'u', pass: 'p', inboxPrefix: '_INBOX_me', name: 'fisk-ai x' });
    expect(opts.tls).toEqual({ certFile: '/c.pem', keyFile: '/k.pem', caFile: '/ca.pem', handshakeFirst: true });
  });

  it('refuses a path-like name, a missing file, bad JSON, wrong types and unsupported fields', () => {
    expect(codeOf(() => loadNatsContext('../x', env))).toMatch(/^context_invalid/);
    expect(codeOf(() => loadNatsContext('absent', env))).toMatch(/^context_not_found: .*absent.json does not exist.*nats context save/);
    write('badjson', '{');
    expect(codeOf(() => loadNatsContext('badjson', env))).toMatch(/^context_invalid: .*not valid JSON/);
    write('badtype', { url: 5 });
    expect(codeOf(() => loadNatsContext('badtype', env))).toMatch(/url must be a string/);
    write('proxy', { url: 'nats://x', socks_proxy: 'socks5://p' });
    expect(codeOf(() => loadNatsContext('proxy', env))).toMatch(/sets socks_proxy/);
  });

  it('refuses a creds file it cannot read, without printing secrets', () => {
    write('nocreds', { url: 'nats://x', creds: '/nonexistent/a.creds', password: 'hunter2' });
    const msg = codeOf(() => connectionOptions(loadNatsContext('nocreds', env)));
    expect(msg).toMatch(/cannot read its creds file/);
    expect(msg).not.toContain('hunter2');
  });
});

describe('connecting', () => {
  let nats: NatsServer;
  beforeAll(async () => {
    nats = await startNatsServer();
  }, 20_000);
  afterAll(async () => nats.stop());

  it('connects through a context with an inbox prefix', async () => {
    write('local', { url: nats.url, inbox_prefix: '_INBOX_fisk' });
    const conn = await connectNats('local', { env, name: 'fisk-ai test' });
    try {
      const sub = conn.connection.subscribe('echo');
      void (async () => {
        for await (const m of sub) m.respond(m.data);
      })();
      const reply = await conn.connection.request('echo', 'hi');
      expect(reply.subject.startsWith('_INBOX_fisk')).toBe(true);
      expect(reply.string()).toBe('hi');
    } finally {
      await conn.connection.close();
    }
  });

  it('says which context could not connect, hiding userinfo', async () => {
    const port = await freePort();
    write('down', { url: `nats://me:secret@127.0.0.1:${port}` });
    const err = await connectNats('down', { env, timeoutMs: 500 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnError);
    expect((err as ConnError).code).toBe('unreachable');
    expect((err as Error).message).toContain('"down"');
    expect((err as Error).message).not.toContain('secret');
  });

  it('authenticates with a token from the context', async () => {
    const port = await freePort();
    const store = mkdtempSync(join(tmpdir(), 'fisk-nats-tok-'));
    const proc = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), '--auth', 's3cret'], { stdio: 'ignore' });
    try {
      await eventually(
        () =>
          new Promise<boolean>((resolve) => {
            const s = rawConnect({ host: '127.0.0.1', port });
            s.once('connect', () => (s.destroy(), resolve(true)));
            s.once('error', () => resolve(false));
          }),
        'the token-guarded nats-server to accept connections',
        { intervalMs: 50 },
      );
      write('tok', { url: `nats://127.0.0.1:${port}`, token: 's3cret' });
      const conn = await connectNats('tok', { env });
      expect(conn.connection.isClosed()).toBe(false);
      await conn.connection.close();
      write('notok', { url: `nats://127.0.0.1:${port}`, token: 'wrong' });
      const err = await connectNats('notok', { env, timeoutMs: 1000 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConnError);
      expect((err as Error).message).not.toContain('wrong');
    } finally {
      proc.kill('SIGKILL');
      rmSync(store, { recursive: true, force: true });
    }
  }, 20_000);
});
