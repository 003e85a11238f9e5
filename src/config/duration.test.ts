import { describe, expect, it } from 'vitest';
import { DurationSyntaxError, formatGoDuration, parseGoDuration } from './duration.js';

describe('parseGoDuration', () => {
  it.each([
    ['0', 0],
    ['300ms', 300],
    ['30s', 30_000],
    ['1.5h', 5_400_000],
    ['2h45m', 9_900_000],
    ['1m30s', 90_000],
    ['-1m', -60_000],
    ['+2s', 2000],
    ['.5s', 500],
    ['1500us', 1.5],
    ['2µs', 0.002],
    ['1000000ns', 1],
  ])('parses %s', (text, ms) => {
    expect(parseGoDuration(text)).toBeCloseTo(ms, 9);
  });

  it.each(['', '30', '1.5', 's', '1d', '10 s', '1h 30m', 'abc', '-', '1.5.3s', '5sec'])('refuses %j', (text) => {
    expect(() => parseGoDuration(text)).toThrow(DurationSyntaxError);
  });

  it('says a bare number needs a unit', () => {
    expect(() => parseGoDuration('30')).toThrow(/needs a unit/);
  });
});

describe('formatGoDuration', () => {
  it.each([
    [0, '0s'],
    [250, '250ms'],
    [90_000, '1m30s'],
    [9_900_000, '2h45m0s'],
  ])('formats %d', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
  });
});
