import type OpenAI from 'openai';
import { withCallTimeout } from '../call-timeout.js';
import type { ProviderOptions } from '../options.js';
import { RawSlots } from '../raw-splice.js';
import type { Caps, Provider, Request, Response } from '../provider.js';
import type { ProviderAccount } from '../remedy.js';
import { buildChatParams } from './chat-params.js';
import { decodeChat } from './chat-decode.js';
import { openaiAccount, openaiClient } from './client.js';
import { toLlmError } from './errors.js';
import { buildResponsesParams } from './responses-params.js';
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
 * as encrypted reasoning items. One blocking request per call; the per-call timeout covers the
 * SDK's retries. Needs `OPENAI_API_KEY` unless the base URL is this machine.
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

  async call(request: Request, signal: AbortSignal): Promise<Response> {
    const slots = new RawSlots();
    const params = buildResponsesParams(request, slots);
    // Sent as text so reasoning items and provider blocks go out byte for byte.
    const body = slots.serialize(params);
    const sent = { thinking: request.thinking === 'on', reasoningEffort: request.reasoningEffort !== undefined };
    return withCallTimeout(
      this.#timeoutMs,
      signal,
      async (inner) => {
        const res = await this.#client.responses
          .create(params, { signal: inner, body, headers: { 'content-type': 'application/json' } })
          .asResponse();
        return decodeResponses(await res.text());
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

  async call(request: Request, signal: AbortSignal): Promise<Response> {
    const params = buildChatParams(request);
    const sent = { thinking: false, reasoningEffort: request.reasoningEffort !== undefined };
    return withCallTimeout(
      this.#timeoutMs,
      signal,
      async (inner) => {
        const res = await this.#client.chat.completions.create(params, { signal: inner }).asResponse();
        return decodeChat(await res.text());
      },
      (err) => toLlmError(err, request, sent, 'the OpenAI-compatible server', this.#account()),
    );
  }
}

/** The registry factory for `openai`. */
export function newOpenAIResponsesProvider(options: ProviderOptions): Provider {
  return new OpenAIResponsesProvider(options);
}

/** The registry factory for `openai-chat`. */
export function newOpenAIChatProvider(options: ProviderOptions): Provider {
  return new OpenAIChatProvider(options);
}
