/**
 * OAuth between the MCP transport and the network: every request to the server carries the
 * stored bearer token; a 401, or a 403 `insufficient_scope`, runs the SDK's `auth()` (discovery,
 * registration, refresh, client credentials, or the authorization code flow with PKCE when a
 * person is there to log in) and the request is sent once more. At the fetch level rather than
 * the transport's own `authProvider`, so the same code serves streamable HTTP and SSE, the
 * configured headers never travel to the authorization server, and a step-up in the middle of a
 * call can be completed instead of failing it.
 */
import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpLoginRequired } from './login-required.js';
import type { FiskOAuthProvider } from './provider.js';

/** A person logging in: shown the authorization URL, it brings back the code the redirect carried. */
export interface OAuthAuthorizer {
  /** The loopback URL the authorization server redirects the browser to. */
  readonly redirectUrl: string;
  /** Shows `url` (and opens a browser when there is one) and resolves with the code returned with `state`. */
  authorize(url: URL, state: string | undefined): Promise<string>;
}

/** The OAuth layer of one server's fetch. */
export interface OAuthFetch {
  readonly wrap: (next: FetchLike) => FetchLike;
  /** The last login this layer found necessary and could not do, for errors that lost their cause on the way up. */
  lastLoginRequired(): McpLoginRequired | undefined;
}

/** Builds the OAuth layer; `authFetch` is what talks to the authorization server (no MCP headers). */
export function oauthFetch(
  server: string,
  serverUrl: URL,
  provider: FiskOAuthProvider,
  authFetch: FetchLike,
  authorizer: OAuthAuthorizer | undefined,
): OAuthFetch {
  let lastStepUp: string | null | undefined;
  let loginRequired: McpLoginRequired | undefined;

  const needLogin = (why: string): never => {
    loginRequired = new McpLoginRequired(server, why);
    throw loginRequired;
  };

  const authorize = async (resourceMetadataUrl: URL | undefined, scope: string | undefined): Promise<void> => {
    const base = {
      serverUrl,
      fetchFn: authFetch,
      ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
      ...(scope === undefined ? {} : { scope }),
    };
    let result;
    try {
      result = await auth(provider, base);
    } catch (err) {
      if (err instanceof McpLoginRequired) loginRequired = err;
      throw err;
    }
    if (result === 'REDIRECT') {
      const url = provider.takeAuthorizationUrl();
      if (authorizer === undefined || url === undefined) return needLogin('the server needs a person to authorize this agent');
      const code = await authorizer.authorize(url, provider.pendingState);
      result = await auth(provider, { ...base, authorizationCode: code });
    }
    if (result !== 'AUTHORIZED') throw new Error('the authorization server did not authorize this agent');
  };

  // one authorization at a time: concurrent requests (a call and the event stream) must not both
  // spend the same refresh token, which a rotating server honours only once
  let inFlight: Promise<void> | undefined;
  const single = (run: () => Promise<void>): Promise<void> => {
    inFlight ??= run().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };

  const refreshIfDue = async (): Promise<void> => {
    if (inFlight !== undefined) await inFlight.catch(() => undefined);
    const tokens = provider.tokens();
    const due = provider.refreshDue();
    if (tokens === undefined || due === undefined || due > Date.now()) return;
    if (tokens.refresh_token === undefined && !provider.unattended) return;
    await single(() => authorize(undefined, undefined));
  };

  const wrap =
    (next: FetchLike): FetchLike =>
    async (input, init) => {
      await refreshIfDue();
      for (let attempt = 0; ; attempt++) {
        const headers = new Headers(init?.headers);
        const tokens = provider.tokens();
        if (tokens !== undefined) headers.set('Authorization', `Bearer ${tokens.access_token}`);
        const res = await next(input, { ...init, headers });
        if (res.status !== 401 && res.status !== 403) return res;
        const challenge = extractWWWAuthenticateParams(res);
        if (res.status === 403 && challenge.error !== 'insufficient_scope') return res;
        // one authorization per request: a server that refuses what it was just given is answered as it is
        if (attempt > 0) return res;
        if (res.status === 403) {
          // the same demand again after being satisfied once means no login will satisfy it
          const header = res.headers.get('www-authenticate');
          if (header === lastStepUp) return res;
          lastStepUp = header;
        }
        await res.body?.cancel();
        // another request renewed the token while this one was out: send it again with the new one
        if (res.status === 401 && provider.tokens()?.access_token !== tokens?.access_token) continue;
        const scope = provider.neededScope() ?? challenge.scope;
        if (!provider.interactive && !provider.unattended) {
          if (res.status === 403) {
            if (challenge.scope !== undefined) provider.noteNeededScope(challenge.scope);
            return needLogin(`the server asks for the scope "${challenge.scope ?? ''}", which the stored login does not grant`);
          }
          if (tokens === undefined) return needLogin('no login is stored for it');
          if (tokens.refresh_token === undefined) return needLogin('the stored login has expired and cannot be refreshed');
        }
        const wanted = res.status === 403 ? (challenge.scope ?? scope) : scope;
        await single(() => authorize(challenge.resourceMetadataUrl, wanted));
      }
    };

  return { wrap, lastLoginRequired: () => loginRequired };
}
