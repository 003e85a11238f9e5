import { LlmError } from '../errors.js';
import { count, isObject, obj, str } from '../json-guards.js';
import type { JsonObject } from '../json-guards.js';
import type { Response } from '../provider.js';
import { arrayElements, objectMembers, rootMemberSpan } from '../raw-json.js';
import type { Span } from '../raw-json.js';
import { signatureBytes } from '../signature.js';
import type { ContentBlock, Usage } from '../types.js';
import { stopReason } from '../types.js';

/**
 * Decodes a Messages API answer from its body text. Text, thinking and tool calls map onto the
 * neutral blocks; a tool call's input is cut from the body text so it survives byte for byte; any
 * other block (server tool use, tool search results, redacted thinking, ...) is kept as a provider
 * block holding the exact JSON the API sent, so it goes back unchanged on the next turn. Unknown
 * fields (`caller`, `container`, `stop_details`, ...) are ignored, and an unknown stop reason is
 * passed through beside the unified one.
 *
 * Refuses an answer without a content array with `LlmError('decode')`.
 */
export function decodeMessage(text: string): Response {
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch (err) {
    throw new LlmError('decode', 'the model answer is not valid JSON', { cause: err });
  }
  if (!isObject(body) || !Array.isArray(body.content)) throw new LlmError('decode', 'the model answer has no content array');
  const blocks = body.content as unknown[];
  // Exact bytes are needed only for tool inputs and blocks kept whole, so the text is scanned
  // (once, and only up to the content array) when such a block is present.
  let spans: Span[] | undefined;
  const spanOf = (i: number): Span => {
    if (spans === undefined) {
      try {
        const at = rootMemberSpan(text, 'content');
        spans = at === undefined ? [] : arrayElements(text, at.start);
      } catch (err) {
        throw new LlmError('decode', 'the model answer is not valid JSON', { cause: err });
      }
      if (spans.length !== blocks.length) throw new LlmError('decode', 'the model answer has no content array');
    }
    const span = spans[i];
    if (span === undefined) throw new LlmError('decode', `content block ${i} is not an object`);
    return span;
  };
  const content: ContentBlock[] = [];
  blocks.forEach((raw: unknown, i) => {
    if (!isObject(raw)) throw new LlmError('decode', `content block ${i} is not an object`);
    content.push(decodeBlock(raw, text, () => spanOf(i)));
  });
  const model = typeof body.model === 'string' ? body.model : undefined;
  const response: Response = {
    message: { role: 'assistant', content },
    stopReason: stopReason(str(body, 'stop_reason')),
    usage: decodeUsage(obj(body, 'usage')),
  };
  return model === undefined ? response : { ...response, model };
}

function decodeBlock(block: JsonObject, text: string, spanOf: () => Span): ContentBlock {
  const type = str(block, 'type');
  switch (type) {
    case 'text':
      return { type: 'text', text: str(block, 'text') };
    case 'thinking': {
      const sig = block.signature;
      return typeof sig === 'string' && sig !== ''
        ? { type: 'thinking', text: str(block, 'thinking'), signature: signatureBytes(sig) }
        : { type: 'thinking', text: str(block, 'thinking') };
    }
    case 'tool_use': {
      const input = objectMembers(text, spanOf().start).get('input');
      return {
        type: 'tool_use',
        id: str(block, 'id'),
        name: str(block, 'name'),
        input: input === undefined ? '{}' : text.slice(input.start, input.end),
      };
    }
    case 'tool_result': {
      const plain = plainToolResultText(block.content);
      if (plain !== undefined) {
        return block.is_error === true
          ? { type: 'tool_result', toolUseId: str(block, 'tool_use_id'), content: plain, isError: true }
          : { type: 'tool_result', toolUseId: str(block, 'tool_use_id'), content: plain };
      }
      return rawBlock(type, text, spanOf());
    }
    default:
      return rawBlock(type, text, spanOf());
  }
}

/**
 * Converts one Anthropic content block, given as JSON text, to the neutral shape. Only a
 * plain-text tool result (a string, or exactly one text part) becomes a neutral tool_result; an
 * image or multi-part result is kept whole as a provider block rather than flattened.
 */
export function decodeContentBlock(text: string): ContentBlock {
  let raw: unknown;
  try {
    raw = JSON.parse(text) as unknown;
  } catch (err) {
    throw new LlmError('decode', 'the content block is not valid JSON', { cause: err });
  }
  if (!isObject(raw)) throw new LlmError('decode', 'the content block is not an object');
  const start = text.length - text.trimStart().length;
  const span = { start, end: start + text.trim().length };
  return decodeBlock(raw, text, () => span);
}

function rawBlock(kind: string, text: string, span: Span): ContentBlock {
  return { type: 'provider', kind, raw: text.slice(span.start, span.end) };
}

function plainToolResultText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content) || content.length !== 1) return undefined;
  const only: unknown = content[0];
  if (!isObject(only) || only.type !== 'text') return undefined;
  // A text part with anything beyond its text (citations, a cache marker) is not plain.
  return Object.keys(only).every((k) => k === 'type' || k === 'text') ? str(only, 'text') : undefined;
}

/** Usage: uncached input, output (thinking counted inside it), cache reads and writes. */
export function decodeUsage(u: JsonObject | undefined): Usage {
  return {
    input: count(u, 'input_tokens'),
    output: count(u, 'output_tokens'),
    cacheRead: count(u, 'cache_read_input_tokens'),
    cacheWrite: count(u, 'cache_creation_input_tokens'),
    thinking: count(obj(u, 'output_tokens_details'), 'thinking_tokens'),
  };
}
