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

/**
 * Resolves the base URL and key for one provider: an explicit URL first, then that provider's own
 * variable, then the configured fallback. Refuses a plain-http URL to another host, a URL with userinfo, and a remote endpoint
 * without a key, each with a `ConfigError` naming what to change. Credentials are per provider, so
 * choosing one provider never requires another's key.
 */
export function resolveEndpoint(options: ProviderOptions, vars: EndpointEnv): Endpoint {
  const env = options.env ?? process.env;
  const fromOptions = nonEmpty(options.baseUrl);
  const fromEnv = nonEmpty(env[vars.baseUrlVar]);
  const raw = fromOptions ?? fromEnv ?? nonEmpty(options.baseUrlFallback);
  const key = fromOptions !== undefined ? (options.baseUrlKey ?? 'llm.base_url') : fromEnv !== undefined ? vars.baseUrlVar : 'llm.base_url';
  let local = false;
  let baseUrl: string | undefined;
  if (raw !== undefined) {
    const url = checkServiceUrl(raw, key);
    local = isLoopbackUrl(url);
    baseUrl = raw.replace(/\/+$/, '');
  }
  const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(env[vars.apiKeyVar]);
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
