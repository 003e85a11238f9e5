import OpenAI from 'openai';
import { resolveEndpoint } from '../endpoint.js';
import { OPENAI_ENDPOINT } from './credentials.js';
import { composeFetch } from '../http.js';
import type { FetchLike } from '../http.js';
import { nodeFetch } from '../node-fetch.js';
import { DEFAULT_MAX_RETRIES } from '../options.js';
import type { ProviderOptions } from '../options.js';
import type { ProviderAccount } from '../remedy.js';

export { OPENAI_CREDENTIAL_ENV_NAMES } from './credentials.js';

/** Sent as the key to a server on this machine that needs none: the SDK refuses to start without one. */
const LOCAL_PLACEHOLDER_KEY = 'fisk-local-no-key';

/**
 * Builds the SDK client both OpenAI providers use. The key, base URL, organisation and project are
 * passed explicitly, so the SDK reads nothing else from the environment; only `OPENAI_API_KEY` and
 * `OPENAI_BASE_URL` are consulted (through `options.env`), never another provider's variables.
 */
export function openaiClient(options: ProviderOptions): OpenAI {
  const endpoint = resolveEndpoint(options, OPENAI_ENDPOINT);
  const base: FetchLike = options.fetch ?? nodeFetch;
  return new OpenAI({
    apiKey: endpoint.apiKey ?? LOCAL_PLACEHOLDER_KEY,
    organization: null,
    project: null,
    webhookSecret: null,
    baseURL: endpoint.baseUrl ?? OPENAI_ENDPOINT.defaultBaseUrl,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    // The SDK's own per-attempt timeout sits just past ours, so the provider's clock decides.
    ...(options.callTimeoutMs > 0 ? { timeout: options.callTimeoutMs + 1000 } : {}),
    fetch: composeFetch(base, options.fetchMiddleware),
    logLevel: 'warn',
  });
}

/** Where an OpenAI client's key lives and what it calls, for error remedies. */
export function openaiAccount(client: OpenAI): ProviderAccount {
  return {
    keyVar: OPENAI_ENDPOINT.apiKeyVar,
    baseUrl: client.baseURL.replace(/\/+$/, ''),
    urlVar: OPENAI_ENDPOINT.baseUrlVar,
    api: 'openai',
  };
}
