import { arrayElements, objectMembers, rootMemberSpan } from '../llm/raw-json.js';
import type { Span } from '../llm/raw-json.js';
import type { FakeReply, FakeReplyStep, ReceivedRequest } from './fake-model-server.js';

/**
 * Streamed answers for the fake model server: each converter turns a scripted unstreamed reply
 * into the `text/event-stream` the same API sends when asked to stream, event names and order as
 * the real wire has them. Text, reasoning and tool arguments are cut into several fragments so a
 * client that keeps only the last one fails a test. Values the unstreamed body holds as text (a
 * fixture string) are cut from that text, so a large integer or an odd spacing streams byte for
 * byte. Error replies (status 400 and up) are served unchanged, as the APIs answer them before any
 * stream starts.
 */

/** Serves `reply` streamed when the request asked for a stream (`"stream": true`), unstreamed otherwise. */
export function streamIfAsked(reply: FakeReply, toStream: (reply: FakeReply) => FakeReply): FakeReplyStep {
  return (request: ReceivedRequest) => (askedToStream(request) ? toStream(reply) : reply);
}

function askedToStream(request: ReceivedRequest): boolean {
  const body = request.body;
  if (typeof body === 'object' && body !== null && 'stream' in body) return body.stream === true;
  return /"stream"\s*:\s*true/.test(request.bodyText);
}

/** The Anthropic Messages stream of `reply`. */
export function anthropicEventStream(reply: FakeReply): FakeReply {
  if ((reply.status ?? 200) >= 400) return reply;
  const text = bodyText(reply);
  const body = JSON.parse(text) as Record<string, unknown>;
  const blocks = Array.isArray(body.content) ? (body.content as Record<string, unknown>[]) : [];
  const spans = memberElements(text, 'content');
  const out: string[] = [];
  const { content: _content, stop_reason, stop_sequence, usage, ...envelope } = body;
  void _content;
  const usageText = memberText(text, 'usage') ?? '{}';
  out.push(
    sse(
      'message_start',
      `{"type":"message_start","message":${spliceMember(JSON.stringify({ ...envelope, content: [], stop_reason: null, stop_sequence: null, usage: {} }), 'usage', usageText)}}`,
    ),
  );
  out.push(sse('ping', '{"type":"ping"}'));
  blocks.forEach((b, index) => {
    const raw = spans[index] === undefined ? JSON.stringify(b) : text.slice(spans[index].start, spans[index].end);
    const start = (cb: string): void =>
      void out.push(sse('content_block_start', `{"type":"content_block_start","index":${index},"content_block":${cb}}`));
    const delta = (d: object): void =>
      void out.push(sse('content_block_delta', JSON.stringify({ type: 'content_block_delta', index, delta: d })));
    switch (b.type) {
      case 'text':
        start(spliceMember(raw, 'text', '""'));
        for (const t of fragments(textField(b.text))) delta({ type: 'text_delta', text: t });
        break;
      case 'thinking':
        start(spliceMember(spliceMember(raw, 'thinking', '""'), 'signature', '""'));
        for (const t of fragments(textField(b.thinking))) delta({ type: 'thinking_delta', thinking: t });
        if (typeof b.signature === 'string' && b.signature !== '') delta({ type: 'signature_delta', signature: b.signature });
        break;
      case 'tool_use':
      case 'server_tool_use': {
        const input = valueOf(raw, 'input') ?? '{}';
        start(spliceMember(raw, 'input', '{}'));
        for (const t of fragments(input)) delta({ type: 'input_json_delta', partial_json: t });
        break;
      }
      default:
        start(raw);
    }
    out.push(sse('content_block_stop', `{"type":"content_block_stop","index":${index}}`));
  });
  out.push(
    sse(
      'message_delta',
      `{"type":"message_delta","delta":${JSON.stringify({ stop_reason, stop_sequence: stop_sequence ?? null })},"usage":${usageText}}`,
    ),
  );
  out.push(sse('message_stop', '{"type":"message_stop"}'));
  void usage;
  return streamed(reply, out);
}

