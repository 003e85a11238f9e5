/**
 * `mcp_clients[].oauth`: how fisk-ai authorizes itself to an OAuth-protected MCP server. The
 * block is read here (grant, client, the private key of `private_key_jwt` client authentication,
 * the identity provider of cross-app access), and `mcpOAuthIssues` names every combination that
 * cannot work before anything connects. Secrets are never written here, only the variable or the
 * file that holds them.
 */
import { isAbsolute, resolve } from 'node:path';
import { ConfigError } from './errors.js';
import type { ConfigIssue } from './errors.js';
import { isLoopbackUrl } from '../util/loopback.js';
import { normalizeEnum, normalizeList } from './normalize.js';
import type { RawConfig } from './schema.js';
import { JWT_SIGNING_ALGORITHMS, MCP_OAUTH_GRANTS } from './types.js';
import type { McpOAuthConfig, McpOAuthIdpConfig, McpOAuthPrivateKeyConfig } from './types.js';

type RawOAuth = NonNullable<NonNullable<RawConfig['mcp_clients']>[number]['oauth']>;
type RawIdp = NonNullable<RawOAuth['idp']>;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/u;

function trimmed(value: string | undefined): string | undefined {
  const t = (value ?? '').trim();
  return t === '' ? undefined : t;
}

function isOneOf<T extends string>(list: readonly T[], value: string): value is T {
  return (list as readonly string[]).includes(value);
}

function path(value: string | undefined, baseDir: string): string | undefined {
  const t = trimmed(value);
  if (t === undefined) return undefined;
  return isAbsolute(t) ? t : resolve(baseDir, t);
}

function privateKey(o: RawOAuth, key: string, baseDir: string): McpOAuthPrivateKeyConfig | undefined {
  const env = trimmed(o.private_key_env);
  const file = path(o.private_key_file, baseDir);
  const alg = trimmed(o.signing_algorithm);
  const keyId = trimmed(o.key_id);
  if (env === undefined && file === undefined) {
    if (alg !== undefined)
      throw ConfigError.of(
        'value',
        `${key}.signing_algorithm`,
        'applies only with private_key_env or private_key_file: set one of them, or remove signing_algorithm',
      );
    if (keyId !== undefined)
      throw ConfigError.of(
        'value',
        `${key}.key_id`,
        'applies only with private_key_env or private_key_file: set one of them, or remove key_id',
      );
    return undefined;
  }
  if (alg !== undefined && !isOneOf(JWT_SIGNING_ALGORITHMS, alg)) {
    throw ConfigError.of(
      'value',
      `${key}.signing_algorithm`,
      `"${alg}" is not accepted; use one of ${JWT_SIGNING_ALGORITHMS.join(', ')}, or leave it out to take the one the key calls for`,
    );
  }
  return { env, file, algorithm: alg, keyId };
}

function tokenEndpoint(value: string | undefined, key: string): string {
  const t = trimmed(value);
  if (t === undefined)
    throw ConfigError.of(
      'missing',
      key,
      "is required for cross_app_access: the identity provider's token endpoint, e.g. https://idp.example.com/oauth2/token",
    );
  let url: URL;
  try {
    url = new URL(t);
  } catch {
    throw ConfigError.of('value', key, `"${t}" is not a URL; write it as https://host[:port]/path`);
  }
  if (url.username !== '' || url.password !== '')
    throw ConfigError.of('value', key, 'must not carry a user name or password; use client_id and client_secret_env');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackUrl(url))) {
    throw ConfigError.of('value', key, `"${t}" must be https (http only to a loopback address): it carries this agent's ID token`);
  }
  return url.href;
}

function idp(raw: RawIdp, key: string, baseDir: string): McpOAuthIdpConfig {
  return {
    tokenEndpoint: tokenEndpoint(raw.token_endpoint, `${key}.token_endpoint`),
    clientId: trimmed(raw.client_id),
    clientSecretEnv: trimmed(raw.client_secret_env),
    idTokenEnv: trimmed(raw.id_token_env),
    idTokenFile: path(raw.id_token_file, baseDir),
  };
}

/** Reads one `oauth` block; `key` is its own key (`mcp_clients[i].oauth`). */
export function prepareMcpOAuth(oauth: RawOAuth, key: string, baseDir: string): McpOAuthConfig {
  const grant = normalizeEnum(oauth.grant, 'authorization_code');
  if (!isOneOf(MCP_OAUTH_GRANTS, grant)) {
    throw ConfigError.of(
      'value',
      `${key}.grant`,
      `"${grant}" is not accepted; use authorization_code (a person logs in with fisk mcp login), client_credentials (unattended, with client_id and client_secret_env or a private key) or cross_app_access (an identity provider's ID token, with idp)`,
    );
  }
  const redirectPort = oauth.redirect_port ?? 0;
  if (redirectPort < 0 || redirectPort > 65_535) {
    throw ConfigError.of('value', `${key}.redirect_port`, `must be a port from 1 to 65535, or 0 for any free port; got ${redirectPort}`);
  }
  if (oauth.idp !== undefined && grant !== 'cross_app_access') {
    throw ConfigError.of(
      'value',
      `${key}.idp`,
      `applies only with grant: cross_app_access (the grant is ${grant}); remove idp or change the grant`,
    );
  }
  return {
    grant,
    clientId: trimmed(oauth.client_id),
    clientSecretEnv: trimmed(oauth.client_secret_env),
    scopes: normalizeList(oauth.scopes),
    redirectPort,
    clientMetadataUrl: trimmed(oauth.client_metadata_url),
    privateKey: privateKey(oauth, key, baseDir),
    idp: oauth.idp === undefined ? undefined : idp(oauth.idp, `${key}.idp`, baseDir),
  };
}

