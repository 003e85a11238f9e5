import { describe, expect, it } from 'vitest';
import { outcomeOf } from './content.js';

describe('outcomeOf', () => {
  it('passes a lone text block through', () => {
    expect(outcomeOf({ content: [{ type: 'text', text: 'hi' }] })).toMatchObject({ output: 'hi', isError: false });
  });

  it('keeps the error flag', () => {
    expect(outcomeOf({ content: [{ type: 'text', text: 'no' }], isError: true })).toMatchObject({ output: 'no', isError: true });
  });

  it('keeps several parts and images as the JSON of the content, byte for byte', () => {
    const content = [
      { type: 'text', text: 'a' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
    ];
    const out = outcomeOf({ content });
    expect(out.output).toBe(JSON.stringify(content));
    expect(out.content).toEqual(content);
  });

  it('keeps a text block that carries annotations whole', () => {
    const content = [{ type: 'text', text: 'a', annotations: { priority: 1 } }];
    expect(outcomeOf({ content }).output).toBe(JSON.stringify(content));
  });

  it('never produces an empty text', () => {
    expect(outcomeOf({ content: [] }).output).toBe('[]');
    expect(outcomeOf({}).output).toBe('[]');
    expect(outcomeOf({ content: [{ type: 'text', text: '' }] }).output).toBe('[{"type":"text","text":""}]');
  });

  it('uses structured content when there are no blocks', () => {
    expect(outcomeOf({ content: [], structuredContent: { temp: 3 } }).output).toBe('{"temp":3}');
  });
});
