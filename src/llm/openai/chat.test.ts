import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer } from '../../agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../agenttest/fake-model-server.js';
import { chatCompletion } from '../../agenttest/openai-wire.js';
import type { Request } from '../provider.js';
import { signatureBytes } from '../signature.js';
import { buildChatParams, encodeChatParams } from './chat-params.js';
import { OpenAIChatProvider } from './provider.js';

const req = (over: Partial<Request> = {}): Request => ({
  model: 'qwen-local',
  system: [{ text: 'one' }, { text: 'two' }],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  tools: [{ name: 'a', description: 'A', inputSchema: { properties: {} }, deferLoading: true }],
  maxOutputTokens: 100,
  thinking: 'on',
  interactive: true,
  noPromptCache: false,
  ...over,
});

describe('buildChatParams', () => {
  it('is what encodeChatParams sends, for new lists of the same tool definitions too', () => {
    const a = Object.freeze({ name: 'a', description: 'A', inputSchema: { properties: {} }, deferLoading: false });
    const b = Object.freeze({ name: 'b', description: 'B', inputSchema: { type: 'object' }, deferLoading: false });
    for (const tools of [[a], [a, b], [b, a], [a, b]]) {
      const r = req({ tools });
      expect(JSON.parse(encodeChatParams(r))).toEqual(JSON.parse(JSON.stringify(buildChatParams(r))));
    }
  });

  it('sends a tool result with images as its text and a line saying the images are not shown', () => {
    const images = [{ mediaType: 'image/png' as const, data: 'iVBORw0KGgo=' }];
    const params = buildChatParams(
      req({
        messages: [
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 'c1', name: 'a', input: '{}' },
              { type: 'tool_use', id: 'c2', name: 'a', input: '{}' },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', toolUseId: 'c1', content: 'one picture', images },
              { type: 'tool_result', toolUseId: 'c2', content: 'two pictures', images: [...images, ...images] },
            ],
          },
        ],
      }),
    );
    expect(params.messages.filter((m) => m.role === 'tool')).toEqual([
      {
        role: 'tool',
        tool_call_id: 'c1',
        content: 'one picture\n[the image is not shown: this model endpoint takes no images in tool results]',
      },
      {
        role: 'tool',
        tool_call_id: 'c2',
        content: 'two pictures\n[the 2 images are not shown: this model endpoint takes no images in tool results]',
      },
    ]);
  });

  it('sends the system prompt as one string, one message per tool result, no reasoning and no deferral', () => {
    const params = buildChatParams(
      req({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'go' }] },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', text: 'hmm', signature: signatureBytes('s') },
              { type: 'text', text: 'calling' },
              { type: 'tool_use', id: 'c1', name: 'a', input: '{"n":12345678901234567890}' },
              { type: 'tool_use', id: 'c2', name: 'a', input: '{}' },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', toolUseId: 'c1', content: 'r1' },
              { type: 'tool_result', toolUseId: 'c2', content: 'r2', isError: true },
            ],
          },
        ],
      }),
    );
    expect(params.messages).toEqual([
      { role: 'system', content: 'one\n\ntwo' },
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: 'calling',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'a', arguments: '{"n":12345678901234567890}' } },
          { id: 'c2', type: 'function', function: { name: 'a', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'r1' },
      { role: 'tool', tool_call_id: 'c2', content: 'r2' },
    ]);
    expect(params.tools).toEqual([
      { type: 'function', function: { name: 'a', description: 'A', parameters: { type: 'object', properties: {} } } },
    ]);
    expect(JSON.stringify(params)).not.toMatch(/cache_control|thinking|defer_loading/);
    expect(params.max_tokens).toBe(100);
  });
});

describe('OpenAIChatProvider against a fake compatible server', () => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(async () => {
    await server.close();
  });
  const provider = (): OpenAIChatProvider => new OpenAIChatProvider({ baseUrl: `${server.url}/v1`, callTimeoutMs: 5000, env: {} });

  it('needs no key on this machine, posts to /v1/chat/completions, and shows reasoning_content as thinking', async () => {
    server.reply(chatCompletion('answer', { reasoning_content: 'let me think' }));
    const r = await provider().call(req(), new AbortController().signal);
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
    expect(r.message.content).toEqual([
      { type: 'thinking', text: 'let me think' },
      { type: 'text', text: 'answer' },
    ]);
  });

  it('refuses an answer without choices', async () => {
    server.reply({ body: { object: 'chat.completion', choices: [] } });
    await expect(provider().call(req(), new AbortController().signal)).rejects.toMatchObject({ code: 'decode' });
  });

  it('declares what it cannot do', () => {
    expect(provider().capabilities()).toMatchObject({
      provider: 'openai-chat',
      semconvProvider: 'openai',
      toolSearch: false,
      thinking: false,
      promptCache: false,
    });
  });
});
