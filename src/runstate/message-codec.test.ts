import { describe, expect, it } from 'vitest';
import type { ToolResultBlock } from '../llm/types.js';
import { toolResultBody } from './builders.js';
import { decodeMessage, decodeToolResult, encodeMessage } from './message-codec.js';
import { decodeRecord, encodeRecord } from './validate.js';

describe('message codec', () => {
  it('embeds tool input as JSON, and keeps input nested past the bound verbatim as text', () => {
    const shallow = '{"a":[1,{"b":2}]}';
    const deep = `{"q":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const wire = encodeMessage({
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 's', name: 't', input: shallow },
        { type: 'tool_use', id: 'd', name: 't', input: deep },
      ],
    });
    const body = JSON.stringify(wire);
    expect(body.length).toBeGreaterThan(10_000);
    const back = decodeMessage(JSON.parse(body) as typeof wire);
    expect(back.content).toEqual([
      { type: 'tool_use', id: 's', name: 't', input: shallow },
      { type: 'tool_use', id: 'd', name: 't', input: deep },
    ]);
  });

  it('journals the images of a tool result and reads them back, and refuses an image type no provider takes', () => {
    const block: ToolResultBlock = {
      type: 'tool_result',
      toolUseId: 'c1',
      content: 'look',
      images: [{ mediaType: 'image/png', data: 'iVBORw0KGgo=' }],
    };
    const body = encodeRecord({ seq: 2, ...toolResultBody(block) });
    const back = decodeRecord(body);
    if (!('tool_result' in back)) throw new Error('not a tool result record');
    expect(decodeToolResult(back.tool_result.result)).toEqual(block);
    expect(() => decodeRecord(body.replace('image/png', 'image/svg+xml'))).toThrow();
    const plain: ToolResultBlock = { type: 'tool_result', toolUseId: 'c2', content: 'text' };
    const stored = JSON.parse(encodeRecord({ seq: 3, ...toolResultBody(plain) })) as { tool_result: { result: unknown } };
    expect(stored.tool_result.result).toEqual({ tool_use_id: 'c2', content: 'text' });
  });
});
