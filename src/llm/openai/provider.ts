import type OpenAI from 'openai';
import { withCallTimeout } from '../call-timeout.js';
import type { ProviderOptions } from '../options.js';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions/completions';
import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import type { Caps, Provider, Request, Response, StreamObserver } from '../provider.js';
import { wantsStream } from '../sse.js';
import { encodeChatParams } from './chat-params.js';
import type { ProviderAccount } from '../remedy.js';
import { decodeChat } from './chat-decode.js';
import { openaiAccount, openaiClient } from './client.js';
import { toLlmError } from './errors.js';
import { encodeResponsesParams } from './responses-params.js';
import { decodeChatStream, decodeResponsesStream } from './stream.js';
import { decodeResponses } from './responses-decode.js';

const RESPONSES_CAPS: Caps = Object.freeze({
  provider: 'openai',
  semconvProvider: 'openai',
  toolSearch: true,
  thinking: true,
  promptCache: true,
});

const CHAT_CAPS: Caps = Object.freeze({
  provider: 'openai-chat',
  semconvProvider: 'openai',
  toolSearch: false,
  thinking: false,
  promptCache: false,
});

/**
 * `llm.provider: openai`, over the Responses API: tool search, and reasoning carried across turns
 * as encrypted reasoning items. One request per call, streamed when the caller observes
 * fragments; the per-call timeout covers the SDK's retries. Needs `OPENAI_API_KEY` unless the base URL is this machine.
 */
export class OpenAIResponsesProvider implements Provider {
  readonly #client: OpenAI;
  readonly #timeoutMs: number;

  constructor(options: ProviderOptions) {
    this.#client = openaiClient(options);
    this.#timeoutMs = options.callTimeoutMs;
  }

  capabilities(): Caps {
    return RESPONSES_CAPS;
  }

  #account(): ProviderAccount {
    return openaiAccount(this.#client);
  }

  async call(request: Request, signal: AbortSignal, observer?: StreamObserver): Promise<Response> {
    const stream = wantsStream(observer);
    // Sent as text assembled from per-message texts remembered across calls, so reasoning items and
    // provider blocks go out byte for byte and only new messages are encoded. The SDK is handed just
    // the fields it reads for itself.
    const body = encodeResponsesParams(request, stream);
    const shell: ResponseCreateParamsNonStreaming = { model: request.model, input: [] };
    const params = stream ? { ...shell, stream: true as const } : shell;
    const sent = { thinking: request.thinking === 'on', reasoningEffort: request.reasoningEffort !== undefined };
    return withCallTimeout(
      this.#timeoutMs,
      signal,
      async (inner) => {
        const res = await this.#client.responses.create(params, { signal: inner, body, headers: JSON_CONTENT }).asResponse();
        return stream ? decodeResponsesStream(res.body, observer) : decodeResponses(await res.text());
      },
      (err) => toLlmError(err, request, sent, 'OpenAI', this.#account()),
    );
  }
}

/**
 * `llm.provider: openai-chat`, over Chat Completions, for OpenAI-compatible local servers (Ollama,
 * LM Studio, llama.cpp server, vLLM). No tool search, no reasoning round trip, no cache
 * breakpoints; `llm.thinking` is not sent. A loopback base URL needs no key.
 */
export class OpenAIChatProvider implements Provider {
  readonly #client: OpenAI;
  readonly #timeoutMs: number;

  constructor(options: ProviderOptions) {
    this.#client = openaiClient(options);
    this.#timeoutMs = options.callTimeoutMs;
  }

  capabilities(): Caps {
    return CHAT_CAPS;
  }

  #account(): ProviderAccount {
    return openaiAccount(this.#client);
  }

  async call(request: Request, signal: AbortSignal, observer?: StreamObserver): Promise<Response> {
    const stream = wantsStream(observer);
    const body = encodeChatParams(request, stream);
    const shell: ChatCompletionCreateParamsNonStreaming = { model: request.model, messages: [] };
    const params = stream ? { ...shell, stream: true as const } : shell;
    const sent = { thinking: false, reasoningEffort: request.reasoningEffort !== undefined };
    return withCallTimeout(
      this.#timeoutMs,
      signal,
      async (inner) => {
        const res = await this.#client.chat.completions.create(params, { signal: inner, body, headers: JSON_CONTENT }).asResponse();
        return stream ? decodeChatStream(res.body, observer) : decodeChat(await res.text());
      },
      (err) => toLlmError(err, request, sent, 'the OpenAI-compatible server', this.#account()),
    );
  }
}

const JSON_CONTENT = Object.freeze({ 'content-type': 'application/json' });

/** The registry factory for `openai`. */
export function newOpenAIResponsesProvider(options: ProviderOptions): Provider {
  return new OpenAIResponsesProvider(options);
}

/** The registry factory for `openai-chat`. */
export function newOpenAIChatProvider(options: ProviderOptions): Provider {
  return new OpenAIChatProvider(options);
}
