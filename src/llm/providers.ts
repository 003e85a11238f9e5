import { newAnthropicProvider } from './anthropic/provider.js';
import { newOpenAIChatProvider, newOpenAIResponsesProvider } from './openai/provider.js';
import { provideBuiltIn } from './provider-catalog.js';

/**
 * The process-wide provider registry with every provider this build links in loaded: importing
 * this module loads both vendor SDKs, so `newProvider` builds any of them at once. Registration
 * itself lives in `provider-catalog.ts`, whose callers load a provider's code only when they use it.
 */
provideBuiltIn('anthropic', newAnthropicProvider);
provideBuiltIn('openai', newOpenAIResponsesProvider);
provideBuiltIn('openai-chat', newOpenAIChatProvider);

export {
  loadProvider,
  newProvider,
  newProviderFromConfig,
  providerCredentialEnvNames,
  providerFacts,
  providerNames,
  register,
} from './provider-catalog.js';
export type { ProviderExtras } from './provider-catalog.js';
