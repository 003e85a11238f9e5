import { describe, expect, it } from 'vitest';
import { JsonNumber, parseExactJson } from './json-exact.js';

describe('parseExactJson', () => {
  it('decodes JSON keeping number text', () => {
    expect(parseExactJson(' {"a": [1.50, -0, 2E+3], "b": "x\\u00e9\\n", "c": true, "d": null} ')).toEqual({
      a: [new JsonNumber('1.50'), new JsonNumber('-0'), new JsonNumber('2E+3')],
      b: 'xé\n',
      c: true,
      d: null,
    });
  });
  it('refuses what JSON.parse refuses', () => {
    for (const bad of ['{', '{"a":1,}', '[01]', "{'a':1}", '{"a":1} x', '"\u0001"', 'tru', '']) {
      expect(() => parseExactJson(bad), bad).toThrow(SyntaxError);
    }
  });
  it('refuses nesting past its bound with a SyntaxError instead of overflowing the stack', () => {
    const deep = (n: number): string => `${'{"a":['.repeat(n)}1${']}'.repeat(n)}`;
    expect(() => parseExactJson(deep(32))).not.toThrow();
    expect(() => parseExactJson(deep(33))).toThrow(/nested deeper than 64 levels/);
    expect(() => parseExactJson(`${'['.repeat(3000)}${']'.repeat(3000)}`)).toThrow(SyntaxError);
    expect(() => parseExactJson(`${'['.repeat(64)}${']'.repeat(64)},`)).toThrow(/trailing/);
  });
});
