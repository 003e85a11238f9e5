import type { LlmConfig } from '../config/index.js';
import { ANTHROPIC_CREDENTIAL_ENV_NAMES, newAnthropicProvider } from './anthropic/provider.js';
import { newOpenAIChatProvider, newOpenAIResponsesProvider } from './openai/provider.js';
import { OPENAI_CREDENTIAL_ENV_NAMES } from './openai/client.js';
import type { ProviderFactory, ProviderOptions } from './options.js';
import type { Provider } from './provider.js';
import { ProviderRegistry } from './registry.js';
import type { ProviderFacts, ProviderRegistration } from './registry.js';

/**
 * The process-wide provider registry, with every provider this build links in already
 * registered. Registration happens here rather than as a side effect of importing a provider
 * module, so whoever imports the registry sees every linked provider and their credentials.
 */
const defaultRegistry = new ProviderRegistry();
defaultRegistry.register('anthropic', newAnthropicProvider, ANTHROPIC_CREDENTIAL_ENV_NAMES, { baseUrlEnv: 'ANTHROPIC_BASE_URL', toolSearch: true });
defaultRegistry.register('openai', newOpenAIResponsesProvider, OPENAI_CREDENTIAL_ENV_NAMES, { baseUrlEnv: 'OPENAI_BASE_URL', toolSearch: true });
defaultRegistry.register('openai-chat', newOpenAIChatProvider, OPENAI_CREDENTIAL_ENV_NAMES, { baseUrlEnv: 'OPENAI_BASE_URL', toolSearch: false });

/**
 * Adds a provider to the process-wide registry (an embedder's own backend). Throws on an empty
 * name, a missing factory, a missing credential list or a name already taken.
 */
export function register(name: string, factory: ProviderFactory, credentialEnvNames: readonly string[], more?: ProviderRegistration): void {
  defaultRegistry.register(name, factory, credentialEnvNames, more);
}

/** What the named provider declared (credentials, base URL variable, tool search); `undefined` when unknown. */
export function providerFacts(name: string): ProviderFacts | undefined {
  return defaultRegistry.facts(name);
}

/**
 * Builds the provider named by `llm.provider`. Throws `ConfigError` for an unknown name (listing
 * the known ones), a refused base URL, or a missing key.
 */
export function newProvider(name: string, options: ProviderOptions): Provider {
  return defaultRegistry.create(name, options);
}

/** Every registered provider name, sorted. */
export function providerNames(): string[] {
  return defaultRegistry.names();
}

/**
 * The union of every linked provider's secret-bearing variables: stripped from every tool
 * subprocess whichever provider is active.
 */
export function providerCredentialEnvNames(): string[] {
  return defaultRegistry.credentialEnvNames();
}
/** What a caller adds to the `llm` settings when building the provider for a run. */
export type ProviderExtras = Omit<ProviderOptions, 'callTimeoutMs'>;

/**
 * Builds the provider an `llm` configuration block names: `llm.provider`, `llm.base_url` and
 * `llm.budget.call_timeout`. `extras` adds the hooks (HTTP debug log, trace) and may set the base
 * URL outright (a `--base-url` flag, with `baseUrlKey` naming it for errors). The provider's own
 * variable (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`) beats `llm.base_url`, as an environment
 * setting beats the file everywhere else. Throws `ConfigError` naming the key or variable to change.
 */
export function newProviderFromConfig(llm: LlmConfig, extras: ProviderExtras = {}): Provider {
  return newProvider(llm.provider, {
    ...(llm.baseUrl === undefined ? {} : { baseUrlFallback: llm.baseUrl }),
    ...extras,
    callTimeoutMs: llm.budget.callTimeout.ms,
  });
}
