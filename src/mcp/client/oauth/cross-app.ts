/**
 * Enterprise-managed cross-app access: this agent's ID token from its identity provider is
 * exchanged there (RFC 8693 token exchange) for an identity assertion authorization grant, an
 * ID-JAG, addressed to the MCP server's authorization server and naming the server as resource;
 * the ID-JAG is then presented to that authorization server as a JWT bearer grant (RFC 7523).
 * Nothing here talks to the authorization server: the provider hands the grant to the SDK.
 */
import { readFileSync } from 'node:fs';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpOAuthIdpConfig } from '../../../config/types.js';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
export const ID_JAG_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';

/** The identity provider of one server, with its secrets already read. */
export interface IdentityProvider {
  readonly config: McpOAuthIdpConfig;
  /** The key of the `idp` block, for messages. */
  readonly key: string;
  readonly clientSecret: string | undefined;
  /** The ID token from `id_token_env`; undefined when it is read from `id_token_file` at each exchange. */
  readonly idToken: string | undefined;
  readonly fetch: FetchLike;
}

/** What one exchange asks for. */
export interface ExchangeRequest {
  /** The authorization server's issuer, the audience of the ID-JAG. */
  readonly audience: string;
  /** The MCP server's resource identifier. */
  readonly resource: string;
  readonly scope: string | undefined;
}

/** The ID token to exchange now: the variable's, or the file's current content. */
export function currentIdToken(idp: IdentityProvider): string {
  if (idp.idToken !== undefined) return idp.idToken;
  const file = idp.config.idTokenFile ?? '';
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? String(err.code) : 'unreadable';
    throw new Error(`${idp.key}.id_token_file ${file} cannot be read (${code}); write this agent's ID token there`, { cause: err });
  }
  if (text === '') throw new Error(`${idp.key}.id_token_file ${file} is empty; write this agent's ID token there`);
  return text;
}

function requestFor(idp: IdentityProvider, subjectToken: string, r: ExchangeRequest): { headers: Headers; body: URLSearchParams } {
  const body = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE_GRANT,
    requested_token_type: ID_JAG_TYPE,
    subject_token: subjectToken,
    subject_token_type: ID_TOKEN_TYPE,
    audience: r.audience,
    resource: r.resource,
  });
  if (r.scope !== undefined && r.scope !== '') body.set('scope', r.scope);
  const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' });
  const id = idp.config.clientId;
  if (id !== undefined && idp.clientSecret !== undefined) {
    headers.set(
      'authorization',
      `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(idp.clientSecret)}`).toString('base64')}`,
    );
  } else if (id !== undefined) {
    body.set('client_id', id);
  }
  return { headers, body };
}

function field(json: unknown, name: string): string | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const v = (json as Record<string, unknown>)[name];
  return typeof v === 'string' ? v : undefined;
}

/** Exchanges `idToken` for an ID-JAG; throws saying what the identity provider answered. */
export async function exchangeForIdJag(idp: IdentityProvider, idToken: string, r: ExchangeRequest): Promise<string> {
  const { headers, body } = requestFor(idp, idToken, r);
  const where = `the identity provider at ${idp.config.tokenEndpoint} (${idp.key}.token_endpoint)`;
  let res: Response;
  try {
    res = await idp.fetch(idp.config.tokenEndpoint, { method: 'POST', headers, body, redirect: 'error' });
  } catch (err) {
    throw new Error(`${where} could not be reached: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  const json: unknown = await res.json().catch(() => undefined);
  if (!res.ok) {
    const error = field(json, 'error') ?? `HTTP ${res.status}`;
    const description = field(json, 'error_description');
    throw new Error(`${where} refused the token exchange: ${error}${description === undefined ? '' : ` (${description})`}`);
  }
  const issued = field(json, 'issued_token_type');
  const token = field(json, 'access_token');
  if (issued !== ID_JAG_TYPE || token === undefined || token === '') {
    throw new Error(`${where} answered the token exchange without an ID-JAG (issued_token_type ${issued ?? 'missing'})`);
  }
  return token;
}

/** The token request the authorization server gets: the ID-JAG as a JWT bearer grant. */
export function jwtBearerRequest(idJag: string, scope: string | undefined): URLSearchParams {
  const params = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: idJag });
  if (scope !== undefined && scope !== '') params.set('scope', scope);
  return params;
}
