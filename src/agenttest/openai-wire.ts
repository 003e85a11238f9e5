import type { FakeReply } from './fake-model-server.js';

/**
 * OpenAI answers for the fake model server: the Responses API and Chat Completions, as builders
 * for scripted replies and as recorded-shape fixtures. Envelopes carry the fields a current API
 * sends beyond what a decoder reads, so an intolerant decoder fails a test rather than a run.
 */

/** Usage numbers as the Responses API reports them. */
export interface OpenAIUsage {
  readonly input_tokens?: number;
  readonly cached_tokens?: number;
  readonly output_tokens?: number;
  readonly reasoning_tokens?: number;
}

/** Options for {@link openaiResponse}. */
export interface OpenAIResponseOptions {
  readonly usage?: OpenAIUsage;
  readonly model?: string;
  /** `completed` unless set; `incomplete` takes `incompleteReason`. */
  readonly status?: string;
  readonly incompleteReason?: string;
}

/** A Responses API reply carrying `output` items verbatim. */
export function openaiResponse(output: readonly unknown[], options: OpenAIResponseOptions = {}): FakeReply {
  const usage = options.usage ?? {};
  const input = usage.input_tokens ?? 0;
  const out = usage.output_tokens ?? 0;
  return {
    headers: { 'x-request-id': 'req_fake_ok' },
    body: {
      id: 'resp_fake_01',
      object: 'response',
      created_at: 1789843591,
      status: options.status ?? 'completed',
      background: false,
      error: null,
      incomplete_details: options.incompleteReason === undefined ? null : { reason: options.incompleteReason },
      instructions: null,
      max_output_tokens: null,
      model: options.model ?? 'gpt-fake-1',
      output,
      parallel_tool_calls: true,
      previous_response_id: null,
      reasoning: { effort: null, summary: null },
      service_tier: 'default',
      store: false,
      temperature: 1,
      text: { format: { type: 'text' }, verbosity: 'medium' },
      tool_choice: 'auto',
      tools: [],
      top_p: 1,
      truncation: 'disabled',
      usage: {
        input_tokens: input,
        input_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
        output_tokens: out,
        output_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
        total_tokens: input + out,
      },
      user: null,
      metadata: {},
    },
  };
}

/** An assistant message output item. */
export function openaiMessageItem(text: string, id = 'msg_fake_01'): unknown {
  return {
    id,
    type: 'message',
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', annotations: [], logprobs: [], text }],
  };
}

/** A function call output item; `args` is sent as the exact argument text when a string. */
export function openaiFunctionCallItem(callId: string, name: string, args: unknown, id = `fc_${callId}`): unknown {
  return {
    id,
    type: 'function_call',
    status: 'completed',
    call_id: callId,
    name,
    arguments: typeof args === 'string' ? args : JSON.stringify(args),
  };
}

/** A reasoning output item with a summary and encrypted content. */
export function openaiReasoningItem(id: string, summary: string, encrypted: string): unknown {
  return { id, type: 'reasoning', summary: [{ type: 'summary_text', text: summary }], encrypted_content: encrypted };
}

/** A plain text Responses answer. */
export function openaiText(text: string, options: OpenAIResponseOptions = {}): FakeReply {
  return openaiResponse([openaiMessageItem(text)], options);
}

/** Options for {@link chatCompletion}. */
export interface ChatCompletionOptions {
  readonly finish_reason?: string;
  readonly usage?: {
    readonly prompt_tokens?: number;
    readonly cached_tokens?: number;
    readonly completion_tokens?: number;
    readonly reasoning_tokens?: number;
  };
  readonly model?: string;
  readonly reasoning_content?: string;
  readonly tool_calls?: readonly { readonly id: string; readonly name: string; readonly arguments: unknown }[];
}

/** A Chat Completions reply with one choice. */
export function chatCompletion(content: string | null, options: ChatCompletionOptions = {}): FakeReply {
  const usage = options.usage ?? {};
  const calls = options.tool_calls?.map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
  }));
  return {
    body: {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: 1789843591,
      model: options.model ?? 'local-fake-1',
      system_fingerprint: 'fp_fake',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content,
            refusal: null,
            annotations: [],
            ...(options.reasoning_content === undefined ? {} : { reasoning_content: options.reasoning_content }),
            ...(calls === undefined ? {} : { tool_calls: calls }),
          },
          logprobs: null,
          finish_reason: options.finish_reason ?? (calls === undefined ? 'stop' : 'tool_calls'),
        },
      ],
      usage: {
        prompt_tokens: usage.prompt_tokens ?? 0,
        completion_tokens: usage.completion_tokens ?? 0,
        total_tokens: (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0),
        prompt_tokens_details: { cached_tokens: usage.cached_tokens ?? 0, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0, audio_tokens: 0 },
      },
      service_tier: 'default',
    },
  };
}

/** An error reply in OpenAI's envelope (both APIs, and compatible servers, use it). */
export function openaiError(status: number, type: string, message: string, headers: Readonly<Record<string, string>> = {}): FakeReply {
  return {
    status,
    headers: { 'x-request-id': `req_fake_${status}`, ...headers },
    body: { error: { message, type, param: null, code: null } },
  };
}

/** A 429 asking the client to retry after `ms` milliseconds (both retry headers set). */
export function openaiRateLimited(ms = 1): FakeReply {
  return openaiError(429, 'rate_limit_exceeded', 'Rate limit reached', {
    'retry-after-ms': String(ms),
    'retry-after': String(Math.max(0, Math.ceil(ms / 1000))),
  });
}

/** Recorded-shape answers. */
export const OPENAI_FIXTURES = Object.freeze({
  /** Reasoning with encrypted content, then a function call whose arguments hold a large integer. */
  reasoningToolCall: `{"id":"resp_fake_think","object":"response","created_at":1789843591,"status":"completed","error":null,"incomplete_details":null,"model":"gpt-fake-1","output":[{"id":"rs_01","type":"reasoning","summary":[{"type":"summary_text","text":"Search the knowledge base first."}],"encrypted_content":"gAAAAABo-opaque=="},{"id":"fc_01","type":"function_call","status":"completed","call_id":"call_4824d540","name":"knowledge_search","arguments":"{\\"query\\":\\"suite timing\\",\\"n\\":12345678901234567890}"}],"usage":{"input_tokens":3538,"input_tokens_details":{"cached_tokens":256},"output_tokens":121,"output_tokens_details":{"reasoning_tokens":52},"total_tokens":3659},"store":false}`,
  /** A hosted tool search: the call and its output listing the loaded tools, then the call to one. */
  toolSearch: `{"id":"resp_fake_search","object":"response","status":"completed","error":null,"incomplete_details":null,"model":"gpt-fake-1","output":[{"id":"tsc_01","type":"tool_search_call","status":"completed","call_id":null,"execution":"server","arguments":{"query":"stream info"}},{"id":"tso_01","type":"tool_search_output","status":"completed","call_id":null,"execution":"server","tools":[{"type":"function","name":"stream_info","description":"Shows a stream","parameters":{"type":"object","properties":{"stream":{"type":"string"}}},"strict":false,"defer_loading":true}]},{"id":"fc_02","type":"function_call","status":"completed","call_id":"call_77","name":"stream_info","arguments":"{\\"stream\\":\\"ORDERS\\"}"}],"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":15}}`,
});
