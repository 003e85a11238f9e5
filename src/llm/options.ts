import type { FetchLike, FetchMiddleware } from './http.js';
import type { Provider } from './provider.js';

/**
 * What a provider factory is given. The model, the thinking mode, the cache lifetime and the rest
 * of one call travel in each `Request`; these are the things fixed for the provider's lifetime.
 */
export interface ProviderOptions {
  /**
   * The service base URL, overriding everything (a `--base-url` flag). When absent the provider's
   * own environment variable is read (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`), then
   * `baseUrlFallback`, then the vendor's public endpoint. A host that is not this machine must use
   * https, and no URL may carry a user name or password.
   */
  readonly baseUrl?: string;
  /**
   * The base URL from agent.yaml (`llm.base_url`): used only when neither `baseUrl` nor the
   * provider's variable is set, and named `llm.base_url` in errors.
   */
  readonly baseUrlFallback?: string;
  /**
   * What to name in an error about `baseUrl` (default `llm.base_url`), e.g. `--base-url` when the
   * URL came from a flag.
   */
  readonly baseUrlKey?: string;
  /** The API key. When absent the provider's own key variable is read from `env`. */
  readonly apiKey?: string;
  /** The per-call timeout in milliseconds (`llm.budget.call_timeout`), covering every retry. */
  readonly callTimeoutMs: number;
  /**
   * How many times the SDK retries a 408/409/429/5xx or a dropped connection inside one call,
   * honouring the server's `retry-after`/`retry-after-ms` headers. Defaults to 2; 0 turns retries off.
   */
  readonly maxRetries?: number;
  /** Hooks wrapped around every HTTP exchange, first one outermost (HTTP debug log, trace). */
  readonly fetchMiddleware?: readonly FetchMiddleware[];
  /**
   * The fetch the hooks wrap. When absent, Node's HTTP client with kept-alive connections, which
   * hands anything it does not handle itself (a redirect, an unusual body) to the global `fetch`.
   */
  readonly fetch?: FetchLike;
  /** Where credential variables are read from; `process.env` when absent. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Builds a provider. Throws `ConfigError` naming the key or variable to change when it cannot. */
export type ProviderFactory = (options: ProviderOptions) => Provider;

/** The retry count used when `maxRetries` is not given. */
export const DEFAULT_MAX_RETRIES = 2;