function envNameIssue(value: string | undefined, key: string, example: string): ConfigIssue[] {
  if (value === undefined || ENV_NAME.test(value)) return [];
  return [
    {
      code: 'value',
      key,
      message: `"${value}" is not an environment variable name: write the variable's name (e.g. ${example}), never the secret`,
    },
  ];
}

function clientIssues(oauth: McpOAuthConfig, key: string): ConfigIssue[] {
  const out: ConfigIssue[] = [
    ...envNameIssue(oauth.clientSecretEnv, `${key}.client_secret_env`, 'TICKETS_CLIENT_SECRET'),
    ...envNameIssue(oauth.privateKey?.env, `${key}.private_key_env`, 'TICKETS_PRIVATE_KEY'),
  ];
  const pk = oauth.privateKey;
  if (pk?.env !== undefined && pk.file !== undefined)
    out.push({ code: 'value', key: `${key}.private_key_file`, message: 'and private_key_env both name the private key; keep one of them' });
  if (pk !== undefined && oauth.clientSecretEnv !== undefined) {
    out.push({
      code: 'value',
      key: `${key}.client_secret_env`,
      message:
        'and a private key both authenticate the client; keep client_secret_env (client_secret_basic) or the private key (private_key_jwt)',
    });
  }
  if (oauth.clientId === undefined) {
    if (oauth.clientSecretEnv !== undefined)
      out.push({
        code: 'missing',
        key: `${key}.client_id`,
        message: 'is required with client_secret_env: a secret belongs to a client registered in advance',
      });
    else if (pk !== undefined)
      out.push({
        code: 'missing',
        key: `${key}.client_id`,
        message: 'is required with a private key: the key belongs to a client registered in advance',
      });
  }
  if (oauth.grant !== 'authorization_code') {
    if (oauth.clientId === undefined && oauth.clientSecretEnv === undefined && pk === undefined) {
      out.push({
        code: 'missing',
        key: `${key}.client_id`,
        message: `is required for the ${oauth.grant} grant: the client registered for this agent at the authorization server`,
      });
    }
    if (oauth.clientSecretEnv === undefined && pk === undefined) {
      out.push({
        code: 'missing',
        key: `${key}.client_secret_env`,
        message: `is required for the ${oauth.grant} grant (or private_key_env / private_key_file): how the client authenticates itself`,
      });
    }
  }
  return out;
}

function idpIssues(oauth: McpOAuthConfig, key: string): ConfigIssue[] {
  if (oauth.grant !== 'cross_app_access') return [];
  const i = oauth.idp;
  if (i === undefined)
    return [
      {
        code: 'missing',
        key: `${key}.idp`,
        message:
          "is required for cross_app_access: the identity provider's token_endpoint and where the ID token is (id_token_env or id_token_file)",
      },
    ];
  const out = envNameIssue(i.clientSecretEnv, `${key}.idp.client_secret_env`, 'IDP_CLIENT_SECRET');
  out.push(...envNameIssue(i.idTokenEnv, `${key}.idp.id_token_env`, 'IDP_ID_TOKEN'));
  if (i.idTokenEnv === undefined && i.idTokenFile === undefined) {
    out.push({
      code: 'missing',
      key: `${key}.idp.id_token_env`,
      message: "is required (or id_token_file): where this agent's ID token from the identity provider is",
    });
  }
  if (i.idTokenEnv !== undefined && i.idTokenFile !== undefined)
    out.push({ code: 'value', key: `${key}.idp.id_token_file`, message: 'and id_token_env both name the ID token; keep one of them' });
  if (i.clientSecretEnv !== undefined && i.clientId === undefined) {
    out.push({
      code: 'missing',
      key: `${key}.idp.client_id`,
      message: "is required with idp.client_secret_env: the secret belongs to this agent's client at the identity provider",
    });
  }
  return out;
}

function isClientMetadataUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.pathname !== '/';
  } catch {
    return false;
  }
}

/** Every reason the block cannot work; `key` is its own key. */
export function mcpOAuthIssues(o: McpOAuthConfig, key: string): ConfigIssue[] {
  const out = [...clientIssues(o, key), ...idpIssues(o, key)];
  if (o.clientMetadataUrl !== undefined && !isClientMetadataUrl(o.clientMetadataUrl)) {
    out.push({
      code: 'value',
      key: `${key}.client_metadata_url`,
      message: 'must be an https URL with a path, where the client ID metadata document is published',
    });
  }
  return out;
}
