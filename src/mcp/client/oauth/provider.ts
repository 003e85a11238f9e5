/**
 * The SDK's `OAuthClientProvider` for one MCP server: what the SDK's `auth()` reads and writes
 * while it discovers the authorization server, registers this client, runs the authorization code
 * flow with PKCE, refreshes tokens or fetches them with client credentials. Logins live in an
 * `OAuthStateFile`; client-credentials tokens only in memory, since they can be fetched again at
 * any time.
 */
import { randomBytes } from 'node:crypto';
import type { AddClientAuthentication, OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { McpOAuthConfig } from '../../../config/types.js';
import type { SigningKey } from './client-assertion.js';
import { privateKeyJwtAuth } from './client-assertion.js';
import type { IdentityProvider } from './cross-app.js';
import { currentIdToken, exchangeForIdJag, JWT_BEARER_GRANT, jwtBearerRequest } from './cross-app.js';
import { McpLoginRequired } from './login-required.js';
import type { OAuthState, OAuthStateFile } from './state-file.js';

/** Stands in for the redirect URI outside a login, so `auth()` refreshes instead of treating the flow as unattended. */
const NO_LOGIN_REDIRECT = 'http://127.0.0.1/callback';

/** What a provider is built from. */
export interface ProviderOptions {
  readonly server: string;
  /** The MCP server's URL, the resource an ID-JAG names when the server publishes no metadata. */
  readonly serverUrl: URL;
  readonly oauth: McpOAuthConfig;
  /** The client secret, already read from `oauth.client_secret_env`. */
  readonly clientSecret: string | undefined;
  /** The private key of `private_key_jwt`, and its text as read (a secret to redact). */
  readonly signingKey: SigningKey | undefined;
  readonly keyMaterial: string | undefined;
  /** The identity provider of `cross_app_access`. */
  readonly idp: IdentityProvider | undefined;
  /** The stored login; undefined for client credentials. */
  readonly file: OAuthStateFile | undefined;
  /** Set during a login: the loopback address the browser comes back to. */
  readonly loginRedirect: string | undefined;
  readonly clientName: string;
}

/** An `OAuthClientProvider` backed by this server's state file. */
export class FiskOAuthProvider implements OAuthClientProvider {
  readonly #o: ProviderOptions;
  #memory: OAuthState = { server_url: '' };
  #verifier: string | undefined;
  #state: string | undefined;
  #authorizationUrl: URL | undefined;
  #discovery: OAuthDiscoveryState | undefined;
  /** The last client assertion, ID token and ID-JAG this provider used: secrets while they live. */
  readonly #used = new Map<'assertion' | 'idToken' | 'idJag', string>();

  /** A client ID metadata document URL, offered to servers that take one instead of registration. */
  readonly clientMetadataUrl?: string;
  /** Signs a client assertion into every token request when the client authenticates with a private key. */
  readonly addClientAuthentication?: AddClientAuthentication;

  constructor(options: ProviderOptions) {
    this.#o = options;
    if (options.oauth.clientMetadataUrl !== undefined) this.clientMetadataUrl = options.oauth.clientMetadataUrl;
    const clientId = options.oauth.clientId;
    if (options.signingKey !== undefined && clientId !== undefined) {
      this.addClientAuthentication = privateKeyJwtAuth(options.signingKey, clientId, (a) => this.#used.set('assertion', a));
    }
  }

  get grant(): McpOAuthConfig['grant'] {
    return this.#o.oauth.grant;
  }

  /** Whether tokens are fetched without a person (client credentials, cross-app access). */
  get unattended(): boolean {
    return this.#o.oauth.grant !== 'authorization_code';
  }

  /** Whether a person can be sent to the authorization server now (a login is running). */
  get interactive(): boolean {
    return this.#o.loginRedirect !== undefined;
  }

  #read(): OAuthState {
    return this.#o.file?.read() ?? this.#memory;
  }

  #write(change: (state: OAuthState) => OAuthState): void {
    if (this.#o.file !== undefined) this.#o.file.update(change);
    else this.#memory = change(this.#memory);
  }

  get redirectUrl(): string | undefined {
    if (this.unattended) return undefined;
    return this.#o.loginRedirect ?? this.#read().redirect_uri ?? NO_LOGIN_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    const scope = this.#o.oauth.scopes.join(' ');
    const base = { client_name: this.#o.clientName, ...(scope === '' ? {} : { scope }) };
    if (this.#o.oauth.grant === 'client_credentials') return { ...base, redirect_uris: [], grant_types: ['client_credentials'] };
    if (this.#o.oauth.grant === 'cross_app_access') return { ...base, redirect_uris: [], grant_types: [JWT_BEARER_GRANT] };
    return {
      ...base,
      redirect_uris: [this.redirectUrl ?? NO_LOGIN_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    };
  }

  state(): string {
    this.#state = randomBytes(24).toString('base64url');
    return this.#state;
  }

  /** The `state` of the authorization request in flight, which the redirect must echo. */
  get pendingState(): string | undefined {
    return this.#state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const oauth = this.#o.oauth;
    if (oauth.clientId !== undefined)
      return { client_id: oauth.clientId, ...(this.#o.clientSecret === undefined ? {} : { client_secret: this.#o.clientSecret }) };
    const stored = this.#read().client_information;
    if (stored === undefined) return undefined;
    // a registration made for another loopback port would be refused at the redirect
    const uris = 'redirect_uris' in stored && Array.isArray(stored.redirect_uris) ? stored.redirect_uris.map(String) : [];
    const current = this.#o.loginRedirect;
    if (current !== undefined && uris.length > 0 && !uris.includes(current)) return undefined;
    return stored;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    if (this.#o.oauth.clientId !== undefined) return;
    const redirect = this.#o.loginRedirect;
    this.#write((s) => ({ ...s, client_information: info, ...(redirect === undefined ? {} : { redirect_uri: redirect }) }));
  }

  tokens(): OAuthTokens | undefined {
    return this.#read().tokens;
  }

  /** When the access token is due for refreshing (ms since the epoch), if the server said when it expires. */
  refreshDue(): number | undefined {
    return this.#read().expires_at;
  }

  saveTokens(tokens: OAuthTokens): void {
    // refreshed 30 s before expiry, or halfway through a lifetime shorter than a minute
    const lifetime = tokens.expires_in === undefined ? undefined : tokens.expires_in * 1000;
    const expiresAt = lifetime === undefined ? undefined : Date.now() + Math.max(lifetime - 30_000, lifetime / 2);
    this.#write((s) => {
      const { needed_scope: _settled, expires_at: _old, ...rest } = s;
      return { ...rest, tokens, ...(expiresAt === undefined ? {} : { expires_at: expiresAt }) };
    });
  }

  /** Records a scope the server demanded that only a new login can grant. */
  noteNeededScope(scope: string): void {
    this.#write((s) => ({ ...s, needed_scope: scope }));
  }

  /** The scope the next login asks for: a step-up the server demanded, else none (the SDK's own selection applies). */
  neededScope(): string | undefined {
    return this.#read().needed_scope;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    if (!this.interactive) throw new McpLoginRequired(this.#o.server, 'the server needs a person to authorize this agent');
    this.#authorizationUrl = authorizationUrl;
  }

  /** The authorization URL `auth()` produced, taken once. */
  takeAuthorizationUrl(): URL | undefined {
    const url = this.#authorizationUrl;
    this.#authorizationUrl = undefined;
    return url;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) throw new Error('no PKCE code verifier: the authorization was not started by this process');
    return this.#verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    switch (scope) {
      case 'all':
        this.#verifier = undefined;
        this.#write((s) => ({ server_url: s.server_url }));
        return;
      case 'client':
        this.#write(({ client_information: _gone, ...rest }) => rest);
        return;
      case 'tokens':
        this.#write(({ tokens: _gone, expires_at: _when, ...rest }) => rest);
        return;
      case 'verifier':
        this.#verifier = undefined;
        return;
      case 'discovery':
        return;
      default: {
        const never: never = scope;
        return never;
      }
    }
  }

  /** Kept for this process only: the ID-JAG's audience and resource come from it. */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
  }

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams | undefined> {
    const wanted = scope ?? this.#o.oauth.scopes.join(' ');
    if (this.#o.oauth.grant === 'cross_app_access') return jwtBearerRequest(await this.#idJag(wanted), wanted);
    if (this.#o.oauth.grant !== 'client_credentials') return undefined;
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    if (wanted !== '') params.set('scope', wanted);
    return params;
  }

  /** An ID-JAG for this server's authorization server, from the identity provider. */
  async #idJag(scope: string): Promise<string> {
    const idp = this.#o.idp;
    if (idp === undefined) throw new Error(`${this.#o.server}: cross_app_access has no identity provider configured`);
    const discovery = this.#discovery;
    const audience = discovery?.authorizationServerMetadata?.issuer ?? discovery?.authorizationServerUrl;
    if (audience === undefined)
      throw new Error(`${this.#o.server}: the authorization server was not discovered, so no ID-JAG can be addressed to it`);
    const idToken = currentIdToken(idp);
    this.#used.set('idToken', idToken);
    const resource = discovery?.resourceMetadata?.resource ?? this.#o.serverUrl.href;
    const idJag = await exchangeForIdJag(idp, idToken, { audience, resource, scope: scope === '' ? undefined : scope });
    this.#used.set('idJag', idJag);
    return idJag;
  }

  /** Every secret this provider holds now, to redact from anything printed. */
  secrets(): string[] {
    const state = this.#read();
    const info = this.clientInformation();
    const out = [
      state.tokens?.access_token,
      state.tokens?.refresh_token,
      state.tokens?.id_token,
      this.#o.clientSecret,
      info !== undefined && 'client_secret' in info ? info.client_secret : undefined,
      this.#o.keyMaterial,
      this.#o.keyMaterial?.trim(),
      this.#o.idp?.clientSecret,
      this.#o.idp?.idToken,
      ...this.#used.values(),
    ];
    return out.filter((v): v is string => typeof v === 'string' && v.length >= 8);
  }
}
