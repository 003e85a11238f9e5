import { describe, expect, it } from 'vitest';
import { decodeMessage, encodeMessage } from './message-codec.js';

describe('message codec', () => {
  it('embeds tool input as JSON, and keeps input nested past the bound verbatim as text', () => {
    const shallow = '{"a":[1,{"b":2}]}';
    const deep = `{"q":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const wire = encodeMessage({ role: 'assistant', content: [{ type: 'tool_use', id: 's', name: 't', input: shallow }, { type: 'tool_use', id: 'd', name: 't', input: deep }] });
    const body = JSON.stringify(wire);
    expect(body.length).toBeGreaterThan(10_000);
    const back = decodeMessage(JSON.parse(body) as typeof wire);
    expect(back.content).toEqual([
      { type: 'tool_use', id: 's', name: 't', input: shallow },
      { type: 'tool_use', id: 'd', name: 't', input: deep },
    ]);
  });
});
