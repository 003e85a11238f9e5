/** The OpenAI providers (Responses and Chat Completions): the only module that imports the OpenAI SDK. */
export { OpenAIChatProvider, OpenAIResponsesProvider, newOpenAIChatProvider, newOpenAIResponsesProvider } from './provider.js';
export { OPENAI_CREDENTIAL_ENV_NAMES } from './client.js';
export { buildResponsesParams, responsesTools } from './responses-params.js';
export { decodeResponses } from './responses-decode.js';
export { buildChatParams, chatTools } from './chat-params.js';
export { decodeChat } from './chat-decode.js';
