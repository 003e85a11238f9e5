import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer } from '../../agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../agenttest/fake-model-server.js';
import { OPENAI_FIXTURES, openaiError, openaiResponse, openaiText } from '../../agenttest/openai-wire.js';
import type { Request } from '../provider.js';
import { signatureText } from '../signature.js';
import type { Message, ToolDef } from '../types.js';
import { OpenAIResponsesProvider } from './provider.js';
import { buildResponsesParams, encodeResponsesParams } from './responses-params.js';

const tool = (name: string, deferLoading = false): ToolDef => ({
  name,
  description: `${name} things`,
  inputSchema: { properties: { q: { type: 'string' } }, 'x-extra': true },
  deferLoading,
});

const req = (over: Partial<Request> = {}): Request => ({
  model: 'gpt-test',
  system: [{ text: 'one' }, { text: 'two' }],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  tools: [],
  maxOutputTokens: 100,
  thinking: 'unset',
  interactive: false,
  noPromptCache: false,
  ...over,
});

describe('buildResponsesParams', () => {
  it('sends the images of a tool result as input images after its text', () => {
    const p = buildResponsesParams(
      req({
        messages: [
          { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'a', input: '{}' }] },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                toolUseId: 'c1',
                content: 'look\n[image "image/png", 8 B, attached as image 1]',
                images: [{ mediaType: 'image/png', data: 'iVBORw0KGgo=' }],
              },
            ],
          },
        ],
      }),
    );
    expect(p.input).toContainEqual({
      type: 'function_call_output',
      call_id: 'c1',
      output: [
        { type: 'input_text', text: 'look\n[image "image/png", 8 B, attached as image 1]' },
        { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
      ],
    });
  });

  it('is stateless, joins the system prompt into instructions and asks for encrypted reasoning', () => {
    const p = buildResponsesParams(req());
    expect(p.store).toBe(false);
    expect(p.instructions).toBe('one\n\ntwo');
    expect(p.include).toEqual(['reasoning.encrypted_content']);
    expect(p.max_output_tokens).toBe(100);
    expect(p.input).toEqual([{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }]);
    expect('reasoning' in p).toBe(false);
  });

  it('encodes the tools as buildResponsesParams lays them out, for new lists of the same definitions too', () => {
    const a = Object.freeze(tool('a'));
    const b = Object.freeze(tool('b', true));
    for (const tools of [[a], [a, b], [b, a], [a, b]]) {
      const r = req({ tools });
      expect(JSON.parse(encodeResponsesParams(r))).toEqual(JSON.parse(JSON.stringify(buildResponsesParams(r))));
    }
  });

  it('sends defer_loading always, forwards schema keys, and appends tool search only when something deferred', () => {
    const p = buildResponsesParams(req({ tools: [tool('a'), tool('b', true)] }));
    expect(p.tools).toEqual([
      {
        type: 'function',
        name: 'a',
        description: 'a things',
        parameters: { type: 'object', properties: { q: { type: 'string' } }, 'x-extra': true },
        strict: false,
        defer_loading: false,
      },
      {
        type: 'function',
        name: 'b',
        description: 'b things',
        parameters: { type: 'object', properties: { q: { type: 'string' } }, 'x-extra': true },
        strict: false,
        defer_loading: true,
      },
      { type: 'tool_search' },
    ]);
    expect(buildResponsesParams(req({ tools: [tool('a')] })).tools).toHaveLength(1);
  });

  it('asks for reasoning summaries when thinking is on and passes an effort through verbatim', () => {
    expect(buildResponsesParams(req({ thinking: 'on', reasoningEffort: 'ultra' })).reasoning).toEqual({ summary: 'auto', effort: 'ultra' });
    const off = buildResponsesParams(req({ thinking: 'off' }));
    expect(off.include).toBeUndefined();
  });

  it('maps calls and results to items, and drops reasoning when off but never empties a turn', () => {
    const turn: Message = {
      role: 'assistant',
      content: [
        {
          type: 'thinking',
          text: 's',
          signature: new TextEncoder().encode('{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"E"}'),
        },
        { type: 'text', text: 'calling' },
        { type: 'tool_use', id: 'call_1', name: 'a', input: '{"q":1}' },
      ],
    };
    const results: Message = { role: 'user', content: [{ type: 'tool_result', toolUseId: 'call_1', content: 'out' }] };
    const on = buildResponsesParams(req({ messages: [turn, results] }));
    expect(on.input).toEqual([
      { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'E' },
      { role: 'assistant', content: 'calling' },
      { type: 'function_call', call_id: 'call_1', name: 'a', arguments: '{"q":1}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'out' },
    ]);
    const off = buildResponsesParams(req({ messages: [turn, results], thinking: 'off' }));
    expect((off.input as unknown[]).some((i) => (i as { type?: string }).type === 'reasoning')).toBe(false);
  });

  it('leaves out reasoning it cannot send back (no signature, one from another provider, or no encrypted content)', () => {
    const turn: Message = {
      role: 'assistant',
      content: [
        { type: 'thinking', text: 'unsigned' },
        { type: 'thinking', text: 'foreign', signature: new TextEncoder().encode('EqQBCkYIBRgC') },
        { type: 'thinking', text: 'not kept', signature: new TextEncoder().encode('{"id":"rs_9","type":"reasoning","summary":[]}') },
        { type: 'text', text: 'answer' },
      ],
    };
    expect(buildResponsesParams(req({ messages: [turn] })).input).toEqual([{ role: 'assistant', content: 'answer' }]);
  });
});

