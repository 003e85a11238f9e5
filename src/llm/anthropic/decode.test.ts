import { describe, expect, it } from 'vitest';
import { decodeContentBlock, decodeMessage } from './decode.js';

describe('decodeContentBlock', () => {
  it('decomposes only a plain-text tool result', () => {
    expect(
      decodeContentBlock('{"type":"tool_result","tool_use_id":"c1","content":[{"type":"text","text":"out"}],"is_error":true}'),
    ).toEqual({
      type: 'tool_result',
      toolUseId: 'c1',
      content: 'out',
      isError: true,
    });
    expect(decodeContentBlock('{"type":"tool_result","tool_use_id":"c1","content":"plain"}')).toEqual({
      type: 'tool_result',
      toolUseId: 'c1',
      content: 'plain',
    });
  });

  it('keeps image and multi-part results whole as provider blocks', () => {
    const image =
      '{"type":"tool_result","tool_use_id":"c2","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}]}';
    const multi = ' {"type":"tool_result","tool_use_id":"c3","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]} ';
    expect(decodeContentBlock(image)).toEqual({ type: 'provider', kind: 'tool_result', raw: image });
    expect(decodeContentBlock(multi)).toEqual({ type: 'provider', kind: 'tool_result', raw: multi.trim() });
  });

  it('refuses text that is not a block', () => {
    expect(() => decodeContentBlock('[1]')).toThrow(/not an object/);
    expect(() => decodeContentBlock('{')).toThrow(/not valid JSON/);
  });
});

describe('decodeMessage', () => {
  it('treats a null stop reason as unknown rather than failing', () => {
    const r = decodeMessage('{"content":[],"stop_reason":null,"usage":{"input_tokens":null}}');
    expect(r.stopReason).toEqual({ unified: 'other', raw: '' });
    expect(r.usage.input).toBe(0);
  });
});
