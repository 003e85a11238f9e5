import { describe, expect, it } from 'vitest';
import { arrayElements, objectMembers, RawJsonError, rootArrayElements, rootSpan } from './raw-json.js';

describe('raw JSON spans', () => {
  it('finds members and elements without re-serialising them', () => {
    const text = ' { "a" : [1, {"x":"]}\\"" }, 12345678901234567890 ] , "b\\u0041":true, "c": null } ';
    const m = objectMembers(text, rootSpan(text).start);
    const a = m.get('a');
    expect(a && text.slice(a.start, a.end)).toBe('[1, {"x":"]}\\"" }, 12345678901234567890 ]');
    expect([...m.keys()]).toEqual(['a', 'bA', 'c']);
    const els = arrayElements(text, a?.start ?? 0).map((s) => text.slice(s.start, s.end));
    expect(els).toEqual(['1', '{"x":"]}\\"" }', '12345678901234567890']);
    expect(rootArrayElements(text, 'missing')).toEqual([]);
  });

  it('refuses truncated or malformed text', () => {
    expect(() => rootArrayElements('{"a": [1, 2', 'a')).toThrow(RawJsonError);
    expect(() => objectMembers('{"a" 1}', 0)).toThrow(/expected a colon/);
    expect(() => arrayElements('[1 2]', 0)).toThrow(/expected a comma/);
    expect(() => rootSpan('"open')).toThrow(/unterminated string/);
  });
});
