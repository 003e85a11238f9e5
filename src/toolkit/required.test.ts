import { describe, expect, it } from 'vitest';
import { missingRequired, parseToolInput, validateRequired } from './required.js';

const schema = { type: 'object', properties: { b: {}, a: {}, c: {} }, required: ['b', 'a'] };

describe('validateRequired', () => {
  it('accepts a call carrying every required argument', () => {
    expect(validateRequired(schema, '{"a":1,"b":"x"}')).toBeUndefined();
  });
  it('names every missing argument in schema order', () => {
    expect(validateRequired(schema, '{}')).toBe('missing required arguments "b", "a"');
    expect(missingRequired(schema, { b: 'x', a: null })).toEqual(['a']);
  });
  it('treats absent, empty and null input as an empty object', () => {
    expect(parseToolInput('')).toEqual({ ok: true, value: {} });
    expect(parseToolInput(' null ')).toEqual({ ok: true, value: {} });
    expect(validateRequired(schema, 'null')).toBe('missing required arguments "b", "a"');
  });
  it('refuses input that is not a JSON object', () => {
    expect(validateRequired(schema, '[1]')).toBe('arguments must be a JSON object');
    expect(validateRequired(schema, '{"a":')).toMatch(/not valid JSON/);
    expect(validateRequired({ type: 'object' }, '"x"')).toBe('arguments must be a JSON object');
  });
  it('ignores a malformed required list rather than inventing one', () => {
    expect(validateRequired({ type: 'object', required: 'a' }, '{}')).toBeUndefined();
  });
});
