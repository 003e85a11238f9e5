import type { FakeReply } from './fake-model-server.js';

/**
 * Anthropic Messages API answers for the fake model server: builders for scripted replies and
 * fixtures with the real wire shapes, unknown fields included, so a decoder that chokes on a field
 * it does not know fails a test instead of a run.
 */

/** Usage numbers as the Messages API reports them. */
export interface AnthropicUsage {
  readonly input_tokens?: number;
  readonly output_tokens?: number;
  readonly cache_read_input_tokens?: number;
  readonly cache_creation_input_tokens?: number;
  readonly thinking_tokens?: number;
}

/** Options for {@link anthropicMessage}. */
export interface AnthropicMessageOptions {
  readonly stop_reason?: string;
  readonly usage?: AnthropicUsage;
  readonly model?: string;
  readonly id?: string;
}

/**
 * A successful Messages API reply carrying `content` verbatim. The envelope includes the fields a
 * current API sends that a decoder should ignore (`container`, `stop_details`,
 * `context_management`, a `provider` name).
 */
export function anthropicMessage(content: readonly unknown[], options: AnthropicMessageOptions = {}): FakeReply {
  const u = options.usage ?? {};
  return {
    body: {
      id: options.id ?? 'msg_fake_01',
      type: 'message',
      role: 'assistant',
      container: null,
      content,
      model: options.model ?? 'claude-fake-1',
      stop_reason: options.stop_reason ?? (content.some((b) => isToolUse(b)) ? 'tool_use' : 'end_turn'),
      stop_details: null,
      stop_sequence: null,
      usage: {
        input_tokens: u.input_tokens ?? 0,
        output_tokens: u.output_tokens ?? 0,
        cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
        cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
        cache_creation: null,
        output_tokens_details: { thinking_tokens: u.thinking_tokens ?? 0 },
        server_tool_use: null,
        service_tier: 'standard',
      },
      context_management: null,
      provider: 'fake',
    },
  };
}

function isToolUse(b: unknown): boolean {
  return typeof b === 'object' && b !== null && (b as { type?: unknown }).type === 'tool_use';
}

/** A plain text answer. */
export function anthropicText(text: string, options: AnthropicMessageOptions = {}): FakeReply {
  return anthropicMessage([{ type: 'text', text, citations: [] }], options);
}

/** A turn calling tools, each block carrying the `caller` field the API adds. */
export function anthropicToolUse(
  calls: readonly { readonly id: string; readonly name: string; readonly input: unknown }[],
  options: AnthropicMessageOptions & { readonly text?: string } = {},
): FakeReply {
  const blocks: unknown[] = options.text === undefined ? [] : [{ type: 'text', text: options.text, citations: [] }];
  for (const c of calls) blocks.push({ type: 'tool_use', id: c.id, caller: { type: 'direct' }, name: c.name, input: c.input });
  return anthropicMessage(blocks, options);
}

/** An error reply in the API's envelope. */
export function anthropicError(status: number, type: string, message: string, headers: Readonly<Record<string, string>> = {}): FakeReply {
  return { status, headers: { 'request-id': `req_fake_${status}`, ...headers }, body: { type: 'error', error: { type, message } } };
}

/** A 429 asking the client to retry after `ms` milliseconds (both retry headers set). */
export function anthropicRateLimited(ms = 1): FakeReply {
  return anthropicError(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit', retryAfter(ms));
}

/** A 529 (overloaded) asking the client to retry after `ms` milliseconds. */
export function anthropicOverloaded(ms = 1): FakeReply {
  return anthropicError(529, 'overloaded_error', 'Overloaded', retryAfter(ms));
}

function retryAfter(ms: number): Record<string, string> {
  return { 'retry-after-ms': String(ms), 'retry-after': String(Math.max(0, Math.ceil(ms / 1000))) };
}

/**
 * Recorded answers. `echoToolUse` is byte for byte the reply in the wire trace of the agent loop
 * post (an OpenRouter-served model in Anthropic mode), with its `caller`, `container`,
 * `stop_details`, `context_management` and `provider` fields.
 */
export const ANTHROPIC_FIXTURES = Object.freeze({
  echoToolUse: `{
  "id": "gen-1789843591-n6kfV10Jg42uybEky42W",
  "type": "message",
  "role": "assistant",
  "container": null,
  "content": [
    {
      "type": "text",
      "text": "I'll echo that for you.",
      "citations": []
    },
    {
      "type": "tool_use",
      "id": "toolu_01EfM2Y9PfGGD9PCgZQXPeQC",
      "caller": {
        "type": "direct"
      },
      "name": "echo",
      "input": {
        "text": "hello world"
      }
    }
  ],
  "model": "anthropic/claude-opus-5",
  "stop_reason": "tool_use",
  "stop_details": null,
  "stop_sequence": null,
  "usage": {},
  "context_management": null,
  "provider": "Claude Platform on AWS"
}`,
  /** A server-side tool search: the search call and its successful result, then a deferred tool called. */
  toolSearch: `{"id":"msg_fake_search","type":"message","role":"assistant","container":null,"content":[{"type":"text","text":"Let me find the right tool.","citations":null},{"type":"server_tool_use","id":"srvtoolu_01ABC","name":"tool_search_tool_bm25","input":{"query":"stream info"},"caller":{"type":"direct"}},{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_01ABC","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"stream_info"},{"type":"tool_reference","tool_name":"stream_ls"}]}},{"type":"tool_use","id":"toolu_01XYZ","caller":{"type":"direct"},"name":"stream_info","input":{"stream":"ORDERS","id":12345678901234567890}}],"model":"claude-fake-1","stop_reason":"tool_use","stop_details":null,"stop_sequence":null,"usage":{"input_tokens":3538,"output_tokens":121,"cache_read_input_tokens":256,"cache_creation_input_tokens":0,"output_tokens_details":{"thinking_tokens":0},"server_tool_use":{"tool_search_requests":1}},"context_management":null}`,
  /** Signed and redacted thinking beside a tool call. */
  thinking: `{"id":"msg_fake_think","type":"message","role":"assistant","container":null,"content":[{"type":"thinking","thinking":"The user wants the suite timing; search the knowledge base first.","signature":"EqQBCkYIBRgCKkC+/sig=="},{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"},{"type":"tool_use","id":"call_4824d540e4454b3ab4d81396","caller":{"type":"direct"},"name":"knowledge_search","input":{"query":"speed up testing full test suite outcome results"}}],"model":"claude-fake-1","stop_reason":"tool_use","stop_details":null,"stop_sequence":null,"usage":{"input_tokens":3538,"output_tokens":121,"cache_read_input_tokens":256,"cache_creation_input_tokens":12,"output_tokens_details":{"thinking_tokens":52}},"context_management":null}`,
  /** A stop reason this build has never heard of. */
  unknownStop: `{"id":"msg_fake_stop","type":"message","role":"assistant","content":[{"type":"text","text":"partial"}],"model":"claude-fake-1","stop_reason":"model_context_window_exceeded","stop_details":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`,
});
