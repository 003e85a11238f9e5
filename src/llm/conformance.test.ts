/**
 * One conformance suite for the provider contract, run against every provider this build links,
 * each over the official SDK against the fake model server speaking that provider's wire format.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ANTHROPIC_FIXTURES, anthropicError, anthropicRateLimited, anthropicText } from '../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../agenttest/fake-model-server.js';
import type { FakeModelServer, FakeReply } from '../agenttest/fake-model-server.js';
import {
  chatCompletion,
  OPENAI_FIXTURES,
  openaiError,
  openaiFunctionCallItem,
  openaiRateLimited,
  openaiResponse,
  openaiText,
} from '../agenttest/openai-wire.js';
import { ConfigError } from '../config/index.js';
import { LlmError } from './errors.js';
import type { ProviderOptions } from './options.js';
import type { Provider, Request } from './provider.js';
import { newProvider, providerNames } from './providers.js';
import type { Message, Usage } from './types.js';
import { eventually } from '../agenttest/eventually.js';

const BIG_ARGS = '{"n":12345678901234567890,"s":"x y"}';

interface Harness {
  readonly name: string;
  /** Appended to the server URL to form the base URL the SDK expects. */
  readonly basePath: string;
  text(text: string): FakeReply;
  toolCall(id: string, name: string, args: string): FakeReply;
  /** A reply whose stop reason is unknown to this build, and that raw value. */
  readonly unknownStop: { readonly reply: FakeReply; readonly raw: string };
  readonly maxTokens: FakeReply;
  readonly usage: { readonly reply: FakeReply; readonly expected: Usage };
  /** A reply with signed reasoning, and the signature text that must come back next turn; absent when unsupported. */
  readonly thinking?: { readonly reply: FakeReply; readonly mustEcho: string };
  rateLimited(): FakeReply;
  badRequest(): FakeReply;
  /** The tool call and tool result as the provider sent them back in a request body. */
  echoed(body: string, id: string): { call: boolean; result: boolean };
  /** Whether the request carries cache breakpoints this provider should place. */
  readonly placesCacheMarkers: boolean;
}

