/**
 * The OAuth layer of one `mcp_clients` entry: its provider (backed by the state file for a login,
 * by memory for client credentials), the client secret read from the variable the entry names, and
 * the fetch layer that applies them.
 */
import { readFileSync } from 'node:fs';
import type { McpClientConfig, McpOAuthConfig } from '../../../config/types.js';
import type { SigningKey } from './client-assertion.js';
import { loadSigningKey } from './client-assertion.js';
import type { IdentityProvider } from './cross-app.js';
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

type Env = OAuthSetupOptions['env'];

/** The value of the variable `name` that `key` names; throws saying what to export. */
function secretFromEnv(env: Env, name: string, key: string, what: string): string {
  const value = env[name];
  if (value === undefined || value === '')
    throw new Error(`${key} names ${name}, which is not set in the environment; export ${what} there`);
  return value;
}

function secretFromFile(file: string, key: string, what: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? String(err.code) : 'unreadable';
    throw new Error(`${key} ${file} cannot be read (${code}); put ${what} there`, { cause: err });
  }
  if (text.trim() === '') throw new Error(`${key} ${file} is empty; put ${what} there`);
  return text;
}

/** The private key of `private_key_jwt`, read and checked, with its text for redaction. */
function signingKeyFor(oauth: McpOAuthConfig, key: string, env: Env): { signingKey: SigningKey; keyMaterial: string } | undefined {
  const pk = oauth.privateKey;
  if (pk === undefined) return undefined;
  const what = "the client's private key (PEM or JWK)";
  const [where, text] =
    pk.env !== undefined
      ? [`${key}.private_key_env`, secretFromEnv(env, pk.env, `${key}.private_key_env`, what)]
      : [`${key}.private_key_file`, secretFromFile(pk.file ?? '', `${key}.private_key_file`, what)];
  return { signingKey: loadSigningKey(text, where, pk.algorithm, pk.keyId, `${key}.signing_algorithm`), keyMaterial: text };
}

/** The identity provider of `cross_app_access`, with its secret and (from a variable) the ID token. */
function identityProviderFor(oauth: McpOAuthConfig, key: string, env: Env): IdentityProvider | undefined {
  const idp = oauth.idp;
  if (idp === undefined) return undefined;
  const k = `${key}.idp`;
  const clientSecret =
    idp.clientSecretEnv === undefined
      ? undefined
      : secretFromEnv(env, idp.clientSecretEnv, `${k}.client_secret_env`, 'the client secret at the identity provider');
  const idToken =
    idp.idTokenEnv === undefined ? undefined : secretFromEnv(env, idp.idTokenEnv, `${k}.id_token_env`, "this agent's ID token");
  if (idp.idTokenFile !== undefined) secretFromFile(idp.idTokenFile, `${k}.id_token_file`, "this agent's ID token");
  const idpFetch = (input: string | URL, init?: RequestInit): Promise<Response> => fetch(input, init);
  return { config: idp, key: k, clientSecret, idToken: idToken?.trim(), fetch: idpFetch };
}

/** Builds the layer; throws naming the key when a secret's variable is not set or its file cannot be read, or the private key is unusable. */
export function oauthLayerFor(entry: McpClientConfig, key: string, serverUrl: URL, opts: OAuthSetupOptions): OAuthLayer | undefined {
  const oauth = entry.oauth;
  if (oauth === undefined) return undefined;
  const k = `${key}.oauth`;
  const clientSecret =
    oauth.clientSecretEnv === undefined
      ? undefined
      : secretFromEnv(opts.env, oauth.clientSecretEnv, `${k}.client_secret_env`, 'the client secret');
  const signing = signingKeyFor(oauth, k, opts.env);
  const file = oauth.grant === 'authorization_code' ? oauthStateFileFor(entry, serverUrl, opts.env) : undefined;
  const provider = new FiskOAuthProvider({
    server: entry.name,
    serverUrl,
    oauth,
    clientSecret,
    signingKey: signing?.signingKey,
    keyMaterial: signing?.keyMaterial,
    idp: identityProviderFor(oauth, k, opts.env),
    file,
    loginRedirect: opts.authorizer?.redirectUrl,
    clientName: opts.clientName,
  });
  // the authorization server is reached without the MCP server's headers: they are not its to see
  const authFetch = (input: string | URL, init?: RequestInit): Promise<Response> => fetch(input, init);
  return { fetch: oauthFetch(entry.name, serverUrl, provider, authFetch, opts.authorizer), provider, file };
}
