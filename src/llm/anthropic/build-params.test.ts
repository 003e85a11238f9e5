import { describe, expect, it } from 'vitest';
import type { Request } from '../provider.js';
import { signatureBytes } from '../signature.js';
import type { Message, ToolDef } from '../types.js';
import { buildParams, encodeParams, TOOL_SEARCH_TOOL } from './build-params.js';

const tool = (name: string, deferLoading = false): ToolDef => ({
  name,
  description: `${name} things`,
  inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'], additionalProperties: false, 'x-extra': 1 },
  deferLoading,
});

const thinkingTurn: Message = {
  role: 'assistant',
  content: [
    { type: 'thinking', text: 'hmm', signature: signatureBytes('sig-1') },
    { type: 'provider', kind: 'redacted_thinking', raw: '{"type":"redacted_thinking","data":"abc"}' },
    { type: 'tool_use', id: 'c1', name: 'echo', input: '{"q":"x"}' },
  ],
};

function request(over: Partial<Request> = {}): Request {
  return {
    model: 'claude-test',
    system: [{ text: 'one' }, { text: 'two' }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [tool('echo')],
    maxOutputTokens: 1024,
    thinking: 'unset',
    interactive: false,
    noPromptCache: false,
    ...over,
  };
}

describe('buildParams', () => {
  it('sends the images of a tool result as image blocks after its text', () => {
    const params = buildParams(
      request({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'hi' }] },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'echo', input: '{}' }] },
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
    expect(params.messages[2]?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'c1',
        is_error: false,
        content: [
          { type: 'text', text: 'look\n[image "image/png", 8 B, attached as image 1]' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        ],
      },
    ]);
  });

  it('places the two cache breakpoints with a 5 minute lifetime for a non-interactive run', () => {
    const p = buildParams(request());
    expect(p.system).toEqual([
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two', cache_control: { type: 'ephemeral', ttl: '5m' } },
    ]);
    expect(p.cache_control).toEqual({ type: 'ephemeral', ttl: '5m' });
  });

  it('asks for a 1 hour lifetime when an operator is present, and none when caching is off', () => {
    expect(buildParams(request({ interactive: true })).cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    const off = buildParams(request({ noPromptCache: true }));
    expect(off.cache_control).toBeUndefined();
    expect(JSON.stringify(off)).not.toContain('cache_control');
  });

  it('builds system blocks fresh: the caller values never gain a marker', () => {
    const req = request();
    buildParams(req);
    expect(req.system).toEqual([{ text: 'one' }, { text: 'two' }]);
  });

  it('always sends defer_loading, forwards schema keys verbatim, and adds tool search only when something deferred', () => {
    const plain = buildParams(request({ tools: [tool('a'), tool('b')] }));
    expect(plain.tools).toHaveLength(2);
    expect(plain.tools?.[0]).toEqual({
      type: 'custom',
      name: 'a',
      description: 'a things',
      input_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'], additionalProperties: false, 'x-extra': 1 },
      defer_loading: false,
    });
    const deferred = buildParams(request({ tools: [tool('a'), tool('b', true)] }));
    expect(deferred.tools).toHaveLength(3);
    expect(deferred.tools?.[2]).toEqual(TOOL_SEARCH_TOOL);
    expect(buildParams(request({ tools: [] })).tools).toBeUndefined();
  });
  it('encodes the tools as buildParams lays them out, for new lists of the same definitions too', () => {
    const a = Object.freeze(tool('a'));
    const b = Object.freeze(tool('b', true));
    for (const tools of [[a], [a, b], [b, a], [a, b]]) {
      const req = request({ tools });
      expect(JSON.parse(encodeParams(req))).toEqual(JSON.parse(JSON.stringify(buildParams(req))));
    }
    const sent = JSON.parse(encodeParams(request({ tools: [a, b] }))) as { tools: unknown[] };
    expect(sent.tools.map((t) => (t as { name: string }).name)).toEqual(['a', 'b', TOOL_SEARCH_TOOL.name]);
  });

  it('puts "type": "object" first in every schema, sending one that already starts so as it is', () => {
    const schemas: Record<string, unknown>[] = [
      { type: 'object', properties: {} },
      { properties: { q: { type: 'string' } }, type: 'object' },
      { properties: {} },
      { type: 'string' },
      JSON.parse('{"__proto__": {"x": 1}, "type": "object"}') as Record<string, unknown>,
    ];
    for (const inputSchema of schemas) {
      const sent = buildParams(request({ tools: [{ name: 't', description: 'd', inputSchema, deferLoading: false }] })).tools?.[0] as {
        input_schema: Record<string, unknown>;
      };
      expect(JSON.stringify(sent.input_schema)).toBe(JSON.stringify({ type: 'object', ...inputSchema }));
      expect(Object.keys(sent.input_schema)[0]).toBe('type');
    }
    const kept = { type: 'object', properties: {} };
    const params = buildParams(request({ tools: [{ name: 't', description: 'd', inputSchema: kept, deferLoading: false }] }));
    expect((params.tools?.[0] as { input_schema: unknown }).input_schema).toBe(kept);
  });

  it('sends adaptive summarized thinking when on, disabled when off, nothing when unset', () => {
    expect(buildParams(request({ thinking: 'on' })).thinking).toEqual({ type: 'adaptive', display: 'summarized' });
    expect(buildParams(request({ thinking: 'off' })).thinking).toEqual({ type: 'disabled' });
    expect('thinking' in buildParams(request())).toBe(false);
  });

  it('passes a reasoning effort through verbatim, even a level the SDK does not know', () => {
    expect(buildParams(request({ reasoningEffort: 'ultra' })).output_config).toEqual({ effort: 'ultra' });
  });

  it('keeps thinking and its signature when unset, strips it only when off', () => {
    const msgs: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'q' }] }, thinkingTurn];
    const kept = buildParams(request({ messages: msgs }));
    expect(kept.messages[1]?.content).toEqual([
      { type: 'thinking', thinking: 'hmm', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'abc' },
      { type: 'tool_use', id: 'c1', name: 'echo', input: { q: 'x' } },
    ]);
    const stripped = buildParams(request({ messages: msgs, thinking: 'off' }));
    expect(stripped.messages[1]?.content).toEqual([{ type: 'tool_use', id: 'c1', name: 'echo', input: { q: 'x' } }]);
  });

  it('never leaves an assistant turn empty when stripping', () => {
    const onlyThinking: Message = { role: 'assistant', content: [{ type: 'thinking', text: 't', signature: signatureBytes('s') }] };
    const p = buildParams(request({ messages: [onlyThinking], thinking: 'off' }));
    expect(p.messages[0]?.content).toEqual([{ type: 'thinking', thinking: 't', signature: 's' }]);
  });

  it('maps a tool result to one text part and keeps provider blocks as they came', () => {
    const raw =
      '{"type":"tool_result","tool_use_id":"c2","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}]}';
    const p = buildParams(
      request({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'tool_result', toolUseId: 'c1', content: 'out', isError: true },
              { type: 'provider', kind: 'tool_result', raw },
            ],
          },
        ],
      }),
    );
    expect(p.messages[0]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'c1', content: [{ type: 'text', text: 'out' }], is_error: true },
      JSON.parse(raw),
    ]);
  });

  it('refuses a stored tool input that is not JSON, naming the call', () => {
    const bad: Message = { role: 'assistant', content: [{ type: 'tool_use', id: 'c9', name: 'echo', input: '{nope' }] };
    expect(() => buildParams(request({ messages: [bad] }))).toThrow(/tool call c9 \(echo\) input is not valid JSON/);
  });
});