const harnesses: Harness[] = [
  {
    name: 'anthropic',
    basePath: '',
    text: (t) => anthropicText(t),
    // Spliced as text: parsing the arguments here would round the large integer before the test starts.
    toolCall: (id, name, args) => ({
      body: `{"id":"msg_c","type":"message","role":"assistant","container":null,"content":[{"type":"tool_use","id":"${id}","caller":{"type":"direct"},"name":"${name}","input":${args}}],"model":"m","stop_reason":"tool_use","stop_details":null,"usage":{"input_tokens":1,"output_tokens":1}}`,
    }),
    unknownStop: { reply: { body: ANTHROPIC_FIXTURES.unknownStop }, raw: 'model_context_window_exceeded' },
    maxTokens: anthropicText('cut', { stop_reason: 'max_tokens' }),
    usage: {
      reply: anthropicText('u', {
        usage: { input_tokens: 10, output_tokens: 7, cache_read_input_tokens: 3, cache_creation_input_tokens: 2, thinking_tokens: 4 },
      }),
      expected: { input: 10, output: 7, cacheRead: 3, cacheWrite: 2, thinking: 4 },
    },
    thinking: { reply: { body: ANTHROPIC_FIXTURES.thinking }, mustEcho: '"signature":"EqQBCkYIBRgCKkC+/sig=="' },
    rateLimited: () => anthropicRateLimited(1),
    badRequest: () => anthropicError(400, 'invalid_request_error', 'bad'),
    echoed: (body, id) => ({
      call: body.includes(`"id":"${id}"`) && body.includes('"type":"tool_use"'),
      result: body.includes(`"tool_use_id":"${id}"`),
    }),
    placesCacheMarkers: true,
  },
  {
    name: 'openai',
    basePath: '/v1',
    text: (t) => openaiText(t),
    toolCall: (id, name, args) => openaiResponse([openaiFunctionCallItem(id, name, args)]),
    unknownStop: { reply: openaiResponse([], { status: 'incomplete', incompleteReason: 'brand_new_reason' }), raw: 'brand_new_reason' },
    maxTokens: openaiResponse([], { status: 'incomplete', incompleteReason: 'max_output_tokens' }),
    usage: {
      reply: openaiText('u', { usage: { input_tokens: 13, cached_tokens: 3, output_tokens: 7, reasoning_tokens: 4 } }),
      expected: { input: 10, output: 7, cacheRead: 3, cacheWrite: 0, thinking: 4 },
    },
    thinking: { reply: { body: OPENAI_FIXTURES.reasoningToolCall }, mustEcho: '"encrypted_content":"gAAAAABo-opaque=="' },
    rateLimited: () => openaiRateLimited(1),
    badRequest: () => openaiError(400, 'invalid_request_error', 'bad'),
    echoed: (body, id) => ({
      call: body.includes(`"call_id":"${id}"`) && body.includes('"type":"function_call"'),
      result: body.includes('"type":"function_call_output"') && body.includes(`"call_id":"${id}"`),
    }),
    placesCacheMarkers: false,
  },
  {
    name: 'openai-chat',
    basePath: '/v1',
    text: (t) => chatCompletion(t),
    toolCall: (id, name, args) => chatCompletion(null, { tool_calls: [{ id, name, arguments: args }] }),
    unknownStop: { reply: chatCompletion('x', { finish_reason: 'eos_token' }), raw: 'eos_token' },
    maxTokens: chatCompletion('cut', { finish_reason: 'length' }),
    usage: {
      reply: chatCompletion('u', { usage: { prompt_tokens: 13, cached_tokens: 3, completion_tokens: 7, reasoning_tokens: 4 } }),
      expected: { input: 10, output: 7, cacheRead: 3, cacheWrite: 0, thinking: 4 },
    },
    rateLimited: () => openaiRateLimited(1),
    badRequest: () => openaiError(400, 'invalid_request_error', 'bad'),
    echoed: (body, id) => ({
      call: body.includes(`"tool_calls":[{"id":"${id}"`),
      result: body.includes(`"role":"tool","tool_call_id":"${id}"`),
    }),
    placesCacheMarkers: false,
  },
];

it('covers every linked provider', () => {
  expect(harnesses.map((h) => h.name).sort()).toEqual(providerNames().filter((n) => n !== 'embedded-test'));
});

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });

const request = (over: Partial<Request> = {}): Request => ({
  model: 'conformance-model',
  system: [{ text: 'You are terse.' }, { text: 'Answer in one sentence.' }],
  messages: [user('hello')],
  tools: [
    { name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: { s: { type: 'string' } } }, deferLoading: false },
  ],
  maxOutputTokens: 256,
  thinking: 'unset',
  interactive: false,
  noPromptCache: false,
  ...over,
});

