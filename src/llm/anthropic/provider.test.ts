import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ANTHROPIC_FIXTURES,
  anthropicError,
  anthropicOverloaded,
  anthropicRateLimited,
  anthropicText,
} from '../../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../agenttest/fake-model-server.js';
import { ConfigError } from '../../config/index.js';
import { LlmError } from '../errors.js';
import type { Request } from '../provider.js';
import { signatureText } from '../signature.js';
import { AnthropicProvider } from './provider.js';

let server: FakeModelServer;
beforeAll(async () => {
  server = await startFakeModelServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
});

const req = (over: Partial<Request> = {}): Request => ({
  model: 'claude-test',
  system: [{ text: 'sys' }],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'echo hello world back to me' }] }],
  tools: [],
  maxOutputTokens: 1024,
  thinking: 'unset',
  interactive: false,
  noPromptCache: false,
  ...over,
});

const provider = (over: { maxRetries?: number; callTimeoutMs?: number } = {}): AnthropicProvider =>
  new AnthropicProvider({ baseUrl: server.url, callTimeoutMs: over.callTimeoutMs ?? 10_000, maxRetries: over.maxRetries ?? 2, env: {} });

const signal = (): AbortSignal => new AbortController().signal;

describe('AnthropicProvider against the fake Messages API', () => {
  it('decodes the recorded wire reply, ignoring unknown fields', async () => {
    server.reply({ body: ANTHROPIC_FIXTURES.echoToolUse });
    const r = await provider().call(req(), signal());
    expect(r.stopReason).toEqual({ unified: 'tool_use', raw: 'tool_use' });
    expect(r.model).toBe('anthropic/claude-opus-5');
    expect(r.message.content).toEqual([
      { type: 'text', text: "I'll echo that for you." },
      { type: 'tool_use', id: 'toolu_01EfM2Y9PfGGD9PCgZQXPeQC', name: 'echo', input: '{\n        "text": "hello world"\n      }' },
    ]);
    expect(r.usage).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, thinking: 0 });
    const sent = server.requests[0];
    expect(sent?.path).toBe('/v1/messages');
    expect(sent?.headers.authorization).toBeDefined();
  });

  it('round-trips a tool search result and a large integer argument intact', async () => {
    server.reply({ body: ANTHROPIC_FIXTURES.toolSearch }, anthropicText('done'));
    const p = provider();
    const first = await p.call(req(), signal());
    const [, search, result, call] = first.message.content;
    expect(search).toMatchObject({ type: 'provider', kind: 'server_tool_use' });
    expect(result).toMatchObject({ type: 'provider', kind: 'tool_search_tool_result' });
    expect(call).toEqual({
      type: 'tool_use',
      id: 'toolu_01XYZ',
      name: 'stream_info',
      input: '{"stream":"ORDERS","id":12345678901234567890}',
    });
    const original = JSON.parse(ANTHROPIC_FIXTURES.toolSearch) as { content: unknown[] };
    expect(JSON.parse(result?.type === 'provider' ? result.raw : '')).toEqual(original.content[2]);

    await p.call(req({ messages: [...req().messages, first.message] }), signal());
    const echoed = (server.requests[1]?.body as { messages: { content: unknown[] }[] }).messages[1]?.content;
    expect(echoed?.[2]).toEqual(original.content[2]);
    expect(echoed?.[2]).toMatchObject({ content: { tool_references: [{ tool_name: 'stream_info' }, { tool_name: 'stream_ls' }] } });
  });

  it('preserves a thinking signature and redacted thinking, and maps usage', async () => {
    server.reply({ body: ANTHROPIC_FIXTURES.thinking });
    const r = await provider().call(req({ thinking: 'on' }), signal());
    const [thinking, redacted] = r.message.content;
    expect(thinking?.type === 'thinking' && thinking.signature !== undefined && signatureText(thinking.signature)).toBe(
      'EqQBCkYIBRgCKkC+/sig==',
    );
    expect(redacted).toEqual({
      type: 'provider',
      kind: 'redacted_thinking',
      raw: '{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"}',
    });
    expect(r.usage).toEqual({ input: 3538, output: 121, cacheRead: 256, cacheWrite: 12, thinking: 52 });
  });

  it('accepts a large output cap without the SDK refusing a long non-streaming call', async () => {
    server.reply(anthropicText('ok'));
    const r = await provider().call(req({ maxOutputTokens: 128_000 }), signal());
    expect(r.message.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect((server.requests[0]?.body as { max_tokens: number }).max_tokens).toBe(128_000);
  });

  it('passes an unknown stop reason through', async () => {
    server.reply({ body: ANTHROPIC_FIXTURES.unknownStop });
    const r = await provider().call(req(), signal());
    expect(r.stopReason).toEqual({ unified: 'other', raw: 'model_context_window_exceeded' });
  });

  it('retries 429 and 529 honouring retry-after-ms, then succeeds', async () => {
    server.reply(anthropicRateLimited(5), anthropicOverloaded(5), anthropicText('finally'));
    const r = await provider({ maxRetries: 2 }).call(req(), signal());
    expect(r.message.content).toEqual([{ type: 'text', text: 'finally' }]);
    expect(server.requests.map((q) => q.headers['x-stainless-retry-count'])).toEqual(['0', '1', '2']);
  });

  it('gives up after its retries with a rate_limited error carrying the request id', async () => {
    server.reply(anthropicRateLimited(1), anthropicRateLimited(1));
    const err = await provider({ maxRetries: 1 })
      .call(req(), signal())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect(err).toMatchObject({ code: 'rate_limited', status: 429, requestId: 'req_fake_429' });
  });

  it('reports 529 as overloaded and 401 as auth', async () => {
    server.reply(anthropicOverloaded(1), anthropicError(401, 'authentication_error', 'invalid x-api-key'));
    await expect(provider({ maxRetries: 0 }).call(req(), signal())).rejects.toMatchObject({ code: 'overloaded' });
    await expect(provider({ maxRetries: 0 }).call(req(), signal())).rejects.toMatchObject({ code: 'auth', status: 401 });
  });

  it('says which variable holds the key on a 401 and how to list models on a 404', async () => {
    server.reply(
      anthropicError(401, 'authentication_error', 'invalid x-api-key'),
      anthropicError(404, 'not_found_error', 'model: claude-nope'),
    );
    const auth = await provider({ maxRetries: 0 })
      .call(req(), signal())
      .catch((e: unknown) => e);
    expect((auth as LlmError).hint).toMatch(/ANTHROPIC_API_KEY/);
    const missing = await provider({ maxRetries: 0 })
      .call(req({ model: 'claude-nope' }), signal())
      .catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 'bad_request', status: 404 });
    expect((missing as Error).message).toContain(`model "claude-nope" was not found at ${server.url}`);
    expect((missing as Error).message).toContain(`curl -s ${server.url}/v1/models`);
  });

  it('adds a remedy naming llm.thinking to a 400 on a call that sent thinking', async () => {
    server.reply(
      anthropicError(400, 'invalid_request_error', 'thinking is not supported'),
      anthropicError(400, 'invalid_request_error', 'bad'),
    );
    const withThinking = await provider()
      .call(req({ thinking: 'off' }), signal())
      .catch((e: unknown) => e);
    expect(withThinking).toMatchObject({ code: 'bad_request' });
    expect((withThinking as Error).message).toMatch(/remove the llm\.thinking block/);
    const plain = await provider()
      .call(req(), signal())
      .catch((e: unknown) => e);
    expect((plain as LlmError).hint).toBeUndefined();
  });

  it('adds a remedy naming llm.reasoning_effort to a 400 on a call that sent one', async () => {
    server.reply(anthropicError(400, 'invalid_request_error', 'effort not supported'));
    const err = await provider()
      .call(req({ reasoningEffort: 'max' }), signal())
      .catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/remove llm\.reasoning_effort/);
  });

  it('refuses an answer that is not a message', async () => {
    server.reply({ body: '{"type":"message"' }, { body: { type: 'message' } });
    await expect(provider({ maxRetries: 0 }).call(req(), signal())).rejects.toMatchObject({ code: 'decode' });
    await expect(provider({ maxRetries: 0 }).call(req(), signal())).rejects.toMatchObject({ code: 'decode' });
  });

  it('reports a refused connection as a network error naming the address and why', async () => {
    const dead = await startFakeModelServer();
    await dead.close();
    const p = new AnthropicProvider({ baseUrl: dead.url, callTimeoutMs: 5000, maxRetries: 0, env: {} });
    const err = await p.call(req(), signal()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'network' });
    expect((err as Error).message).toContain(`cannot reach the model service at ${dead.url} (`);
    expect((err as Error).message).toMatch(/ECONNREFUSED/);
    expect((err as Error).message).toContain('(--base-url, ANTHROPIC_BASE_URL or llm.base_url)');
  });
});

