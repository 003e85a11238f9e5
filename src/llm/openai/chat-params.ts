import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions/completions';
import type { ReasoningEffort } from 'openai/resources/shared';
import type { Request } from '../provider.js';
import { EncodedCache, objectText } from '../encoded-cache.js';
import type { Message, ToolDef } from '../types.js';
import { toolOutputWithoutImages } from '../types.js';

/**
 * Assembles a Chat Completions body for one neutral request, for OpenAI-compatible servers
 * (Ollama, LM Studio, llama.cpp server, vLLM) and OpenAI itself.
 *
 * The system prompt is one string, so there are no cache breakpoints; every tool result is its
 * own `tool` message (this API does not batch them); reasoning is never sent back, because the API
 * has no way to carry it; provider blocks from another API are left out for the same reason.
 * `max_tokens` is used rather than `max_completion_tokens` because the compatible servers accept
 * only the former. Nothing is deferred: the API has no tool search, so every definition is sent.
 */
export function buildChatParams(request: Request): ChatCompletionCreateParamsNonStreaming {
  const messages: ChatCompletionMessageParam[] = [];
  const system = systemText(request);
  if (system !== '') messages.push({ role: 'system', content: system });
  for (const m of request.messages) appendMessage(messages, m);
  const params: ChatCompletionCreateParamsNonStreaming = {
    model: request.model,
    messages,
    max_tokens: request.maxOutputTokens,
  };
  if (request.tools.length > 0) params.tools = chatTools(request.tools);
  // A plain string on purpose: the levels belong to the model.
  if (request.reasoningEffort !== undefined) params.reasoning_effort = request.reasoningEffort as ReasoningEffort;
  return params;
}

/** Each message's wire messages as text (without brackets), encoded once: a stored message never changes. */
const MESSAGE_TEXTS = new EncodedCache<Message>((m) => {
  const out: ChatCompletionMessageParam[] = [];
  appendMessage(out, m);
  return JSON.stringify(out).slice(1, -1);
});

/** Each tool-set snapshot's wire text. */
// each definition's text is kept with the definition as well as the list's with the list: a
// served agent's runs each get a new tool list, made of the same definition objects
const TOOL_TEXT = new EncodedCache<ToolDef>((t) => JSON.stringify(chatTool(t)));
const TOOL_TEXTS = new EncodedCache<readonly ToolDef[]>((tools) => `[${TOOL_TEXT.join(tools)}]`);

/**
 * The request body text {@link buildChatParams} describes, byte for byte the same, assembled from
 * per-message and per-tool-set texts remembered by identity. `stream` adds `"stream":true` and asks
 * for the usage chunk (`stream_options.include_usage`), last.
 */
export function encodeChatParams(request: Request, stream = false): string {
  const system = systemText(request);
  const tail = MESSAGE_TEXTS.join(request.messages);
  const head = system === '' ? '' : JSON.stringify({ role: 'system', content: system });
  return objectText([
    ['model', JSON.stringify(request.model)],
    ['messages', `[${head}${head !== '' && tail !== '' ? ',' : ''}${tail}]`],
    ['max_tokens', JSON.stringify(request.maxOutputTokens)],
    ['tools', request.tools.length > 0 ? TOOL_TEXTS.get(request.tools) : undefined],
    ['reasoning_effort', request.reasoningEffort === undefined ? undefined : JSON.stringify(request.reasoningEffort)],
    ['stream', stream ? 'true' : undefined],
    ['stream_options', stream ? '{"include_usage":true}' : undefined],
  ]);
}

function systemText(request: Request): string {
  return request.system
    .filter((b) => b.text !== '')
    .map((b) => b.text)
    .join('\n\n');
}

/** Function tools with the schema forwarded verbatim. */
export function chatTools(tools: readonly ToolDef[]): ChatCompletionTool[] {
  return tools.map(chatTool);
}

function chatTool(t: ToolDef): ChatCompletionTool {
  return {
    type: 'function',
    function: { name: t.name, description: t.description, parameters: { type: 'object', ...t.inputSchema } },
  };
}

function appendMessage(out: ChatCompletionMessageParam[], m: Message): void {
  if (m.role === 'assistant') {
    const texts: string[] = [];
    const calls: ChatCompletionMessageFunctionToolCall[] = [];
    for (const b of m.content) {
      if (b.type === 'text' && b.text !== '') texts.push(b.text);
      else if (b.type === 'tool_use') calls.push({ id: b.id, type: 'function', function: { name: b.name, arguments: b.input } });
    }
    if (texts.length === 0 && calls.length === 0) return;
    const msg: ChatCompletionAssistantMessageParam = { role: 'assistant', content: texts.length === 0 ? null : texts.join('\n\n') };
    if (calls.length > 0) msg.tool_calls = calls;
    out.push(msg);
    return;
  }
  let texts: string[] = [];
  const flush = (): void => {
    if (texts.length > 0) out.push({ role: 'user', content: texts.join('\n\n') });
    texts = [];
  };
  for (const b of m.content) {
    if (b.type === 'text' && b.text !== '') texts.push(b.text);
    else if (b.type === 'tool_result') {
      flush();
      // a tool message carries text only: the images are named and said to be missing
      out.push({ role: 'tool', tool_call_id: b.toolUseId, content: toolOutputWithoutImages(b) });
    }
  }
  flush();
}