for (const h of harnesses) {
  describe(`provider conformance: ${h.name}`, () => {
    let server: FakeModelServer;
    const make = (over: Partial<ProviderOptions> = {}): Provider =>
      newProvider(h.name, { baseUrl: server.url + h.basePath, callTimeoutMs: 10_000, maxRetries: 2, env: {}, ...over });
    const signal = (): AbortSignal => new AbortController().signal;
    const lastBody = (): string => server.requests[server.requests.length - 1]?.bodyText ?? '';

    beforeAll(async () => {
      server = await startFakeModelServer();
    });
    afterAll(async () => {
      await server.close();
    });
    beforeEach(() => {
      // A timed-out call may give up before its request reaches the server, leaving its reply queued.
      server.reset();
    });
    afterEach(() => {
      if (!timingSensitive) expect(server.pending).toBe(0);
      timingSensitive = false;
    });
    let timingSensitive = false;

    it('answers with text and end_turn', async () => {
      server.reply(h.text('hello back'));
      const r = await make().call(request(), signal());
      expect(r.message).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'hello back' }] });
      expect(r.stopReason.unified).toBe('end_turn');
    });

    it('round-trips a tool call: arguments byte for byte out, the call and its result back in', async () => {
      server.reply(h.toolCall('call_1', 'echo', BIG_ARGS), h.text('done'));
      const p = make();
      const first = await p.call(request(), signal());
      expect(first.stopReason.unified).toBe('tool_use');
      const call = first.message.content.find((b) => b.type === 'tool_use');
      expect(call).toEqual({ type: 'tool_use', id: 'call_1', name: 'echo', input: BIG_ARGS });
      const history: Message[] = [
        user('hello'),
        first.message,
        { role: 'user', content: [{ type: 'tool_result', toolUseId: 'call_1', content: '{"echoed":"x y"}' }] },
      ];
      await p.call(request({ messages: history }), signal());
      expect(h.echoed(lastBody(), 'call_1')).toEqual({ call: true, result: true });
      expect(lastBody()).toContain('12345678901234567890');
    });

    it('preserves a thinking signature across turns (or declares no thinking)', async () => {
      const caps = make().capabilities();
      if (h.thinking === undefined) {
        expect(caps.thinking).toBe(false);
        return;
      }
      expect(caps.thinking).toBe(true);
      server.reply(h.thinking.reply, h.text('ok'));
      const p = make();
      const first = await p.call(request({ thinking: 'on' }), signal());
      expect(first.message.content[0]?.type).toBe('thinking');
      await p.call(
        request({
          thinking: 'on',
          messages: [user('hello'), first.message, { role: 'user', content: [{ type: 'tool_result', toolUseId: 'x', content: 'r' }] }],
        }),
        signal(),
      );
      expect(lastBody()).toContain(h.thinking.mustEcho);
    });

    it('places cache markers only where the provider has them, and none when caching is off', async () => {
      server.reply(h.text('a'), h.text('b'));
      await make().call(request(), signal());
      expect(lastBody().includes('"cache_control"')).toBe(h.placesCacheMarkers);
      expect(make().capabilities().promptCache).toBe(h.name !== 'openai-chat');
      await make().call(request({ noPromptCache: true }), signal());
      expect(lastBody()).not.toContain('"cache_control"');
    });

    it('passes an unknown stop reason through and maps a token cap', async () => {
      server.reply(h.unknownStop.reply, h.maxTokens);
      expect((await make().call(request(), signal())).stopReason).toEqual({ unified: 'other', raw: h.unknownStop.raw });
      expect((await make().call(request(), signal())).stopReason.unified).toBe('max_tokens');
    });

    it('maps usage onto the five neutral numbers', async () => {
      server.reply(h.usage.reply);
      expect((await make().call(request(), signal())).usage).toEqual(h.usage.expected);
    });

    it('honours the per-call timeout on a server that never answers', async () => {
      timingSensitive = true;
      server.reply({ hang: true });
      const err = await make({ callTimeoutMs: 150 })
        .call(request(), signal())
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LlmError);
      expect(err).toMatchObject({ code: 'timeout' });
      expect((err as Error).message).toMatch(/llm\.budget\.call_timeout/);
    });

    it('stops when the caller cancels', async () => {
      server.reply({ hang: true });
      const ac = new AbortController();
      const pending = make().call(request(), ac.signal);
      await eventually(() => server.pending === 0, 'the hanging reply to be taken by the call');
      ac.abort();
      await expect(pending).rejects.toMatchObject({ code: 'aborted' });
    });

    it('retries a 429 honouring retry-after, and reports a 400 as bad_request', async () => {
      server.reply(h.rateLimited(), h.text('after wait'), h.badRequest());
      expect((await make().call(request(), signal())).message.content).toEqual([{ type: 'text', text: 'after wait' }]);
      await expect(make().call(request(), signal())).rejects.toMatchObject({ code: 'bad_request', status: 400 });
    });

    it('refuses a plain-http base URL to another host and one with userinfo, naming llm.base_url', () => {
      const bad = (baseUrl: string): unknown => {
        try {
          newProvider(h.name, { baseUrl, apiKey: 'k', callTimeoutMs: 1, env: {} });
        } catch (err) {
          return err;
        }
        return undefined;
      };
      for (const url of ['http://models.example.com/v1', 'https://user:pw@models.example.com', 'not a url']) {
        const err = bad(url);
        expect(err).toBeInstanceOf(ConfigError);
        expect((err as ConfigError).key).toBe('llm.base_url');
      }
    });
  });
}
