import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Outcome } from '../../../toolkit/tool.js';
import { McpClientError } from '../errors.js';
import { openMcpSessions } from '../sessions.js';
import { entry } from '../test-support.js';
import { loginMcpServer } from './login.js';
import type { LoginUi } from './login.js';
import { startTestAuthServer } from './test-auth-server.js';
import type { TestAuthServer } from './test-auth-server.js';

const signal = new AbortController().signal;

/** A browser that clicks "allow": follows the authorization URL to the loopback redirect. */
function browser(shown: string[]): LoginUi {
  return {
    show: (url) => shown.push(url.href),
    open: (url) => {
      void (async () => {
        const res = await fetch(url, { redirect: 'manual' });
        const location = res.headers.get('location');
        if (location !== null) await (await fetch(location)).text();
      })();
    },
  };
}

function output(o: Outcome): string {
  if (o.status !== 'completed') throw new Error('expected a completed outcome');
  return o.output;
}

async function failure(p: Promise<unknown>): Promise<McpClientError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof McpClientError) return err;
    throw err;
  }
  throw new Error('expected the import to fail');
}

describe('an OAuth-protected MCP server', () => {
  let server: TestAuthServer;
  let state: string;
  let env: Record<string, string | undefined>;
  const secure = (): ReturnType<typeof entry> =>
    entry({
      name: 'secure',
      transport: 'http',
      command: undefined,
      url: server.url,
      oauth: {
        grant: 'authorization_code',
        clientId: undefined,
        clientSecretEnv: undefined,
        scopes: [],
        redirectPort: 0,
        clientMetadataUrl: undefined,
        privateKey: undefined,
        idp: undefined,
      },
    });
  const opts = (): { env: Record<string, string | undefined>; credentialEnvNames: string[] } => ({ env, credentialEnvNames: [] });
  const stateFile = (): string => {
    const dir = join(state, 'fisk-ai', 'mcp-oauth');
    const [name] = readdirSync(dir);
    return join(dir, name ?? '');
  };

  beforeAll(async () => {
    // tokens said to expire at once: every request is preceded by a refresh
    server = await startTestAuthServer({ advertisedSeconds: 0 });
    state = mkdtempSync(join(tmpdir(), 'fisk-oauth-'));
    env = { ...process.env, XDG_STATE_HOME: state };
  });
  afterAll(async () => {
    await server.stop();
    rmSync(state, { recursive: true, force: true });
  });

  it('stops a run before any login, naming the command that logs in, and registers nothing', async () => {
    const err = await failure(openMcpSessions([secure()], opts()));
    expect(err.code).toBe('login');
    expect(err.message).toContain('fisk mcp login secure');
    expect(server.counts.registrations).toBe(0);
  });

  it('logs in through discovery, registration, PKCE and the loopback redirect, keeping the tokens 0600', async () => {
    const shown: string[] = [];
    const result = await loginMcpServer(secure(), 0, { ...opts(), signal }, browser(shown));
    expect(result.tools).toBe(1);
    expect(shown).toHaveLength(1);
    const url = new URL(shown[0] ?? '');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(url.searchParams.get('resource')).toBe(server.url);
    expect(server.counts).toMatchObject({ registrations: 1, authorizations: 1, codeExchanges: 1 });
    expect(result.file).toBe(stateFile());
    expect(statSync(result.file).mode & 0o777).toBe(0o600);
    expect(statSync(join(result.file, '..')).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(readFileSync(result.file, 'utf8')) as {
      tokens: { access_token: string; refresh_token: string };
      server_url: string;
    };
    expect(stored.server_url).toBe(server.url);
    expect(server.issued).toContain(stored.tokens.access_token);
  });

  it('runs on the stored login, refreshing the token when it is due and storing the new one', async () => {
    const before = JSON.parse(readFileSync(stateFile(), 'utf8')) as { tokens: { access_token: string } };
    const refreshes = server.counts.refreshes;
    const set = await openMcpSessions([secure()], opts());
    try {
      const whoami = set.sources()[0]?.tools.find((t) => t.name === 'whoami');
      expect(output(await (whoami ?? { execute: () => Promise.reject(new Error('no whoami')) }).execute('{}', {}, signal))).toMatch(
        /client [0-9a-f-]{36}/,
      );
    } finally {
      await set.close();
    }
    expect(server.counts.refreshes).toBeGreaterThan(refreshes);
    const after = JSON.parse(readFileSync(stateFile(), 'utf8')) as { tokens: { access_token: string } };
    expect(after.tokens.access_token).not.toBe(before.tokens.access_token);
    expect(statSync(stateFile()).mode & 0o777).toBe(0o600);
    expect(server.counts.authorizations).toBe(1);
  });

  it('refreshes when the server answers 401 to an expired token, and sends the request again', async () => {
    server.expireAccessTokens();
    const refreshes = server.counts.refreshes;
    const set = await openMcpSessions([secure()], opts());
    await set.close();
    expect(server.counts.refreshes).toBeGreaterThan(refreshes);
    expect(server.counts.authorizations).toBe(1);
  });

  it('asks for a new login once the server stops honouring the refresh token, and never prints a token', async () => {
    server.revokeAll();
    const err = await failure(openMcpSessions([secure()], opts()));
    expect(err.code).toBe('login');
    expect(err.message).toContain('run `fisk mcp login secure`');
    for (const token of server.issued) expect(err.message).not.toContain(token);
  });

  it('logs in again on the same loopback port, keeping its registration', async () => {
    const registrations = server.counts.registrations;
    await loginMcpServer(secure(), 0, { ...opts(), signal }, browser([]));
    expect(server.counts.registrations).toBe(registrations);
    const set = await openMcpSessions([secure()], opts());
    await set.close();
  });
});
