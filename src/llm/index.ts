/**
 * The provider-neutral model: conversation types, the provider contract, typed errors, the
 * provider registry with every linked provider, and the HTTP hooks (debug log, trace) a caller
 * installs without importing a vendor SDK.
 */
export * from './types.js';
export type { Caps, Provider, Request, Response, StreamObserver } from './provider.js';
export { LlmError, LLM_ERROR_CODES, codeForStatus, isRetryable } from './errors.js';
export type { LlmErrorCode, LlmErrorOptions } from './errors.js';
export type { ProviderFactory, ProviderOptions } from './options.js';
export type { ProviderExtras } from './providers.js';
export { DEFAULT_MAX_RETRIES } from './options.js';
export { ProviderRegistry } from './registry.js';
export {
  loadProvider,
  newProvider,
  newProviderFromConfig,
  providerCredentialEnvNames,
  providerFacts,
  providerNames,
  register,
} from './providers.js';
export type { ProviderFacts, ProviderRegistration } from './registry.js';
export { composeFetch } from './http.js';
export type { FetchLike, FetchMiddleware } from './http.js';
export { openHttpDebugLog } from './http-debug.js';
export type { HttpDebugLog } from './http-debug.js';
export { openTraceFile, traceMiddleware } from './trace.js';
export type { TraceFile, TraceHttpEvent, TraceMiddlewareOptions } from './trace.js';
export { withCallTimeout } from './call-timeout.js';
export { stripThinking } from './strip-thinking.js';
export { signatureBytes, signatureText } from './signature.js';
export { AnthropicProvider } from './anthropic/provider.js';
export { OpenAIChatProvider, OpenAIResponsesProvider } from './openai/provider.js';