/** The OpenAI Responses stream of `reply`: created, per-item events with deltas, then the final event carrying the response whole. */
export function openaiResponseEventStream(reply: FakeReply): FakeReply {
  if ((reply.status ?? 200) >= 400) return reply;
  const text = bodyText(reply);
  const body = JSON.parse(text) as Record<string, unknown>;
  const items = Array.isArray(body.output) ? (body.output as Record<string, unknown>[]) : [];
  const spans = memberElements(text, 'output');
  let seq = 0;
  const out: string[] = [];
  const event = (type: string, fields: object): void =>
    void out.push(sse(type, JSON.stringify({ type, sequence_number: seq++, ...fields })));
  const rawEvent = (type: string, member: string, raw: string): void =>
    void out.push(sse(type, `{"type":${JSON.stringify(type)},"sequence_number":${seq++},${JSON.stringify(member)}:${raw}}`));
  const pending = JSON.stringify({ ...body, status: 'in_progress', output: [], usage: null });
  rawEvent('response.created', 'response', pending);
  rawEvent('response.in_progress', 'response', pending);
  items.forEach((item, output_index) => {
    const raw = spans[output_index] === undefined ? JSON.stringify(item) : text.slice(spans[output_index].start, spans[output_index].end);
    const item_id = typeof item.id === 'string' ? item.id : '';
    switch (item.type) {
      case 'message': {
        event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
        const parts = Array.isArray(item.content) ? (item.content as Record<string, unknown>[]) : [];
        parts.forEach((part, content_index) => {
          const kind = part.type === 'refusal' ? 'refusal' : 'output_text';
          const whole = textField(kind === 'refusal' ? part.refusal : part.text);
          event('response.content_part.added', {
            item_id,
            output_index,
            content_index,
            part: { ...part, [kind === 'refusal' ? 'refusal' : 'text']: '' },
          });
          for (const delta of fragments(whole))
            event(`response.${kind}.delta`, {
              item_id,
              output_index,
              content_index,
              delta,
              ...(kind === 'output_text' ? { logprobs: [] } : {}),
            });
          event(`response.${kind}.done`, { item_id, output_index, content_index, [kind === 'refusal' ? 'refusal' : 'text']: whole });
          event('response.content_part.done', { item_id, output_index, content_index, part });
        });
        break;
      }
      case 'reasoning': {
        event('response.output_item.added', { output_index, item: { ...item, summary: [] } });
        const summary = Array.isArray(item.summary) ? (item.summary as Record<string, unknown>[]) : [];
        summary.forEach((part, summary_index) => {
          event('response.reasoning_summary_part.added', { item_id, output_index, summary_index, part: { ...part, text: '' } });
          for (const delta of fragments(textField(part.text)))
            event('response.reasoning_summary_text.delta', { item_id, output_index, summary_index, delta });
          event('response.reasoning_summary_text.done', { item_id, output_index, summary_index, text: part.text });
          event('response.reasoning_summary_part.done', { item_id, output_index, summary_index, part });
        });
        break;
      }
      case 'function_call': {
        event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
        for (const delta of fragments(textField(item.arguments)))
          event('response.function_call_arguments.delta', { item_id, output_index, delta });
        event('response.function_call_arguments.done', { item_id, output_index, arguments: item.arguments });
        break;
      }
      default:
        rawEvent('response.output_item.added', 'item', raw);
    }
    out.push(
      sse(
        'response.output_item.done',
        `{"type":"response.output_item.done","sequence_number":${seq++},"output_index":${output_index},"item":${raw}}`,
      ),
    );
  });
  const status = body.status;
  const final = status === 'incomplete' ? 'response.incomplete' : status === 'failed' ? 'response.failed' : 'response.completed';
  rawEvent(final, 'response', text.trim());
  return streamed(reply, out);
}

/** The Chat Completions stream of `reply`: a role chunk, delta chunks, the finish chunk, the usage chunk, `[DONE]`. */
export function chatCompletionEventStream(reply: FakeReply): FakeReply {
  if ((reply.status ?? 200) >= 400) return reply;
  const body = JSON.parse(bodyText(reply)) as Record<string, unknown>;
  const choice = (Array.isArray(body.choices) ? body.choices[0] : undefined) as Record<string, unknown> | undefined;
  const message = (choice?.message ?? {}) as Record<string, unknown>;
  const envelope = {
    id: body.id,
    object: 'chat.completion.chunk',
    created: body.created,
    model: body.model,
    system_fingerprint: body.system_fingerprint ?? null,
  };
  const out: string[] = [];
  const chunk = (delta: object, finish_reason: string | null = null): void =>
    void out.push(sse('', JSON.stringify({ ...envelope, choices: [{ index: 0, delta, logprobs: null, finish_reason }] })));
  chunk({ role: 'assistant', content: '', refusal: null });
  for (const key of ['reasoning_content', 'reasoning', 'content', 'refusal'] as const) {
    const value = message[key];
    if (typeof value === 'string') for (const fragment of fragments(value)) chunk({ [key]: fragment });
  }
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as Record<string, unknown>[]) : [];
  calls.forEach((call, index) => {
    const fn = (call.function ?? {}) as Record<string, unknown>;
    chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: fn.name, arguments: '' } }] });
    for (const t of fragments(textField(fn.arguments))) chunk({ tool_calls: [{ index, function: { arguments: t } }] });
  });
  chunk({}, typeof choice?.finish_reason === 'string' ? choice.finish_reason : 'stop');
  if (body.usage !== undefined) out.push(sse('', JSON.stringify({ ...envelope, choices: [], usage: body.usage })));
  out.push(sse('', '[DONE]'));
  return streamed(reply, out);
}

function textField(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function bodyText(reply: FakeReply): string {
  return typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
}

function streamed(reply: FakeReply, events: readonly string[]): FakeReply {
  return {
    status: reply.status ?? 200,
    headers: { ...reply.headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
    body: events.join(''),
  };
}

function sse(event: string, data: string): string {
  // A data value spanning lines (a pretty-printed fixture) goes out as one `data:` line per line.
  return `${event === '' ? '' : `event: ${event}\n`}${data
    .split('\n')
    .map((line) => `data: ${line}`)
    .join('\n')}\n\n`;
}

/** A string cut into up to three pieces (one when short), in order. */
function fragments(s: string): string[] {
  if (s.length < 3) return s === '' ? [] : [s];
  const a = Math.ceil(s.length / 3);
  return [s.slice(0, a), s.slice(a, 2 * a), s.slice(2 * a)].filter((x) => x !== '');
}

function memberElements(text: string, key: string): Span[] {
  const at = rootMemberSpan(text, key);
  return at === undefined || text.charCodeAt(at.start) !== 0x5b ? [] : arrayElements(text, at.start);
}

function memberText(text: string, key: string): string | undefined {
  const at = rootMemberSpan(text, key);
  return at === undefined ? undefined : text.slice(at.start, at.end);
}

/** The text of member `key` of the object text `raw`. */
function valueOf(raw: string, key: string): string | undefined {
  const at = objectMembers(raw, 0).get(key);
  return at === undefined ? undefined : raw.slice(at.start, at.end);
}

/** The object text `raw` with member `key`'s value replaced by `value` (unchanged when absent). */
function spliceMember(raw: string, key: string, value: string): string {
  const at = objectMembers(raw, 0).get(key);
  return at === undefined ? raw : `${raw.slice(0, at.start)}${value}${raw.slice(at.end)}`;
}
