import { LlmError } from '../errors.js';
import { count, isObject, obj, str } from '../json-guards.js';
import type { JsonObject } from '../json-guards.js';
import type { Response } from '../provider.js';
import type { ContentBlock, KnownStopReason, StopReason, Usage } from '../types.js';

const FINISH: Readonly<Record<string, KnownStopReason>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
};

/**
 * Decodes a Chat Completions answer (the first choice). The non-standard `reasoning_content` some
 * compatible servers return becomes a thinking block without a signature (shown, never sent
 * back); tool calls keep their argument text unchanged. An unknown finish reason passes through.
 *
 * Refuses an answer without a choice with `LlmError('decode')`.
 */
export function decodeChat(text: string): Response {
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch (err) {
    throw new LlmError('decode', 'the model answer is not valid JSON', { cause: err });
  }
  return decodeChatBody(body);
}

/** {@link decodeChat} for an answer already parsed (or assembled from a stream). */
export function decodeChatBody(body: unknown): Response {
  const choice = isObject(body) && Array.isArray(body.choices) ? (body.choices as unknown[])[0] : undefined;
  if (!isObject(body) || !isObject(choice)) throw new LlmError('decode', 'the model answer has no choices');
  const message = obj(choice, 'message') ?? {};
  const content: ContentBlock[] = [];
  const reasoning = str(message, 'reasoning_content') || str(message, 'reasoning');
  if (reasoning !== '') content.push({ type: 'thinking', text: reasoning });
  const textOut = str(message, 'content');
  if (textOut !== '') content.push({ type: 'text', text: textOut });
  const refusal = str(message, 'refusal');
  if (refusal !== '') content.push({ type: 'text', text: refusal });
  for (const call of Array.isArray(message.tool_calls) ? (message.tool_calls as unknown[]) : []) {
    if (!isObject(call)) continue;
    const fn = obj(call, 'function') ?? {};
    content.push({ type: 'tool_use', id: str(call, 'id'), name: str(fn, 'name'), input: str(fn, 'arguments', '{}') || '{}' });
  }
  const model = typeof body.model === 'string' ? body.model : undefined;
  const response: Response = {
    message: { role: 'assistant', content },
    stopReason: finishReason(str(choice, 'finish_reason'), refusal !== ''),
    usage: chatUsage(obj(body, 'usage')),
  };
  return model === undefined ? response : { ...response, model };
}

function finishReason(raw: string, refused: boolean): StopReason {
  if (refused) return { unified: 'refusal', raw };
  return { unified: FINISH[raw] ?? 'other', raw };
}

/** Usage: cached prompt tokens are counted inside `prompt_tokens`; the neutral input is the uncached part. */
export function chatUsage(u: JsonObject | undefined): Usage {
  const cached = count(obj(u, 'prompt_tokens_details'), 'cached_tokens');
  return {
    input: Math.max(0, count(u, 'prompt_tokens') - cached),
    output: count(u, 'completion_tokens'),
    cacheRead: cached,
    cacheWrite: 0,
    thinking: count(obj(u, 'completion_tokens_details'), 'reasoning_tokens'),
  };
}
