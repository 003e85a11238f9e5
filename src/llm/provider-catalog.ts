/**
 * The process-wide provider registry, with every provider this build links in registered by its
 * facts (name, credential variables, base URL variable, tool search). A built-in provider's code,
 * and the vendor SDK behind it, loads on first use: `loadProvider(name)` before `newProvider`.
 * Importing `providers.ts` instead loads every built-in at once and needs no `loadProvider`.
 */
import type { LlmConfig } from '../config/index.js';
import { ANTHROPIC_CREDENTIAL_ENV_NAMES, ANTHROPIC_ENDPOINT } from './anthropic/credentials.js';
import { OPENAI_CREDENTIAL_ENV_NAMES, OPENAI_ENDPOINT } from './openai/credentials.js';
import type { ProviderFactory, ProviderOptions } from './options.js';
import type { Provider } from './provider.js';
import { ProviderRegistry } from './registry.js';
import type { ProviderFacts, ProviderRegistration } from './registry.js';

/** The providers this build links in. */
export const BUILT_IN_PROVIDERS = ['anthropic', 'openai', 'openai-chat'] as const;
export type BuiltInProvider = (typeof BUILT_IN_PROVIDERS)[number];

/** Imports a built-in provider's module and returns its factory. */
function importFactory(name: BuiltInProvider): Promise<ProviderFactory> {
  switch (name) {
    case 'anthropic':
      return import('./anthropic/provider.js').then((m) => m.newAnthropicProvider);
    case 'openai':
      return import('./openai/provider.js').then((m) => m.newOpenAIResponsesProvider);
    case 'openai-chat':
      return import('./openai/provider.js').then((m) => m.newOpenAIChatProvider);
    default: {
      const never: never = name;
      return never;
    }
  }
}

function isBuiltIn(name: string): name is BuiltInProvider {
  return (BUILT_IN_PROVIDERS as readonly string[]).includes(name);
}

const loaded = new Map<BuiltInProvider, ProviderFactory>();

/** The registered factory of a built-in: the loaded one, or a refusal naming the missing step. */
function deferredFactory(name: BuiltInProvider): ProviderFactory {
  return (options) => {
    const factory = loaded.get(name);
    if (factory === undefined)
      throw new TypeError(`provider "${name}" is not loaded yet: await loadProvider("${name}") before building it`);
    return factory(options);
  };
}

const defaultRegistry = new ProviderRegistry();
defaultRegistry.register('anthropic', deferredFactory('anthropic'), ANTHROPIC_CREDENTIAL_ENV_NAMES, {
  baseUrlEnv: ANTHROPIC_ENDPOINT.baseUrlVar,
  apiKeyEnv: ANTHROPIC_ENDPOINT.apiKeyVar,
  defaultBaseUrl: ANTHROPIC_ENDPOINT.defaultBaseUrl,
  toolSearch: true,
});
defaultRegistry.register('openai', deferredFactory('openai'), OPENAI_CREDENTIAL_ENV_NAMES, {
  baseUrlEnv: OPENAI_ENDPOINT.baseUrlVar,
  apiKeyEnv: OPENAI_ENDPOINT.apiKeyVar,
  defaultBaseUrl: OPENAI_ENDPOINT.defaultBaseUrl,
  toolSearch: true,
});
defaultRegistry.register('openai-chat', deferredFactory('openai-chat'), OPENAI_CREDENTIAL_ENV_NAMES, {
  baseUrlEnv: OPENAI_ENDPOINT.baseUrlVar,
  apiKeyEnv: OPENAI_ENDPOINT.apiKeyVar,
  defaultBaseUrl: OPENAI_ENDPOINT.defaultBaseUrl,
  toolSearch: false,
});

/**
 * Loads the code of the named provider so `newProvider` can build it. Resolves at once for a
 * provider already loaded, one an embedder registered, and an unknown name (which `newProvider`
 * then refuses, naming the known ones).
 */
export async function loadProvider(name: string): Promise<void> {
  if (!isBuiltIn(name) || loaded.has(name)) return;
  const factory = await importFactory(name);
  loaded.set(name, factory);
}

/** Hands over a built-in provider's factory that its caller imported itself. */
export function provideBuiltIn(name: BuiltInProvider, factory: ProviderFactory): void {
  loaded.set(name, factory);
}

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

/** The message an unknown `llm.provider` is refused with, naming the known providers. */
export function unknownProviderMessage(name: string): string {
  return defaultRegistry.unknownMessage(name);
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