describe('OpenAIResponsesProvider against the fake Responses API', () => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(async () => {
    await server.close();
  });
  const provider = (): OpenAIResponsesProvider =>
    new OpenAIResponsesProvider({ baseUrl: `${server.url}/v1`, callTimeoutMs: 5000, env: {} });
  const signal = (): AbortSignal => new AbortController().signal;

  it('keeps the reasoning item whole in the signature and sends it back unchanged', async () => {
    server.reply({ body: OPENAI_FIXTURES.reasoningToolCall }, openaiText('ok'));
    const openai = provider();
    const first = await openai.call(req({ thinking: 'on' }), signal());
    const [thinking, call] = first.message.content;
    expect(thinking?.type).toBe('thinking');
    expect(thinking?.type === 'thinking' ? thinking.text : '').toBe('Search the knowledge base first.');
    const sig = thinking?.type === 'thinking' && thinking.signature !== undefined ? signatureText(thinking.signature) : '';
    expect(JSON.parse(sig)).toEqual({
      id: 'rs_01',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Search the knowledge base first.' }],
      encrypted_content: 'gAAAAABo-opaque==',
    });
    expect(call).toEqual({
      type: 'tool_use',
      id: 'call_4824d540',
      name: 'knowledge_search',
      input: '{"query":"suite timing","n":12345678901234567890}',
    });
    expect(first.usage).toEqual({ input: 3282, output: 121, cacheRead: 256, cacheWrite: 0, thinking: 52 });
    await openai.call(
      req({
        thinking: 'on',
        messages: [
          ...req().messages,
          first.message,
          { role: 'user', content: [{ type: 'tool_result', toolUseId: 'call_4824d540', content: '[]' }] },
        ],
      }),
      signal(),
    );
    const input = (server.requests[1]?.body as { input: unknown[] }).input;
    expect(input[1]).toEqual(JSON.parse(sig));
    expect(server.requests[1]?.bodyText).toContain('"arguments":"{\\"query\\":\\"suite timing\\",\\"n\\":12345678901234567890}"');
  });

  it('round-trips hosted tool search items intact', async () => {
    server.reply({ body: OPENAI_FIXTURES.toolSearch }, openaiText('ok'));
    const p = provider();
    const first = await p.call(req({ tools: [tool('stream_info', true)] }), signal());
    expect(first.message.content.map((b) => (b.type === 'provider' ? b.kind : b.type))).toEqual([
      'tool_search_call',
      'tool_search_output',
      'tool_use',
    ]);
    await p.call(req({ messages: [...req().messages, first.message] }), signal());
    const original = (JSON.parse(OPENAI_FIXTURES.toolSearch) as { output: unknown[] }).output;
    const input = (server.requests[3]?.body as { input: unknown[] }).input;
    expect(input.slice(1, 3)).toEqual(original.slice(0, 2));
    for (const b of first.message.content) if (b.type === 'provider') expect(server.requests[3]?.bodyText).toContain(b.raw);
  });

  it('reports a refusal and an incomplete answer', async () => {
    server.reply(
      openaiResponse([{ id: 'm', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'refusal', refusal: 'no' }] }]),
      openaiResponse([], { status: 'failed' }),
    );
    expect((await provider().call(req(), signal())).stopReason).toEqual({ unified: 'refusal', raw: 'completed' });
    expect((await provider().call(req(), signal())).stopReason).toEqual({ unified: 'other', raw: 'failed' });
  });

  it('adds the llm.reasoning_effort remedy to a 400 on a call that sent an effort', async () => {
    server.reply(openaiError(400, 'invalid_request_error', "Unsupported value: 'reasoning.effort'"));
    const err = await provider()
      .call(req({ reasoningEffort: 'max' }), signal())
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'bad_request', requestId: 'req_fake_400' });
    expect((err as Error).message).toMatch(/Unsupported value.*remove llm\.reasoning_effort/);
  });

  it('names OPENAI_API_KEY on a 401 and the model and its listing on a 404', async () => {
    server.reply(
      openaiError(401, 'invalid_api_key', 'Incorrect API key provided'),
      openaiError(404, 'model_not_found', 'The model does not exist'),
    );
    const auth = await provider()
      .call(req(), signal())
      .catch((e: unknown) => e);
    expect(auth).toMatchObject({ code: 'auth', status: 401 });
    expect((auth as Error).message).toMatch(/check the key in OPENAI_API_KEY/);
    const missing = await provider()
      .call(req({ model: 'gpt-nope' }), signal())
      .catch((e: unknown) => e);
    expect((missing as Error).message).toMatch(/model "gpt-nope" was not found at .*models -H "Authorization: Bearer \$OPENAI_API_KEY"/);
  });

  it('refuses an answer without an output array', async () => {
    server.reply({ body: { object: 'response', status: 'completed' } });
    await expect(provider().call(req(), signal())).rejects.toMatchObject({ code: 'decode' });
  });
});

describe('OpenAI credentials', () => {
  it('needs OPENAI_API_KEY for a remote endpoint and never an Anthropic key', () => {
    expect(() => new OpenAIResponsesProvider({ callTimeoutMs: 1, env: { ANTHROPIC_API_KEY: 'a' } })).toThrow(/export OPENAI_API_KEY/);
    expect(() => new OpenAIResponsesProvider({ callTimeoutMs: 1, env: { OPENAI_API_KEY: 'k' } })).not.toThrow();
    expect(() => new OpenAIResponsesProvider({ callTimeoutMs: 1, env: { OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' } })).not.toThrow();
    expect(() => new OpenAIResponsesProvider({ callTimeoutMs: 1, env: { OPENAI_BASE_URL: 'http://gpu-box:8000/v1' } })).toThrow(
      /OPENAI_BASE_URL/,
    );
  });
});
