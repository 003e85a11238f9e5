/** The provider-neutral model: conversation types, the provider contract, errors and the registry. */
export * from './types.js';
export type { Caps, Provider, Request, Response } from './provider.js';
export { LlmError, LLM_ERROR_CODES, codeForStatus, isRetryable } from './errors.js';
export type { LlmErrorCode, LlmErrorOptions } from './errors.js';
export type { ProviderFactory, ProviderOptions } from './options.js';
export { DEFAULT_MAX_RETRIES } from './options.js';
export { ProviderRegistry } from './registry.js';
export { composeFetch } from './http.js';
export type { FetchLike, FetchMiddleware } from './http.js';
export { withCallTimeout } from './call-timeout.js';
