/**
 * The OAuth layer of one `mcp_clients` entry: its provider (backed by the state file for a login,
 * by memory for client credentials), the client secret read from the variable the entry names, and
 * the fetch layer that applies them.
 */
import type { McpClientConfig } from '../../../config/types.js';
import type { OAuthAuthorizer, OAuthFetch } from './oauth-fetch.js';
import { oauthFetch } from './oauth-fetch.js';
import { FiskOAuthProvider } from './provider.js';
import { OAuthStateFile, oauthStateDirectory, oauthStatePath } from './state-file.js';

/** What the OAuth layer of a server needs besides its entry. */
export interface OAuthSetupOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Present only while a person is logging in. */
  readonly authorizer?: OAuthAuthorizer;
  readonly clientName: string;
}

/** One server's OAuth layer. */
export interface OAuthLayer {
  readonly fetch: OAuthFetch;
  readonly provider: FiskOAuthProvider;
  /** Where a login is kept; undefined for client credentials. */
  readonly file: OAuthStateFile | undefined;
}

/** The stored login of `entry` at the resolved `serverUrl` (without userinfo). */
export function oauthStateFileFor(entry: McpClientConfig, serverUrl: URL, env: OAuthSetupOptions['env']): OAuthStateFile {
  return new OAuthStateFile(oauthStatePath(oauthStateDirectory(env), entry.name, serverUrl.href), serverUrl.href);
}

/** Builds the layer; throws naming the key when the secret variable is not set. */
export function oauthLayerFor(entry: McpClientConfig, key: string, serverUrl: URL, opts: OAuthSetupOptions): OAuthLayer | undefined {
  const oauth = entry.oauth;
  if (oauth === undefined) return undefined;
  let clientSecret: string | undefined;
  if (oauth.clientSecretEnv !== undefined) {
    clientSecret = opts.env[oauth.clientSecretEnv];
    if (clientSecret === undefined || clientSecret === '') {
      throw new Error(`${key}.oauth.client_secret_env names ${oauth.clientSecretEnv}, which is not set in the environment; export the client secret there`);
    }
  }
  const file = oauth.grant === 'client_credentials' ? undefined : oauthStateFileFor(entry, serverUrl, opts.env);
  const provider = new FiskOAuthProvider({
    server: entry.name,
    oauth,
    clientSecret,
    file,
    loginRedirect: opts.authorizer?.redirectUrl,
    clientName: opts.clientName,
  });
  // the authorization server is reached without the MCP server's headers: they are not its to see
  const authFetch = (input: string | URL, init?: RequestInit): Promise<Response> => fetch(input, init);
  return { fetch: oauthFetch(entry.name, serverUrl, provider, authFetch, opts.authorizer), provider, file };
}