describe('AnthropicProvider endpoint and credentials', () => {
  it('refuses plain http to another host, and userinfo, naming the key', () => {
    expect(() => new AnthropicProvider({ baseUrl: 'http://models.example.com', callTimeoutMs: 1, apiKey: 'k', env: {} })).toThrow(
      /llm\.base_url.*use https/,
    );
    expect(() => new AnthropicProvider({ baseUrl: 'https://u:p@models.example.com', callTimeoutMs: 1, apiKey: 'k', env: {} })).toThrow(
      ConfigError,
    );
    expect(
      () => new AnthropicProvider({ callTimeoutMs: 1, env: { ANTHROPIC_BASE_URL: 'http://10.0.0.1:8080', ANTHROPIC_API_KEY: 'k' } }),
    ).toThrow(/ANTHROPIC_BASE_URL/);
  });

  it('needs ANTHROPIC_API_KEY for a remote endpoint, but not for this machine, and never OPENAI_API_KEY', () => {
    expect(() => new AnthropicProvider({ callTimeoutMs: 1, env: { OPENAI_API_KEY: 'x' } })).toThrow(/export ANTHROPIC_API_KEY/);
    expect(() => new AnthropicProvider({ callTimeoutMs: 1, env: { ANTHROPIC_API_KEY: 'k' } })).not.toThrow();
    expect(() => new AnthropicProvider({ baseUrl: 'http://localhost:1234', callTimeoutMs: 1, env: {} })).not.toThrow();
  });

  it('sends the configured key and reads the base URL from ANTHROPIC_BASE_URL', async () => {
    server.reply(anthropicText('ok'));
    const p = new AnthropicProvider({ callTimeoutMs: 5000, env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-key' } });
    await p.call(req(), signal());
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-test-key');
  });
});
