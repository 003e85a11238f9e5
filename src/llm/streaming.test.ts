/**
 * Streaming and incremental assembly, per provider over its official SDK against the fake model
 * server: a streamed call returns exactly the response the unstreamed call returns, the observer
 * sees the text as fragments, and the body assembled from remembered per-message texts is byte for
 * byte the body the full parameter tree serialises to.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ANTHROPIC_FIXTURES, anthropicMessage, anthropicText, anthropicToolUse } from '../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../agenttest/fake-model-server.js';
import type { FakeModelServer, FakeReply } from '../agenttest/fake-model-server.js';
import {
  chatCompletion,
  OPENAI_FIXTURES,
  openaiError,
  openaiFunctionCallItem,
  openaiMessageItem,
  openaiReasoningItem,
  openaiResponse,
} from '../agenttest/openai-wire.js';
import { anthropicEventStream, chatCompletionEventStream, openaiResponseEventStream, streamIfAsked } from '../agenttest/sse-wire.js';
import { buildParams, encodeParams } from './anthropic/build-params.js';
import { buildChatParams, encodeChatParams } from './openai/chat-params.js';
import { buildResponsesParams, encodeResponsesParams } from './openai/responses-params.js';
import type { Provider, Request, Response } from './provider.js';
import { newProvider } from './providers.js';
import { RawSlots } from './raw-splice.js';
import { traceMiddleware } from './trace.js';
import type { TraceHttpEvent } from './trace.js';
import { signatureBytes } from './signature.js';
import type { Message } from './types.js';

const history: Message[] = [
  { role: 'user', content: [{ type: 'text', text: 'find the suite timing' }] },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', text: 'search first', signature: signatureBytes('sig-1') },
      { type: 'text', text: 'searching' },
      { type: 'tool_use', id: 'c1', name: 'search', input: '{"q": "suite", "n": 12345678901234567890}' },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', toolUseId: 'c1', content: 'found 3', isError: true }] },
  {
    role: 'assistant',
    content: [
      { type: 'provider', kind: 'redacted_thinking', raw: '{"type":"redacted_thinking","data":"xyz"}' },
      { type: 'text', text: 'ok' },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'and then?' },
      { type: 'text', text: 'quickly' },
    ],
  },
];

const req = (over: Partial<Request> = {}): Request => ({
  model: 'm-1',
  system: [{ text: 'one' }, { text: 'two' }],
  messages: history,
  tools: [
    { name: 'search', description: 'Searches', inputSchema: { properties: { q: { type: 'string' } } }, deferLoading: false },
    { name: 'later', description: 'Deferred', inputSchema: {}, deferLoading: true },
  ],
  maxOutputTokens: 1000,
  thinking: 'on',
  interactive: false,
  noPromptCache: false,
  ...over,
});

const variants: Partial<Request>[] = [
  {},
  { thinking: 'off' },
  { thinking: 'unset', reasoningEffort: 'high', interactive: true },
  { noPromptCache: true, system: [], tools: [] },
  { messages: [] },
];

describe('request assembly by identity', () => {
  it('sends the same bytes as the full parameter tree, on first sight and from memory', () => {
    for (const v of variants) {
      for (let round = 0; round < 2; round++) {
        const r = req({ ...v, messages: [...(v.messages ?? history)] });
        const slots = new RawSlots();
        expect(encodeParams(r)).toBe(slots.serialize(buildParams(r, slots)));
        const rs = new RawSlots();
        expect(encodeResponsesParams(r)).toBe(rs.serialize(buildResponsesParams(r, rs)));
        expect(encodeChatParams(r)).toBe(JSON.stringify(buildChatParams(r)));
      }
    }
  });

  it('asks for a stream by adding the stream fields last and changing nothing else', () => {
    const r = req();
    expect(encodeParams(r, true)).toBe(`${encodeParams(r).slice(0, -1)},"stream":true}`);
    expect(encodeResponsesParams(r, true)).toBe(`${encodeResponsesParams(r).slice(0, -1)},"stream":true}`);
    expect(encodeChatParams(r, true)).toBe(`${encodeChatParams(r).slice(0, -1)},"stream":true,"stream_options":{"include_usage":true}}`);
  });

  it('still refuses a stored tool input that is not JSON, every time it is sent', () => {
    const bad = req({ messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'search', input: '{oops' }] }] });
    expect(() => encodeParams(bad)).toThrow(/tool call x \(search\) input is not valid JSON/);
    expect(() => encodeParams(bad)).toThrow(/tool call x \(search\) input is not valid JSON/);
  });
});

interface Wire {
  readonly provider: string;
  readonly basePath: string;
  readonly toStream: (reply: FakeReply) => FakeReply;
  readonly replies: readonly (readonly [string, FakeReply])[];
}

const wires: Wire[] = [
  {
    provider: 'anthropic',
    basePath: '',
    toStream: anthropicEventStream,
    replies: [
      [
        'text',
        anthropicText('Hello there, streaming world.', {
          usage: { input_tokens: 12, output_tokens: 7, cache_read_input_tokens: 3, cache_creation_input_tokens: 2 },
        }),
      ],
      [
        'text beside tool calls',
        anthropicToolUse(
          [
            { id: 'toolu_1', name: 'search', input: { q: 'a b' } },
            { id: 'toolu_2', name: 'later', input: {} },
          ],
          { text: 'calling two' },
        ),
      ],
      ['signed and redacted thinking', { body: ANTHROPIC_FIXTURES.thinking }],
      ['server tool search with a large integer', { body: ANTHROPIC_FIXTURES.toolSearch }],
      ['a pretty-printed body', { body: ANTHROPIC_FIXTURES.echoToolUse }],
      ['an unknown stop reason', { body: ANTHROPIC_FIXTURES.unknownStop }],
      ['no content at all', anthropicMessage([], { stop_reason: 'max_tokens' })],
    ],
  },
  {
    provider: 'openai',
    basePath: '/v1',
    toStream: openaiResponseEventStream,
    replies: [
      [
        'text',
        openaiResponse([openaiMessageItem('Hello there, streaming world.')], {
          usage: { input_tokens: 20, cached_tokens: 5, output_tokens: 9 },
        }),
      ],
      ['reasoning then a call with a large integer', { body: OPENAI_FIXTURES.reasoningToolCall }],
      ['hosted tool search', { body: OPENAI_FIXTURES.toolSearch }],
      [
        'two summary parts, text and a call',
        openaiResponse([
          { ...(openaiReasoingItemWithTwoParts() as object) },
          openaiMessageItem('first'),
          openaiFunctionCallItem('call_9', 'search', { q: 'x' }),
        ]),
      ],
      [
        'a refusal',
        openaiResponse([
          { id: 'm', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'refusal', refusal: 'I will not.' }] },
        ]),
      ],
      [
        'an incomplete answer',
        openaiResponse([openaiMessageItem('cut sho')], { status: 'incomplete', incompleteReason: 'max_output_tokens' }),
      ],
      ['a failed answer', openaiResponse([], { status: 'failed' })],
    ],
  },
  {
    provider: 'openai-chat',
    basePath: '/v1',
    toStream: chatCompletionEventStream,
    replies: [
      [
        'text',
        chatCompletion('Hello there, streaming world.', {
          usage: { prompt_tokens: 20, cached_tokens: 4, completion_tokens: 6, reasoning_tokens: 2 },
        }),
      ],
      ['reasoning and text', chatCompletion('answer', { reasoning_content: 'let me think it over' })],
      [
        'parallel tool calls',
        chatCompletion(null, {
          tool_calls: [
            { id: 'call_a', name: 'search', arguments: '{"q":"a","n":12345678901234567890}' },
            { id: 'call_b', name: 'later', arguments: {} },
          ],
        }),
      ],
      ['a length stop', chatCompletion('cut', { finish_reason: 'length' })],
    ],
  },
];

function openaiReasoingItemWithTwoParts(): unknown {
  const item = openaiReasoningItem('rs_2', 'part one', 'enc==') as { summary: unknown[] };
  return { ...item, summary: [...item.summary, { type: 'summary_text', text: 'part two' }] };
}

describe.each(wires)('$provider streaming', (wire) => {
  let server: FakeModelServer;
  let provider: Provider;
  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.reset();
    provider = newProvider(wire.provider, { baseUrl: `${server.url}${wire.basePath}`, callTimeoutMs: 10_000, maxRetries: 0, env: {} });
  });

  it.each(wire.replies)('returns the unstreamed response for %s, and shows text as it arrives', async (_, reply) => {
    server.reply(streamIfAsked(reply, wire.toStream), streamIfAsked(reply, wire.toStream));
    const plain = await provider.call(req(), new AbortController().signal);
    const text: string[] = [];
    const thinking: string[] = [];
    const streamed = await provider.call(req(), new AbortController().signal, {
      onText: (d) => text.push(d),
      onThinking: (d) => thinking.push(d),
    });
    expect(streamed).toEqual(plain);
    expect(server.requests[1]?.headers.accept ?? '').not.toBe('');
    expect((server.requests[1]?.body as { stream?: unknown }).stream).toBe(true);
    expect((server.requests[0]?.body as { stream?: unknown }).stream).toBeUndefined();
    expect(text.join('')).toBe(textOf(plain, 'text'));
    expect(thinking.join('')).toBe(textOf(plain, 'thinking'));
    if (textOf(plain, 'text').length >= 3) expect(text.length).toBeGreaterThan(1);
  });

  it('does not stream without a callback, and a callback that throws does not fail the call', async () => {
    const [, reply] = wire.replies[0] ?? ['', {}];
    server.reply(streamIfAsked(reply, wire.toStream), streamIfAsked(reply, wire.toStream));
    await provider.call(req(), new AbortController().signal, {});
    expect((server.requests[0]?.body as { stream?: unknown }).stream).toBeUndefined();
    const r = await provider.call(req(), new AbortController().signal, {
      onText: () => {
        throw new Error('display broke');
      },
    });
    expect(textOf(r, 'text')).not.toBe('');
  });

  it('records a streamed answer in the trace once it has arrived, unchanged', async () => {
    const events: TraceHttpEvent[] = [];
    const traced = newProvider(wire.provider, {
      baseUrl: `${server.url}${wire.basePath}`,
      callTimeoutMs: 10_000,
      maxRetries: 0,
      env: {},
      fetchMiddleware: [traceMiddleware((e) => events.push(e))],
    });
    const [, reply] = wire.replies[0] ?? ['', {}];
    server.reply(streamIfAsked(reply, wire.toStream));
    const plainText = String(wire.toStream(reply).body);
    await traced.call(req(), new AbortController().signal, { onText: () => undefined });
    await vi.waitFor(() => expect(events.map((e) => e.type)).toEqual(['request', 'response']));
    const response = events[1];
    expect(response?.type === 'response' ? response.body : undefined).toBe(plainText);
  });

  it('reports an HTTP error before the stream as the unstreamed call does', async () => {
    server.reply(openaiError(400, 'invalid_request_error', 'bad'));
    await expect(provider.call(req(), new AbortController().signal, { onText: () => undefined })).rejects.toMatchObject({
      code: 'bad_request',
    });
  });

  it('fails a stream cut off before its end', async () => {
    const [, reply] = wire.replies[0] ?? ['', {}];
    const full = wire.toStream(reply);
    const body = String(full.body);
    server.reply({ ...full, body: body.slice(0, Math.floor(body.length / 2)).replace(/\n[^\n]*$/, '\n\n') });
    await expect(provider.call(req(), new AbortController().signal, { onText: () => undefined })).rejects.toMatchObject({
      code: 'network',
    });
  });
});

function textOf(r: Response, kind: 'text' | 'thinking'): string {
  return r.message.content.map((b) => (b.type === kind ? b.text : '')).join('');
}
