/**
 * An OAuth-protected MCP server for the login tests, built from the SDK's own server auth helpers:
 * `mcpAuthRouter` (authorization server metadata, dynamic registration, authorize, token) and
 * `requireBearerAuth` in front of a streamable HTTP endpoint (protected resource metadata in its
 * 401). Authorization is granted at once, as a person clicking "allow" would. Not exported from the
 * module index.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import express from 'express';
import type { Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { freePort } from '../test-support.js';

interface Grant {
  readonly clientId: string;
  readonly scopes: string[];
}

/** What the server counted, for assertions. */
export interface AuthServerCounts {
  registrations: number;
  authorizations: number;
  codeExchanges: number;
  refreshes: number;
}

/** The running server. */
export interface TestAuthServer {
  /** The MCP endpoint, `/mcp`. */
  readonly url: string;
  readonly counts: AuthServerCounts;
  /** Every access token ever issued. */
  readonly issued: readonly string[];
  /** Forgets every token it issued, as a server does when a login is revoked. */
  revokeAll(): void;
  /** Forgets the access tokens only, as when they expire: refresh tokens still work. */
  expireAccessTokens(): void;
  stop(): Promise<void>;
}

class MemoryProvider implements OAuthServerProvider {
  readonly counts: AuthServerCounts = { registrations: 0, authorizations: 0, codeExchanges: 0, refreshes: 0 };
  readonly issued: string[] = [];
  readonly #clients = new Map<string, OAuthClientInformationFull>();
  readonly #codes = new Map<string, { grant: Grant; challenge: string; redirectUri: string }>();
  readonly #access = new Map<string, Grant & { expiresAt: number }>();
  readonly refreshTokens = new Map<string, Grant>();
  readonly #lifetimeSeconds: number;
  readonly #advertisedSeconds: number;

  constructor(lifetimeSeconds: number, advertisedSeconds: number) {
    this.#lifetimeSeconds = lifetimeSeconds;
    this.#advertisedSeconds = advertisedSeconds;
  }

  get clientsStore(): OAuthRegisteredClientsStore {
    return {
      getClient: (id) => this.#clients.get(id),
      registerClient: (client) => {
        this.counts.registrations++;
        const full = {
          ...client,
          client_id: randomUUID(),
          client_id_issued_at: Math.floor(Date.now() / 1000),
        } as OAuthClientInformationFull;
        this.#clients.set(full.client_id, full);
        return full;
      },
    };
  }

  authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    this.counts.authorizations++;
    const code = randomBytes(16).toString('hex');
    this.#codes.set(code, {
      grant: { clientId: client.client_id, scopes: params.scopes ?? [] },
      challenge: params.codeChallenge,
      redirectUri: params.redirectUri,
    });
    const back = new URL(params.redirectUri);
    back.searchParams.set('code', code);
    if (params.state !== undefined) back.searchParams.set('state', params.state);
    res.redirect(back.href);
    return Promise.resolve();
  }

  challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const found = this.#codes.get(code);
    if (found === undefined) throw new InvalidGrantError('unknown code');
    return Promise.resolve(found.challenge);
  }

  #tokens(grant: Grant): OAuthTokens {
    const access = `at-${randomBytes(12).toString('hex')}`;
    const refresh = `rt-${randomBytes(12).toString('hex')}`;
    this.issued.push(access);
    this.#access.set(access, { ...grant, expiresAt: Date.now() / 1000 + this.#lifetimeSeconds });
    this.refreshTokens.set(refresh, grant);
    return {
      access_token: access,
      token_type: 'bearer',
      expires_in: this.#advertisedSeconds,
      refresh_token: refresh,
      scope: grant.scopes.join(' '),
    };
  }

  exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const found = this.#codes.get(code);
    if (found === undefined || found.grant.clientId !== client.client_id) throw new InvalidGrantError('unknown code');
    this.#codes.delete(code);
    this.counts.codeExchanges++;
    return Promise.resolve(this.#tokens(found.grant));
  }

  exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    const grant = this.refreshTokens.get(refreshToken);
    if (grant === undefined || grant.clientId !== client.client_id) throw new InvalidGrantError('unknown refresh token');
    this.refreshTokens.delete(refreshToken);
    this.counts.refreshes++;
    return Promise.resolve(this.#tokens(grant));
  }

  expireAccessTokens(): void {
    this.#access.clear();
  }

  revokeAll(): void {
    this.refreshTokens.clear();
    this.#access.clear();
  }

  verifyAccessToken(token: string): Promise<AuthInfo> {
    const found = this.#access.get(token);
    if (found === undefined) throw new InvalidTokenError('unknown token');
    return Promise.resolve({ token, clientId: found.clientId, scopes: found.scopes, expiresAt: found.expiresAt });
  }
}

/**
 * Starts the server on a free loopback port. Access tokens are honoured for `lifetimeSeconds` and
 * issued saying `expires_in: advertisedSeconds` (0 makes every client refresh before each request).
 */
export async function startTestAuthServer(
  options: { readonly lifetimeSeconds?: number; readonly advertisedSeconds?: number } = {},
): Promise<TestAuthServer> {
  const lifetime = options.lifetimeSeconds ?? 3600;
  const provider = new MemoryProvider(lifetime, options.advertisedSeconds ?? lifetime);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  const app = express();
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: mcpUrl, scopesSupported: ['tools'] }));
  const guard = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
  app.post('/mcp', guard, express.json(), (req, res) => {
    void (async () => {
      const server = new McpServer({ name: 'guarded', version: '1.0.0' });
      server.registerTool('whoami', { description: 'names the client the token was issued to' }, (extra) => ({
        content: [{ type: 'text' as const, text: `client ${extra.authInfo?.clientId ?? 'nobody'}` }],
      }));
      const transport = new StreamableHTTPServerTransport({});
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    })();
  });
  // stateless: no event stream to hold open, no session to end
  app.all('/mcp', (_req, res) => void res.status(405).set('allow', 'POST').end());
  const http: Server = await new Promise((resolve) => {
    const s = app.listen(port, '127.0.0.1', () => resolve(s));
  });
  return {
    url: mcpUrl.href,
    counts: provider.counts,
    issued: provider.issued,
    revokeAll: () => provider.revokeAll(),
    expireAccessTokens: () => provider.expireAccessTokens(),
    stop: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
