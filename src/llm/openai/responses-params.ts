import type { FunctionTool, ResponseCreateParamsNonStreaming, ResponseInputItem, Tool } from 'openai/resources/responses/responses';
import type { Reasoning, ReasoningEffort } from 'openai/resources/shared';
import { LlmError } from '../errors.js';
import type { Request } from '../provider.js';
import { EncodedCache, objectText } from '../encoded-cache.js';
import { RawSlots } from '../raw-splice.js';
import { signatureText } from '../signature.js';
import { stripThinking } from '../strip-thinking.js';
import type { ContentBlock, Message, ToolDef } from '../types.js';
import { toolOutputText } from '../types.js';

/** Provider block kinds that are reasoning, stripped with thinking when it is explicitly off. */
export function isResponsesReasoningKind(kind: string): boolean {
  return kind === 'reasoning';
}

/**
 * Assembles a Responses API body for one neutral request, with no wire call.
 *
 * Stateless on purpose (`store: false`): the harness holds the conversation and sends it whole.
 * Reasoning round-trips through the thinking block's signature, which holds the reasoning item
 * exactly as it came (its id and encrypted content); encrypted content is asked for unless thinking
 * is off. System blocks become the `instructions` string (this API has no per-block cache
 * breakpoints: OpenAI caches prefixes on its own). Tool definitions carry `defer_loading` and the
 * hosted `tool_search` tool is appended only when something deferred.
 *
 * With `slots`, reasoning items and provider blocks are left as markers for `slots.serialize` to
 * splice back byte for byte; without, they are parsed (for inspection in tests).
 */
export function buildResponsesParams(request: Request, slots?: RawSlots): ResponseCreateParamsNonStreaming {
  const input: ResponseInputItem[] = [];
  for (const m of history(request)) appendMessage(input, m, slots);
  const params: ResponseCreateParamsNonStreaming = {
    model: request.model,
    input,
    max_output_tokens: request.maxOutputTokens,
    store: false,
  };
  const instructions = instructionsText(request);
  if (instructions !== '') params.instructions = instructions;
  if (request.tools.length > 0) params.tools = responsesTools(request.tools);
  if (request.thinking !== 'off') params.include = ['reasoning.encrypted_content'];
  const reasoning = reasoningParam(request);
  if (reasoning !== undefined) params.reasoning = reasoning;
  return params;
}

/** Each message's input items as wire text (without brackets), spliced once: a stored message never changes. */
const MESSAGE_TEXTS = new EncodedCache<Message>((m) => {
  const slots = new RawSlots();
  const items: ResponseInputItem[] = [];
  appendMessage(items, m, slots);
  return slots.serialize(items).slice(1, -1);
});

/** Each tool-set snapshot's wire text. */
// each definition's text is kept with the definition as well as the list's with the list: a
// served agent's runs each get a new tool list, made of the same definition objects
const TOOL_TEXT = new EncodedCache<ToolDef>((t) => JSON.stringify(functionTool(t)));
const TOOL_SEARCH_TEXT = JSON.stringify({ type: 'tool_search' });
const TOOL_TEXTS = new EncodedCache<readonly ToolDef[]>(
  (tools) => `[${TOOL_TEXT.join(tools)}${tools.some((t) => t.deferLoading) ? `,${TOOL_SEARCH_TEXT}` : ''}]`,
);

/**
 * The request body text {@link buildResponsesParams} describes, byte for byte the same, assembled
 * from per-message and per-tool-set texts remembered by identity. `stream` adds `"stream":true` last.
 */
export function encodeResponsesParams(request: Request, stream = false): string {
  const instructions = instructionsText(request);
  const reasoning = reasoningParam(request);
  return objectText([
    ['model', JSON.stringify(request.model)],
    ['input', `[${MESSAGE_TEXTS.join(history(request))}]`],
    ['max_output_tokens', JSON.stringify(request.maxOutputTokens)],
    ['store', 'false'],
    ['instructions', instructions === '' ? undefined : JSON.stringify(instructions)],
    ['tools', request.tools.length > 0 ? TOOL_TEXTS.get(request.tools) : undefined],
    ['include', request.thinking === 'off' ? undefined : '["reasoning.encrypted_content"]'],
    ['reasoning', reasoning === undefined ? undefined : JSON.stringify(reasoning)],
    ['stream', stream ? 'true' : undefined],
  ]);
}

