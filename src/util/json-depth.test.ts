import { describe, expect, it } from 'vitest';
import { MAX_TOOL_INPUT_DEPTH, jsonTextDepth, jsonValueDepth, jsonValueExceeds, toolInputDepthError } from './json-depth.js';

const nested = (n: number): string => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

describe('jsonTextDepth', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    expect(jsonTextDepth('1')).toBe(0);
    expect(jsonTextDepth('{"a":[1,{"b":"[[[{{{\\"]]]"}]}')).toBe(3);
    expect(jsonTextDepth(nested(10))).toBe(10);
  });
  it('stops counting past the limit', () => {
    expect(jsonTextDepth('['.repeat(1_000_000), 5)).toBe(6);
  });
});

describe('jsonValueDepth', () => {
  it('walks a value nested far past any stack without overflowing', () => {
    const deep: unknown = JSON.parse(nested(200_000));
    expect(jsonValueDepth(deep)).toBe(200_000);
    expect(jsonValueDepth(deep, 100)).toBe(101);
    expect(jsonValueDepth({ a: [], b: { c: [1] } })).toBe(3);
    expect(jsonValueDepth('x')).toBe(0);
  });
});

describe('jsonValueExceeds', () => {
  it('answers as jsonValueDepth does, and stops at its limit on a value nested far past any stack', () => {
    const deep: unknown = JSON.parse(nested(200_000));
    expect(jsonValueExceeds(deep, 1000)).toBe(true);
    const values: unknown[] = [
      'x',
      null,
      [],
      {},
      { a: [], b: { c: [1] } },
      [[[{ d: [[]] }]]],
      JSON.parse(nested(40)),
      { a: 1, b: [2, { c: {} }] },
    ];
    for (const v of values) {
      const depth = jsonValueDepth(v);
      for (let limit = 0; limit <= depth + 1; limit++)
        expect(jsonValueExceeds(v, limit), `${JSON.stringify(v)} at ${limit}`).toBe(depth > limit);
    }
  });
  it('walks a value nested far past any stack with a limit as deep', () => {
    const deep: unknown = JSON.parse(nested(200_000));
    expect(jsonValueExceeds(deep, 199_999)).toBe(true);
    expect(jsonValueExceeds(deep, 200_000)).toBe(false);
  });
});

describe('toolInputDepthError', () => {
  it('accepts input up to the bound and refuses deeper input with a message for the model', () => {
    expect(toolInputDepthError(nested(MAX_TOOL_INPUT_DEPTH))).toBeUndefined();
    expect(toolInputDepthError(nested(3000))).toMatch(/nest deeper than 64 levels.*refused/);
    expect(toolInputDepthError('{"q":"' + '['.repeat(5000) + '"}')).toBeUndefined();
  });
});
