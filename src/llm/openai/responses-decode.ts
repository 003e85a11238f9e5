import { LlmError } from '../errors.js';
import { count, isObject, obj, str } from '../json-guards.js';
import type { JsonObject } from '../json-guards.js';
import type { Response } from '../provider.js';
import { arrayElements, rootMemberSpan } from '../raw-json.js';
import type { Span } from '../raw-json.js';
import { signatureBytes } from '../signature.js';
import type { ContentBlock, KnownStopReason, StopReason, Usage } from '../types.js';

/**
 * Decodes a Responses API answer from its body text. Output text becomes text blocks, a function
 * call a tool_use whose input is the model's argument text unchanged, and a reasoning item a
 * thinking block whose text is the summary and whose signature is the item's exact JSON (so its id
 * and encrypted content go back on the next turn). Anything else (tool search calls and outputs,
 * hosted tool calls) is kept as a provider block of exact JSON.
 *
 * Refuses an answer without an output array with `LlmError('decode')`.
 */
export function decodeResponses(text: string): Response {
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch (err) {
    throw new LlmError('decode', 'the model answer is not valid JSON', { cause: err });
  }
  if (!isObject(body) || !Array.isArray(body.output)) throw new LlmError('decode', 'the model answer has no output array');
  const output = body.output as unknown[];
  // Exact bytes are needed only for reasoning items and items kept whole, so the text is scanned
  // (once, and only up to the output array) when such an item is present.
  let spans: Span[] | undefined;
  const rawOf = (i: number): string => {
    if (spans === undefined) {
      try {
        const at = rootMemberSpan(text, 'output');
        spans = at === undefined ? [] : arrayElements(text, at.start);
      } catch (err) {
        throw new LlmError('decode', 'the model answer is not valid JSON', { cause: err });
      }
      if (spans.length !== output.length) throw new LlmError('decode', 'the model answer has no output array');
    }
    const span = spans[i];
    if (span === undefined) throw new LlmError('decode', `output item ${i} is not an object`);
    return text.slice(span.start, span.end);
  };
  const content: ContentBlock[] = [];
  let refused = false;
  output.forEach((raw: unknown, i) => {
    if (!isObject(raw)) throw new LlmError('decode', `output item ${i} is not an object`);
    const type = str(raw, 'type');
    switch (type) {
      case 'message':
        for (const part of Array.isArray(raw.content) ? (raw.content as unknown[]) : []) {
          if (!isObject(part)) continue;
          if (part.type === 'output_text') content.push({ type: 'text', text: str(part, 'text') });
          else if (part.type === 'refusal') {
            refused = true;
            content.push({ type: 'text', text: str(part, 'refusal') });
          }
        }
        break;
      case 'function_call':
        content.push({ type: 'tool_use', id: str(raw, 'call_id'), name: str(raw, 'name'), input: str(raw, 'arguments', '{}') });
        break;
      case 'reasoning': {
        const summary = Array.isArray(raw.summary) ? (raw.summary as unknown[]) : [];
        const textParts = summary.filter(isObject).map((s) => str(s, 'text'));
        content.push({ type: 'thinking', text: textParts.join('\n\n'), signature: signatureBytes(rawOf(i)) });
        break;
      }
      default:
        content.push({ type: 'provider', kind: type, raw: rawOf(i) });
    }
  });
  const model = typeof body.model === 'string' ? body.model : undefined;
  const response: Response = {
    message: { role: 'assistant', content },
    stopReason: responsesStopReason(body, content, refused),
    usage: responsesUsage(obj(body, 'usage')),
  };
  return model === undefined ? response : { ...response, model };
}

function responsesStopReason(body: JsonObject, content: readonly ContentBlock[], refused: boolean): StopReason {
  const status = str(body, 'status');
  if (status === 'incomplete') {
    const reason = str(obj(body, 'incomplete_details') ?? {}, 'reason', 'incomplete');
    return { unified: reason === 'max_output_tokens' ? 'max_tokens' : 'other', raw: reason };
  }
  if (status !== 'completed') return { unified: 'other', raw: status };
  let unified: KnownStopReason = 'end_turn';
  if (refused) unified = 'refusal';
  else if (content.some((b) => b.type === 'tool_use')) unified = 'tool_use';
  return { unified, raw: status };
}

/** Usage: OpenAI counts cached tokens inside input; the neutral input is the uncached part. */
export function responsesUsage(u: JsonObject | undefined): Usage {
  const cached = count(obj(u, 'input_tokens_details'), 'cached_tokens');
  return {
    input: Math.max(0, count(u, 'input_tokens') - cached),
    output: count(u, 'output_tokens'),
    cacheRead: cached,
    cacheWrite: 0,
    thinking: count(obj(u, 'output_tokens_details'), 'reasoning_tokens'),
  };
}
