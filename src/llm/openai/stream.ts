import { LlmError } from '../errors.js';
import { isObject, obj, str } from '../json-guards.js';
import type { JsonObject } from '../json-guards.js';
import type { Response, StreamObserver } from '../provider.js';
import { rootMemberSpan } from '../raw-json.js';
import { eventJson, report, sseEvents } from '../sse.js';
import { decodeChatBody } from './chat-decode.js';
import { decodeResponses } from './responses-decode.js';

/** The Responses events that carry the finished response whole. */
const FINAL_EVENTS: ReadonlySet<unknown> = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * Reads a streamed Responses API answer. Output text, refusal and reasoning-summary fragments go
 * to the observer as they arrive; the response is decoded from the finished response the final
 * event (`response.completed`, `.incomplete` or `.failed`) carries, cut from the event's own text,
 * so reasoning items and kept items are the exact bytes the unstreamed answer would hold. An
 * `error` event fails the call.
 */
export async function decodeResponsesStream(body: ReadableStream<Uint8Array> | null, observer: StreamObserver): Promise<Response> {
  for await (const e of sseEvents(body)) {
    const data = eventJson(e);
    if (!isObject(data)) continue;
    const type = data.type;
    if (type === 'response.output_text.delta' || type === 'response.refusal.delta') report(observer, 'text', str(data, 'delta'));
    else if (type === 'response.reasoning_summary_text.delta') report(observer, 'thinking', str(data, 'delta'));
    else if (type === 'response.reasoning_summary_part.added' && typeof data.summary_index === 'number' && data.summary_index > 0)
      report(observer, 'thinking', '\n\n');
    else if (type === 'error') throw streamError(data);
    else if (FINAL_EVENTS.has(type)) {
      const span = rootMemberSpan(e.data, 'response');
      if (span === undefined) throw new LlmError('decode', `the streamed ${String(type)} event carries no response`);
      return decodeResponses(e.data.slice(span.start, span.end));
    }
  }
  throw new LlmError('network', 'the streamed answer ended before the response was complete');
}

/** One tool call while its fragments arrive. */
interface ChatCall {
  id: string;
  name: string;
  args: string;
}

/**
 * Reads a streamed Chat Completions answer (chunks of the first choice, a usage chunk, `[DONE]`).
 * Content, refusal and reasoning fragments go to the observer as they arrive; the pieces are put
 * back together into the answer the unstreamed call returns and decoded the same way, tool call
 * arguments concatenated in order. A chunk carrying `error` fails the call.
 */
export async function decodeChatStream(body: ReadableStream<Uint8Array> | null, observer: StreamObserver): Promise<Response> {
  let model: unknown;
  let usage: unknown;
  let finish: unknown;
  let text = '';
  let refusal = '';
  let reasoningContent = '';
  let reasoning = '';
  const calls: ChatCall[] = [];
  let done = false;
  for await (const event of sseEvents(body)) {
    if (event.data === '[DONE]') {
      done = true;
      break;
    }
    const chunk = eventJson(event);
    if (!isObject(chunk)) continue;
    if (isObject(chunk.error)) throw streamError(chunk.error);
    if (typeof chunk.model === 'string' && model === undefined) model = chunk.model;
    if (isObject(chunk.usage)) usage = chunk.usage;
    const choice = Array.isArray(chunk.choices) ? (chunk.choices as unknown[]).find((c) => isObject(c) && (c.index ?? 0) === 0) : undefined;
    if (!isObject(choice)) continue;
    if (typeof choice.finish_reason === 'string') finish = choice.finish_reason;
    const delta = obj(choice, 'delta');
    if (delta === undefined) continue;
    const textDelta = str(delta, 'content');
    text += textDelta;
    report(observer, 'text', textDelta);
    const refusalDelta = str(delta, 'refusal');
    refusal += refusalDelta;
    report(observer, 'text', refusalDelta);
    const rc = str(delta, 'reasoning_content');
    reasoningContent += rc;
    report(observer, 'thinking', rc);
    const rr = str(delta, 'reasoning');
    reasoning += rr;
    if (rc === '') report(observer, 'thinking', rr);
    for (const tc of Array.isArray(delta.tool_calls) ? (delta.tool_calls as unknown[]) : []) addCall(calls, tc);
  }
  if (!done && finish === undefined) throw new LlmError('network', 'the streamed answer ended before it was complete');
  const message: Record<string, unknown> = { role: 'assistant', content: text, refusal, reasoning_content: reasoningContent, reasoning };
  const toolCalls = calls
    .filter((c) => c !== undefined)
    .map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } }));
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return decodeChatBody({
    ...(model === undefined ? {} : { model }),
    choices: [{ index: 0, message, finish_reason: finish ?? '' }],
    ...(usage === undefined ? {} : { usage }),
  });
}

function addCall(calls: ChatCall[], tc: unknown): void {
  if (!isObject(tc)) return;
  const i = typeof tc.index === 'number' && Number.isInteger(tc.index) && tc.index >= 0 && tc.index < 10_000 ? tc.index : calls.length;
  const call = (calls[i] ??= { id: '', name: '', args: '' });
  const fn = obj(tc, 'function') ?? {};
  if (call.id === '') call.id = str(tc, 'id');
  if (call.name === '') call.name = str(fn, 'name');
  call.args += str(fn, 'arguments');
}

function streamError(err: JsonObject): LlmError {
  const message = str(err, 'message') || str(err, 'code') || str(err, 'type') || 'unknown error';
  return new LlmError('server', `the model reported an error mid-answer: ${message}`);
}
