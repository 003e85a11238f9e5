import type {
  CacheControlEphemeral,
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  OutputConfig,
  TextBlockParam,
  ThinkingConfigParam,
  Tool,
  ToolUnion,
} from '@anthropic-ai/sdk/resources/messages/messages';
import { LlmError } from '../errors.js';
import { EncodedCache, objectText } from '../encoded-cache.js';
import { RawSlots } from '../raw-splice.js';
import type { Request } from '../provider.js';
import { signatureText } from '../signature.js';
import { stripThinking } from '../strip-thinking.js';
import type { ContentBlock, Message, ToolDef } from '../types.js';
import { toolOutputText } from '../types.js';

/** The server-side tool-search tool appended when at least one definition is deferred. */
export const TOOL_SEARCH_TOOL = Object.freeze({ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' } as const);

/** Provider block kinds that are reasoning, stripped with thinking when it is explicitly off. */
export function isAnthropicReasoningKind(kind: string): boolean {
  return kind === 'redacted_thinking';
}

/**
 * Assembles the Messages API body for one neutral request, with no wire call, so request assembly
 * is testable alone. System blocks are built fresh every call so a cache marker never leaks into
 * the caller's values (which are hashed into the run fingerprint).
 *
 * Caching: unless `noPromptCache`, one breakpoint on the last system block (tools and system) and
 * one at request level (the conversation tail), with a 1 hour lifetime for an interactive run (an
 * operator may think longer than five minutes) and 5 minutes otherwise.
 *
 * With `slots`, tool call inputs and provider blocks are left as markers for `slots.serialize` to
 * splice back byte for byte; without, they are parsed (for inspection in tests).
 *
 * Refuses (with `LlmError('bad_request')`) a tool call whose stored input is not JSON, since the
 * API would reject the turn anyway and the message can say which call it is.
 */
export function buildParams(request: Request, slots?: RawSlots): MessageCreateParamsNonStreaming {
  const cache = cacheControl(request);
  const system = systemParams(request, cache);
  const params: MessageCreateParamsNonStreaming = {
    model: request.model,
    max_tokens: request.maxOutputTokens,
    messages: history(request).map((m) => messageParam(m, slots)),
  };
  if (system.length > 0) params.system = system;
  if (request.tools.length > 0) params.tools = toolParams(request.tools);
  if (cache !== undefined) params.cache_control = cache;
  const thinking = thinkingParam(request);
  if (thinking !== undefined) params.thinking = thinking;
  const output = outputConfig(request);
  if (output !== undefined) params.output_config = output;
  return params;
}

/** Each message's wire text, spliced once: a stored message never changes. */
const MESSAGE_TEXTS = new EncodedCache<Message>((m) => {
  const slots = new RawSlots();
  return slots.serialize(messageParam(m, slots));
});

/** Each tool-set snapshot's wire text. */
// each definition's text is kept with the definition as well as the list's with the list: a
// served agent's runs each get a new tool list, made of the same definition objects
const TOOL_TEXT = new EncodedCache<ToolDef>((t) => JSON.stringify(toolParam(t)));
const TOOL_SEARCH_TEXT = JSON.stringify(TOOL_SEARCH_TOOL);
const TOOL_TEXTS = new EncodedCache<readonly ToolDef[]>(
  (tools) => `[${TOOL_TEXT.join(tools)}${tools.some((t) => t.deferLoading) ? `,${TOOL_SEARCH_TEXT}` : ''}]`,
);

/**
 * The request body text {@link buildParams} describes, byte for byte the same, assembled from
 * per-message and per-tool-set texts remembered by identity, so a call encodes only the messages
 * it has not seen. `stream` adds `"stream":true` last.
 */
export function encodeParams(request: Request, stream = false): string {
  const cache = cacheControl(request);
  const system = systemParams(request, cache);
  const thinking = thinkingParam(request);
  const output = outputConfig(request);
  return objectText([
    ['model', JSON.stringify(request.model)],
    ['max_tokens', JSON.stringify(request.maxOutputTokens)],
    ['messages', `[${MESSAGE_TEXTS.join(history(request))}]`],
    ['system', system.length > 0 ? JSON.stringify(system) : undefined],
    ['tools', request.tools.length > 0 ? TOOL_TEXTS.get(request.tools) : undefined],
    ['cache_control', cache === undefined ? undefined : JSON.stringify(cache)],
    ['thinking', thinking === undefined ? undefined : JSON.stringify(thinking)],
    ['output_config', output === undefined ? undefined : JSON.stringify(output)],
    ['stream', stream ? 'true' : undefined],
  ]);
}

function cacheControl(request: Request): CacheControlEphemeral | undefined {
  return request.noPromptCache ? undefined : { type: 'ephemeral', ttl: request.interactive ? '1h' : '5m' };
}

function systemParams(request: Request, cache: CacheControlEphemeral | undefined): TextBlockParam[] {
  const system: TextBlockParam[] = request.system.filter((b) => b.text !== '').map((b) => ({ type: 'text', text: b.text }));
  const last = system[system.length - 1];
  if (cache !== undefined && last !== undefined) system[system.length - 1] = { ...last, cache_control: cache };
  return system;
}

function history(request: Request): readonly Message[] {
  return request.thinking === 'off' ? stripThinking(request.messages, isAnthropicReasoningKind) : request.messages;
}

function thinkingParam(request: Request): ThinkingConfigParam | undefined {
  if (request.thinking === 'on') return { type: 'adaptive', display: 'summarized' };
  if (request.thinking === 'off') return { type: 'disabled' };
  return undefined;
}

function outputConfig(request: Request): OutputConfig | undefined {
  // A plain string on purpose: the levels belong to the model, and a newer one may accept a level
  // this SDK's types have not heard of.
  return request.reasoningEffort === undefined ? undefined : { effort: request.reasoningEffort as OutputConfig['effort'] & string };
}

/**
 * Tool definitions: `defer_loading` always present, the schema forwarded verbatim (extra keys
 * included), and the BM25 tool-search tool appended last only when something actually deferred.
 */
export function toolParams(tools: readonly ToolDef[]): ToolUnion[] {
  const out: ToolUnion[] = tools.map(toolParam);
  if (tools.some((t) => t.deferLoading)) out.push({ ...TOOL_SEARCH_TOOL });
  return out;
}

function toolParam(t: ToolDef): ToolUnion {
  return {
    type: 'custom',
    name: t.name,
    description: t.description,
    input_schema: objectSchema(t.inputSchema),
    defer_loading: t.deferLoading,
  };
}

/**
 * The schema with `"type": "object"` first, as the API wants it. A schema that already starts so
 * (every command's does) is sent as it is, not copied: it encodes to the same text.
 */
function objectSchema(schema: Readonly<Record<string, unknown>>): Tool.InputSchema {
  let first: string | undefined;
  // the first own key, without listing them all
  for (const key in schema) {
    first = key;
    break;
  }
  if (first === 'type' && schema['type'] === 'object' && Object.prototype.hasOwnProperty.call(schema, 'type'))
    return schema as Tool.InputSchema;
  return { type: 'object', ...schema };
}

function messageParam(m: Message, slots: RawSlots | undefined): MessageParam {
  return { role: m.role, content: m.content.filter((b) => b.type !== 'text' || b.text !== '').map((b) => blockParam(b, slots)) };
}

function blockParam(block: ContentBlock, slots: RawSlots | undefined): ContentBlockParam {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'thinking':
      return { type: 'thinking', thinking: block.text, signature: block.signature === undefined ? '' : signatureText(block.signature) };
    case 'tool_use': {
      const what = `tool call ${block.id} (${block.name}) input`;
      return {
        type: 'tool_use',
        id: block.id,
        name: block.name,
        input: slots === undefined ? parseJson(block.input, what) : slots.slot(block.input, what),
      };
    }
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: block.toolUseId,
        content: [
          { type: 'text', text: toolOutputText(block.content) },
          ...(block.images ?? []).map((i) => ({
            type: 'image' as const,
            source: { type: 'base64' as const, media_type: i.mediaType, data: i.data },
          })),
        ],
        is_error: block.isError ?? false,
      };
    case 'provider':
      // Faithful raw JSON the API produced; sent back exactly as it came.
      return (
        slots === undefined ? parseJson(block.raw, `provider block ${block.kind}`) : slots.slot(block.raw, `provider block ${block.kind}`)
      ) as ContentBlockParam;
    default: {
      const never: never = block;
      return never;
    }
  }
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new LlmError('bad_request', `the stored ${what} is not valid JSON`, { cause: err });
  }
}
