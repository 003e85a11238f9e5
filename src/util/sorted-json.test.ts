import { describe, expect, it } from 'vitest';
import { sortedJson } from './sorted-json.js';

describe('sortedJson', () => {
  it('writes what JSON.stringify writes, with keys sorted at every level', () => {
    const v = { b: [1, 'x', null, true, { z: 1, a: [] }], a: { d: 'é\n', c: 2.5 }, u: undefined };
    expect(sortedJson(v)).toBe('{"a":{"c":2.5,"d":"é\\n"},"b":[1,"x",null,true,{"a":[],"z":1}]}');
    expect(JSON.parse(sortedJson(v))).toEqual(JSON.parse(JSON.stringify(v)));
    expect(sortedJson([undefined, () => 1])).toBe('[null,null]');
    expect(sortedJson({})).toBe('{}');
    expect(sortedJson('s')).toBe('"s"');
    expect(sortedJson(new Date(0))).toBe('"1970-01-01T00:00:00.000Z"');
  });
  it('maps strings but not keys', () => {
    expect(sortedJson({ 'k\u0007': 'v\u0007' }, { mapString: (s) => s.replace('\u0007', '') })).toBe('{"k\\u0007":"v"}');
  });
  it('writes a value nested 100,000 levels deep', () => {
    const n = 100_000;
    const text = `${'['.repeat(n)}${']'.repeat(n)}`;
    expect(sortedJson(JSON.parse(text))).toBe(text);
  });
});
