import { ConfigError, checkServiceUrl, isLoopbackUrl } from '../config/index.js';
import type { ProviderOptions } from './options.js';

/** Where one provider finds its endpoint and key in the environment. */
export interface EndpointEnv {
  /** The variable holding the base URL, e.g. `ANTHROPIC_BASE_URL`. */
  readonly baseUrlVar: string;
  /** The variable holding the API key, e.g. `ANTHROPIC_API_KEY`. */
  readonly apiKeyVar: string;
  /** The provider's name for messages, e.g. `Anthropic`. */
  readonly vendor: string;
}

/** A checked endpoint: `baseUrl` undefined means the vendor's public endpoint. */
export interface Endpoint {
  readonly baseUrl: string | undefined;
  readonly apiKey: string | undefined;
  /** The endpoint is this machine, where a key is optional. */
  readonly local: boolean;
}

/** Where a provider's base URL came from: an explicit option (a flag), its variable, `llm.base_url`, or nowhere (its public API). */
export type EndpointSource = 'option' | 'variable' | 'file' | 'default';

/** The endpoint and key a provider would use, found but not yet checked. */
export interface LocatedEndpoint {
  /** The base URL as given, or `undefined` for the vendor's public endpoint. */
  readonly raw: string | undefined;
  readonly source: EndpointSource;
  readonly apiKey: string | undefined;
}

/**
 * Finds the base URL and key for one provider without judging them: an explicit URL first, then
 * that provider's own variable, then the configured fallback; the key from the options, then the
 * provider's variable. `fisk info` reports this; {@link resolveEndpoint} checks it.
 */
export function locateEndpoint(
  options: Pick<ProviderOptions, 'env' | 'baseUrl' | 'baseUrlFallback' | 'apiKey'>,
  vars: Pick<EndpointEnv, 'baseUrlVar' | 'apiKeyVar'>,
): LocatedEndpoint {
  const env = options.env ?? process.env;
  const fromOptions = nonEmpty(options.baseUrl);
  const fromEnv = nonEmpty(env[vars.baseUrlVar]);
  const fromFile = nonEmpty(options.baseUrlFallback);
  const [raw, source]: [string | undefined, EndpointSource] =
    fromOptions !== undefined
      ? [fromOptions, 'option']
      : fromEnv !== undefined
        ? [fromEnv, 'variable']
        : fromFile !== undefined
          ? [fromFile, 'file']
          : [undefined, 'default'];
  return { raw, source, apiKey: nonEmpty(options.apiKey) ?? nonEmpty(env[vars.apiKeyVar]) };
}

/** Whether a base URL names this machine; a malformed one does not. */
export function isLocalEndpoint(raw: string): boolean {
  try {
    return isLoopbackUrl(new URL(raw));
  } catch {
    return false;
  }
}

/**
 * Resolves the base URL and key for one provider (in the order {@link locateEndpoint} finds them).
 * Refuses a plain-http URL to another host, a URL with userinfo, and a remote endpoint without a
 * key, each with a `ConfigError` naming what to change. Credentials are per provider, so choosing
 * one provider never requires another's key.
 */
export function resolveEndpoint(options: ProviderOptions, vars: EndpointEnv): Endpoint {
  const found = locateEndpoint(options, vars);
  const key =
    found.source === 'option' ? (options.baseUrlKey ?? 'llm.base_url') : found.source === 'variable' ? vars.baseUrlVar : 'llm.base_url';
  let local = false;
  let baseUrl: string | undefined;
  if (found.raw !== undefined) {
    const url = checkServiceUrl(found.raw, key);
    local = isLoopbackUrl(url);
    baseUrl = found.raw.replace(/\/+$/, '');
  }
  const apiKey = found.apiKey;
  if (apiKey === undefined && !local) {
    throw ConfigError.of(
      'missing',
      vars.apiKeyVar,
      `no ${vars.vendor} API key: export ${vars.apiKeyVar}, or point llm.base_url at a server on this machine that needs none`,
    );
  }
  return { baseUrl, apiKey, local };
}

function nonEmpty(v: string | undefined): string | undefined {
  const t = (v ?? '').trim();
  return t === '' ? undefined : t;
}
