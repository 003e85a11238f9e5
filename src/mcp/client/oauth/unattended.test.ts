/**
 * The unattended grants end to end through the OAuth layer, against a real loopback authorization
 * server and identity provider: private_key_jwt client credentials (the assertion checked with the
 * registered public key) and cross-app access (ID token → ID-JAG at the identity provider → JWT
 * bearer grant), from agent.yaml through the real configuration funnel. Also what is refused and
 * what is kept out of printed text.
 */
import { generateKeyPairSync, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { credentialEnvNames, parseConfigForMode } from '../../../config/index.js';
import { redactSecrets } from '../../../config/expand.js';
import { freePort } from '../test-support.js';
import { loginMcpServer } from './login.js';
import type { OAuthAuthorizer } from './oauth-fetch.js';
import { oauthLayerFor } from './setup.js';
import type { OAuthLayer } from './setup.js';

const CLIENT = 'fisk-worker';
const SECRET = 'as-client-secret-value';
const IDP_CLIENT = 'fisk-agent-at-idp';
const IDP_SECRET = 'idp-client-secret-value';

interface Seen {
  assertions: string[];
  exchanges: URLSearchParams[];
  bearerGrants: number;
  idTokens: Set<string>;
  access: Set<string>;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

async function form(req: IncomingMessage): Promise<URLSearchParams> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return new URLSearchParams(text);
}

function basic(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization ?? '';
  return h.startsWith('Basic ') ? Buffer.from(h.slice(6), 'base64').toString() : undefined;
}

/** Checks an ES256 client assertion the way an authorization server does. */
function validAssertion(jwt: string, publicKey: KeyObject, issuer: string): boolean {
  const [h, c, s] = jwt.split('.');
  const ok = verify('sha256', Buffer.from(`${h}.${c}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(s ?? '', 'base64url'));
  const claims = JSON.parse(Buffer.from(c ?? '', 'base64url').toString()) as Record<string, unknown>;
  return (
    ok && claims['iss'] === CLIENT && claims['sub'] === CLIENT && claims['aud'] === issuer && Number(claims['exp']) > Date.now() / 1000
  );
}

class AuthWorld {
  readonly seen: Seen = { assertions: [], exchanges: [], bearerGrants: 0, idTokens: new Set(['id-token-first-0001']), access: new Set() };
  readonly key = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  #server: Server | undefined;
  base = '';

  async start(): Promise<void> {
    const port = await freePort();
    this.base = `http://127.0.0.1:${port}`;
    this.#server = createServer((req, res) => void this.#handle(req, res));
    await new Promise<void>((resolve) => this.#server?.listen(port, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()));
  }

  #issue(res: ServerResponse): void {
    const token = `at-${this.seen.access.size}-${Math.random().toString(36).slice(2)}`;
    this.seen.access.add(token);
    json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600 });
  }

  async #token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await form(req);
    const grant = body.get('grant_type');
    if (grant === 'client_credentials' || grant === 'authorization_code' || grant === 'refresh_token') {
      if (grant === 'authorization_code' && body.get('code') !== 'the-code') return json(res, 400, { error: 'invalid_grant' });
      const assertion = body.get('client_assertion') ?? '';
      this.seen.assertions.push(assertion);
      if (
        body.get('client_assertion_type') !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' ||
        !validAssertion(assertion, this.key.publicKey, this.base)
      ) {
        return json(res, 401, { error: 'invalid_client', error_description: 'the assertion does not verify' });
      }
      return this.#issue(res);
    }
    if (body.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      this.seen.bearerGrants++;
      if (basic(req) !== `${CLIENT}:${SECRET}` || !(body.get('assertion') ?? '').startsWith('idjag-'))
        return json(res, 400, { error: 'invalid_grant' });
      return this.#issue(res);
    }
    json(res, 400, { error: 'unsupported_grant_type' });
  }

  async #idp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await form(req);
    this.seen.exchanges.push(body);
    if (basic(req) !== `${IDP_CLIENT}:${IDP_SECRET}`) return json(res, 401, { error: 'invalid_client' });
    if (!this.seen.idTokens.has(body.get('subject_token') ?? ''))
      return json(res, 400, { error: 'invalid_grant', error_description: 'the ID token is not valid' });
    json(res, 200, {
      access_token: `idjag-grant-${this.seen.exchanges.length}`,
      issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      token_type: 'N_A',
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', this.base).pathname;
    if (path === '/.well-known/oauth-protected-resource/mcp')
      return json(res, 200, { resource: `${this.base}/mcp`, authorization_servers: [this.base] });
    if (path === '/.well-known/oauth-authorization-server') {
      return json(res, 200, {
        issuer: this.base,
        authorization_endpoint: `${this.base}/authorize`,
        token_endpoint: `${this.base}/token`,
        response_types_supported: ['code'],
        grant_types_supported: ['client_credentials', 'urn:ietf:params:oauth:grant-type:jwt-bearer'],
        token_endpoint_auth_methods_supported: ['private_key_jwt', 'client_secret_basic'],
      });
    }
    if (path === '/authorize') {
      const query = new URL(req.url ?? '/', this.base).searchParams;
      const back = new URL(query.get('redirect_uri') ?? '');
      back.searchParams.set('code', 'the-code');
      back.searchParams.set('state', query.get('state') ?? '');
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (path === '/token') return this.#token(req, res);
    if (path === '/idp/token') return this.#idp(req, res);
    if (path === '/mcp') {
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (this.seen.access.has(token)) return json(res, 200, { ok: true });
      return json(
        res,
        401,
        { error: 'invalid_token' },
        { 'www-authenticate': `Bearer resource_metadata="${this.base}/.well-known/oauth-protected-resource/mcp"` },
      );
    }
    json(res, 404, {});
  }
}

const world = new AuthWorld();
let dir: string | undefined;

beforeAll(async () => {
  await world.start();
});
afterAll(async () => {
  await world.stop();
});
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** The OAuth layer of one entry, built in a fresh agent directory holding `files`. */
function layer(
  oauth: Record<string, unknown>,
  env: Record<string, string | undefined>,
  files: Record<string, string> = {},
  authorizer?: OAuthAuthorizer,
): OAuthLayer {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = mkdtempSync(join(tmpdir(), 'fisk-unattended-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text, { mode: 0o600 });
  const yaml = JSON.stringify({ mcp_clients: [{ name: 'tickets', url: `${world.base}/mcp`, oauth }] });
  const config = parseConfigForMode({ text: yaml, name: 'agent.yaml', baseDir: dir }, 'info');
  const entry = config.mcpClients[0];
  if (entry === undefined) throw new Error('no entry');
  const made = oauthLayerFor(entry, 'mcp_clients[0]', new URL(`${world.base}/mcp`), {
    env: { XDG_STATE_HOME: dir, ...env },
    clientName: 'fisk-ai',
    ...(authorizer === undefined ? {} : { authorizer }),
  });
  if (made === undefined) throw new Error('no oauth layer');
  return made;
}

async function call(l: OAuthLayer): Promise<number> {
  const res = await l.fetch.wrap(fetch)(`${world.base}/mcp`, { method: 'POST', body: '{}' });
  await res.body?.cancel();
  return res.status;
}

const pem = (): string => world.key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

describe('client credentials with private_key_jwt', () => {
  it('authenticates with an assertion signed by the key in a file next to agent.yaml, and redacts the key and the assertion', async () => {
    expect(() => layer({ grant: 'client_credentials', client_id: CLIENT, private_key_file: 'missing.pem' }, {})).toThrow(
      /mcp_clients\[0\]\.oauth\.private_key_file .*missing\.pem cannot be read \(ENOENT\)/,
    );
    const withFile = layer({ grant: 'client_credentials', client_id: CLIENT, private_key_file: 'worker.pem' }, {}, { 'worker.pem': pem() });
    const before = world.seen.assertions.length;
    expect(await call(withFile)).toBe(200);
    expect(world.seen.assertions.length).toBe(before + 1);
    const assertion = world.seen.assertions.at(-1) ?? '';
    const secrets = withFile.provider.secrets();
    expect(secrets).toContain(assertion);
    const printed = redactSecrets(`key ${pem()} assertion ${assertion}`, secrets);
    expect(printed).not.toContain('PRIVATE KEY');
    expect(printed).not.toContain(assertion);
  });

  it('takes the key from a variable, which joins the credentials withheld from children', async () => {
    const l = layer(
      { grant: 'client_credentials', client_id: CLIENT, private_key_env: 'WORKER_KEY', signing_algorithm: 'ES256', key_id: 'k1' },
      { WORKER_KEY: pem() },
    );
    expect(await call(l)).toBe(200);
    const header = JSON.parse(Buffer.from((world.seen.assertions.at(-1) ?? '').split('.')[0] ?? '', 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(header).toEqual({ alg: 'ES256', typ: 'JWT', kid: 'k1' });
    const config = parseConfigForMode(
      {
        text: JSON.stringify({
          mcp_clients: [
            { name: 't', url: 'https://x/mcp', oauth: { grant: 'client_credentials', client_id: CLIENT, private_key_env: 'WORKER_KEY' } },
          ],
        }),
        name: 'agent.yaml',
      },
      'info',
    );
    expect(credentialEnvNames(config)).toContain('WORKER_KEY');
  });

  it('fails when the server holds another key, without printing the key', async () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const l = layer({ grant: 'client_credentials', client_id: CLIENT, private_key_env: 'WORKER_KEY' }, { WORKER_KEY: other });
    const err: unknown = await call(l).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(String(err)).not.toContain('PRIVATE KEY');
  });

  it('signs the code exchange of a pre-registered client that logs in', async () => {
    // a person clicking "allow": the authorization server's redirect is followed and its code returned
    const authorizer: OAuthAuthorizer = {
      redirectUrl: 'http://127.0.0.1:1/callback',
      authorize: async (url) => {
        const res = await fetch(url, { redirect: 'manual' });
        return new URL(res.headers.get('location') ?? '').searchParams.get('code') ?? '';
      },
    };
    const l = layer({ client_id: CLIENT, private_key_env: 'WORKER_KEY' }, { WORKER_KEY: pem() }, {}, authorizer);
    const before = world.seen.assertions.length;
    expect(await call(l)).toBe(200);
    expect(world.seen.assertions.length).toBe(before + 1);
  });

  it('refuses an unset variable, a key of the wrong kind and an algorithm the key cannot sign, naming the key', () => {
    expect(() => layer({ grant: 'client_credentials', client_id: CLIENT, private_key_env: 'WORKER_KEY' }, {})).toThrow(
      /mcp_clients\[0\]\.oauth\.private_key_env names WORKER_KEY, which is not set/,
    );
    expect(() =>
      layer({ grant: 'client_credentials', client_id: CLIENT, private_key_env: 'WORKER_KEY' }, { WORKER_KEY: 'just-some-text-here' }),
    ).toThrow(/private_key_env does not hold a private key/);
    expect(() =>
      layer(
        { grant: 'client_credentials', client_id: CLIENT, private_key_env: 'WORKER_KEY', signing_algorithm: 'RS256' },
        { WORKER_KEY: pem() },
      ),
    ).toThrow(/mcp_clients\[0\]\.oauth\.signing_algorithm is RS256/);
  });
});

describe('cross-app access', () => {
  const oauth = (idp: Record<string, unknown>): Record<string, unknown> => ({
    grant: 'cross_app_access',
    client_id: CLIENT,
    client_secret_env: 'AS_SECRET',
    scopes: ['tickets.read'],
    idp: { token_endpoint: `${world.base}/idp/token`, client_id: IDP_CLIENT, client_secret_env: 'IDP_SECRET', ...idp },
  });
  const env = { AS_SECRET: SECRET, IDP_SECRET: IDP_SECRET, ID_TOKEN: 'id-token-first-0001' };

  it('exchanges the ID token for an ID-JAG addressed to the authorization server and presents it as a JWT bearer grant', async () => {
    const l = layer(oauth({ id_token_env: 'ID_TOKEN' }), env);
    const grants = world.seen.bearerGrants;
    expect(await call(l)).toBe(200);
    const exchange = world.seen.exchanges.at(-1);
    expect(Object.fromEntries(exchange ?? [])).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      subject_token: 'id-token-first-0001',
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      audience: world.base,
      resource: `${world.base}/mcp`,
      scope: 'tickets.read',
    });
    expect(world.seen.bearerGrants).toBe(grants + 1);
    const secrets = l.provider.secrets();
    for (const s of ['id-token-first-0001', `idjag-grant-${world.seen.exchanges.length}`, SECRET, IDP_SECRET]) expect(secrets).toContain(s);
  });

  it('reads an ID token file at each exchange, so a renewed token is used', async () => {
    const again = layer(oauth({ id_token_file: 'id-token' }), env, { 'id-token': 'id-token-first-0001\n' });
    expect(await call(again)).toBe(200);
    world.seen.idTokens.add('id-token-renewed-0002');
    writeFileSync(join(dir ?? '', 'id-token'), 'id-token-renewed-0002\n');
    world.seen.access.clear();
    expect(await call(again)).toBe(200);
    expect(world.seen.exchanges.at(-1)?.get('subject_token')).toBe('id-token-renewed-0002');
  });

  it('says what the identity provider answered, without the ID token', async () => {
    const l = layer(oauth({ id_token_env: 'ID_TOKEN' }), { ...env, ID_TOKEN: 'id-token-revoked-0003' });
    const err: unknown = await call(l).catch((e: unknown) => e);
    const message = err instanceof Error ? err.message : String(err);
    expect(message).toMatch(
      /mcp_clients\[0\]\.oauth\.idp\.token_endpoint\) refused the token exchange: invalid_grant \(the ID token is not valid\)/,
    );
    expect(redactSecrets(message, l.provider.secrets())).not.toContain('id-token-revoked-0003');
  });

  it('is not logged in to', async () => {
    const config = parseConfigForMode(
      {
        text: JSON.stringify({ mcp_clients: [{ name: 't', url: `${world.base}/mcp`, oauth: oauth({ id_token_env: 'ID_TOKEN' }) }] }),
        name: 'agent.yaml',
      },
      'info',
    );
    const entry = config.mcpClients[0] ?? expect.fail('no entry');
    const ui = { show: (): void => undefined, open: (): void => undefined };
    await expect(loginMcpServer(entry, 0, { env, credentialEnvNames: [] }, ui)).rejects.toThrow(
      /mcp_clients\[0\]\.oauth\.grant is cross_app_access: the client authenticates by itself/,
    );
  });

  it('refuses an unset ID token variable or an unreadable file, naming the key, and all three variables are withheld', () => {
    expect(() => layer(oauth({ id_token_env: 'ID_TOKEN' }), { ...env, ID_TOKEN: undefined })).toThrow(
      /mcp_clients\[0\]\.oauth\.idp\.id_token_env names ID_TOKEN, which is not set/,
    );
    expect(() => layer(oauth({ id_token_file: 'nowhere' }), env)).toThrow(
      /mcp_clients\[0\]\.oauth\.idp\.id_token_file .*nowhere cannot be read/,
    );
    expect(() => layer(oauth({ id_token_env: 'ID_TOKEN' }), { ...env, IDP_SECRET: '' })).toThrow(/idp\.client_secret_env names IDP_SECRET/);
    const config = parseConfigForMode(
      {
        text: JSON.stringify({ mcp_clients: [{ name: 't', url: 'https://x/mcp', oauth: oauth({ id_token_env: 'ID_TOKEN' }) }] }),
        name: 'agent.yaml',
      },
      'info',
    );
    expect(credentialEnvNames(config)).toEqual(expect.arrayContaining(['AS_SECRET', 'IDP_SECRET', 'ID_TOKEN']));
  });
});