function history(request: Request): readonly Message[] {
  return request.thinking === 'off' ? stripThinking(request.messages, isResponsesReasoningKind) : request.messages;
}

function instructionsText(request: Request): string {
  return request.system.map((b) => b.text).join('\n\n');
}

function reasoningParam(request: Request): Reasoning | undefined {
  if (request.thinking !== 'on' && request.reasoningEffort === undefined) return undefined;
  return {
    ...(request.thinking === 'on' ? { summary: 'auto' as const } : {}),
    // A plain string on purpose: the levels belong to the model.
    ...(request.reasoningEffort === undefined ? {} : { effort: request.reasoningEffort as ReasoningEffort }),
  };
}

/** Function tools with `defer_loading` always present, schemas forwarded verbatim, tool search last when needed. */
export function responsesTools(tools: readonly ToolDef[]): Tool[] {
  const out: Tool[] = tools.map(functionTool);
  if (tools.some((t) => t.deferLoading)) out.push({ type: 'tool_search' });
  return out;
}

function functionTool(t: ToolDef): FunctionTool {
  return {
    type: 'function',
    name: t.name,
    description: t.description,
    parameters: { type: 'object', ...t.inputSchema },
    strict: false,
    defer_loading: t.deferLoading,
  };
}

function appendMessage(out: ResponseInputItem[], m: Message, slots: RawSlots | undefined): void {
  let texts: string[] = [];
  const flush = (): void => {
    if (texts.length === 0) return;
    out.push(
      m.role === 'user'
        ? { role: 'user', content: texts.map((text) => ({ type: 'input_text' as const, text })) }
        : { role: 'assistant', content: texts.join('\n\n') },
    );
    texts = [];
  };
  for (const b of m.content) {
    if (b.type === 'text') {
      if (b.text !== '') texts.push(b.text);
      continue;
    }
    flush();
    const item = inputItem(b, slots);
    if (item !== undefined) out.push(item);
  }
  flush();
}

function inputItem(block: Exclude<ContentBlock, { type: 'text' }>, slots: RawSlots | undefined): ResponseInputItem | undefined {
  switch (block.type) {
    case 'thinking': {
      // Only reasoning this API produced can go back: its signature is the reasoning item itself.
      if (block.signature === undefined) return undefined;
      const raw = signatureText(block.signature);
      const item = tryJson(raw);
      if (!isReasoningItem(item)) return undefined;
      return slots === undefined ? item : (slots.slot(raw, 'reasoning item') as unknown as ResponseInputItem);
    }
    case 'tool_use':
      // The arguments go back as the exact text the model produced.
      return { type: 'function_call', call_id: block.id, name: block.name, arguments: block.input };
    case 'tool_result':
      if (block.images === undefined || block.images.length === 0)
        return { type: 'function_call_output', call_id: block.toolUseId, output: toolOutputText(block.content) };
      return {
        type: 'function_call_output',
        call_id: block.toolUseId,
        output: [
          { type: 'input_text', text: toolOutputText(block.content) },
          ...block.images.map((i) => ({
            type: 'input_image' as const,
            image_url: `data:${i.mediaType};base64,${i.data}`,
            detail: 'auto' as const,
          })),
        ],
      };
    case 'provider': {
      if (slots !== undefined) return slots.slot(block.raw, `provider block ${block.kind}`) as unknown as ResponseInputItem;
      const item = tryJson(block.raw);
      if (item === undefined) throw new LlmError('bad_request', `the stored provider block ${block.kind} is not valid JSON`);
      return item as ResponseInputItem;
    }
    default: {
      const never: never = block;
      return never;
    }
  }
}

/**
 * A reasoning item that can be sent back: with `store: false` the service keeps nothing, so an item
 * without its encrypted content would name an id the service cannot find and fail the whole call.
 */
function isReasoningItem(v: unknown): v is ResponseInputItem {
  if (typeof v !== 'object' || v === null) return false;
  const item = v as { type?: unknown; encrypted_content?: unknown };
  return item.type === 'reasoning' && typeof item.encrypted_content === 'string' && item.encrypted_content !== '';
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
