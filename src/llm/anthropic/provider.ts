import Anthropic from '@anthropic-ai/sdk';
import { withCallTimeout } from '../call-timeout.js';
import { resolveEndpoint } from '../endpoint.js';
import { ANTHROPIC_ENDPOINT } from './credentials.js';
import { composeFetch } from '../http.js';
import type { FetchLike } from '../http.js';
import { nodeFetch } from '../node-fetch.js';
import { DEFAULT_MAX_RETRIES } from '../options.js';
import { wantsStream } from '../sse.js';
import type { ProviderOptions } from '../options.js';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import type { Caps, Provider, Request, Response, StreamObserver } from '../provider.js';
import { encodeParams } from './build-params.js';
import type { ProviderAccount } from '../remedy.js';
import { decodeMessage } from './decode.js';
import { decodeMessageStream } from './stream.js';
import { toLlmError } from './errors.js';

export { ANTHROPIC_CREDENTIAL_ENV_NAMES } from './credentials.js';

const CAPS: Caps = Object.freeze({
  provider: 'anthropic',
  semconvProvider: 'anthropic',
  toolSearch: true,
  thinking: true,
  promptCache: true,
});

/** Sent as the key to a server on this machine that needs none: the SDK will not send a request without one. */
const LOCAL_PLACEHOLDER_KEY = 'fisk-local-no-key';

/**
 * The Anthropic Messages API provider (`llm.provider: anthropic`). One request per call, streamed
 * when the caller observes fragments; the per-call timeout covers the SDK's retries, which honour
 * `retry-after` headers.
 * The SDK is given the key and base URL explicitly, so it never falls back to other ambient
 * credentials (an auth token, a profile).
 */
export class AnthropicProvider implements Provider {
  readonly #client: Anthropic;
  readonly #timeoutMs: number;
  readonly #account: ProviderAccount;

  constructor(options: ProviderOptions) {
    const endpoint = resolveEndpoint(options, ANTHROPIC_ENDPOINT);
    this.#timeoutMs = options.callTimeoutMs;
    const baseUrl = endpoint.baseUrl ?? ANTHROPIC_ENDPOINT.defaultBaseUrl;
    this.#account = { keyVar: ANTHROPIC_ENDPOINT.apiKeyVar, baseUrl, urlVar: ANTHROPIC_ENDPOINT.baseUrlVar, api: 'anthropic' };
    const base: FetchLike = options.fetch ?? nodeFetch;
    this.#client = new Anthropic({
      apiKey: endpoint.apiKey ?? LOCAL_PLACEHOLDER_KEY,
      authToken: null,
      webhookKey: null,
      baseURL: baseUrl,
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      // The SDK's own per-attempt timeout sits just past ours, so the provider's clock decides.
      ...(options.callTimeoutMs > 0 ? { timeout: options.callTimeoutMs + 1000 } : {}),
      fetch: composeFetch(base, options.fetchMiddleware),
      logLevel: 'warn',
    });
  }

  capabilities(): Caps {
    return CAPS;
  }

  async call(request: Request, signal: AbortSignal, observer?: StreamObserver): Promise<Response> {
    const stream = wantsStream(observer);
    // The body is sent as text, assembled from per-message texts remembered across calls, so stored
    // tool inputs and provider blocks go out byte for byte and only new messages are encoded. The
    // SDK is handed just the fields it reads for itself (the model, the token cap, streaming).
    const body = encodeParams(request, stream);
    const shell: MessageCreateParamsNonStreaming = { model: request.model, max_tokens: request.maxOutputTokens, messages: [] };
    const params = stream ? { ...shell, stream: true as const } : shell;
    return withCallTimeout(
      this.#timeoutMs,
      signal,
      async (inner) => {
        const res = await this.#client.messages.create(params, { signal: inner, body, headers: JSON_CONTENT }).asResponse();
        return stream ? decodeMessageStream(res.body, observer) : decodeMessage(await res.text());
      },
      (err) => toLlmError(err, request, this.#account),
    );
  }
}

const JSON_CONTENT = Object.freeze({ 'content-type': 'application/json' });

/** The registry factory for `anthropic`. */
export function newAnthropicProvider(options: ProviderOptions): Provider {
  return new AnthropicProvider(options);
}
