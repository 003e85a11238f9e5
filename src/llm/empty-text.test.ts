/**
 * No request any provider encodes may carry an empty text: the real APIs reject a text block, a
 * message or a tool output with no text, and the whole call fails. Run over every linked provider,
 * against the fake model server, inspecting the body as it arrived.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer } from '../agenttest/fake-model-server.js';
import type { FakeModelServer } from '../agenttest/fake-model-server.js';
import type { Request } from './provider.js';
import { newProvider, providerNames } from './providers.js';

const BASE_PATH: Readonly<Record<string, string>> = { anthropic: '', openai: '/v1', 'openai-chat': '/v1' };

/** Every place in `body` where a text, content or output field is an empty string. */
function emptyTexts(body: unknown, path = '$', depth = 0): string[] {
  if (depth > 64 || typeof body !== 'object' || body === null) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(body)) {
    const at = `${path}.${k}`;
    if ((k === 'text' || k === 'content' || k === 'output') && v === '') out.push(at);
    out.push(...emptyTexts(v, at, depth + 1));
  }
  return out;
}

const request: Request = {
  model: 'm',
  system: [{ text: 'You are terse.' }, { text: '' }],
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: '' },
        { type: 'text', text: 'hello' },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: '' },
        { type: 'tool_use', id: 'call_1', name: 'echo', input: '{}' },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', toolUseId: 'call_1', content: '' },
        { type: 'text', text: '' },
      ],
    },
  ],
  tools: [{ name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: {} }, deferLoading: false }],
  maxOutputTokens: 64,
  thinking: 'unset',
  interactive: false,
  noPromptCache: false,
};

describe('no empty text reaches a provider', () => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(async () => {
    await server.close();
  });

  const names = providerNames().filter((n) => n !== 'embedded-test');
  it('covers every linked provider', () => {
    expect(names.every((n) => n in BASE_PATH)).toBe(true);
  });

  it.each(names)('%s: empty text blocks are dropped and an empty tool output is named as such', async (name) => {
    server.reply({ status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'inspected only' } } });
    const provider = newProvider(name, { baseUrl: server.url + (BASE_PATH[name] ?? ''), callTimeoutMs: 10_000, maxRetries: 0, env: {} });
    await provider.call(request, new AbortController().signal).catch(() => undefined);
    const sent = server.requests.at(-1)?.bodyText ?? '';
    expect(sent).toContain('hello');
    expect(emptyTexts(JSON.parse(sent))).toEqual([]);
    expect(sent).toContain('(no output)');
  });
});
