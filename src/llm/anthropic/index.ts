/** The Anthropic Messages API provider: the only module that imports the Anthropic SDK. */
export { AnthropicProvider, newAnthropicProvider, ANTHROPIC_CREDENTIAL_ENV_NAMES } from './provider.js';
export { buildParams, toolParams, TOOL_SEARCH_TOOL } from './build-params.js';
export { decodeContentBlock, decodeMessage } from './decode.js';
