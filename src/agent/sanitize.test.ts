import { describe, expect, it } from 'vitest';
import { formatCall, inputObject } from './sanitize.js';

describe('formatCall', () => {
  it('renders a call with sorted keys and control characters stripped', () => {
    expect(formatCall('t', { b: { y: 1, x: 'a\u001b[2Jb' }, a: 'plain' })).toBe('t a=plain b={"x":"a\\u001b[2Jb","y":1}');
  });
  it('shows where a padded value ends and spells out invisible characters', () => {
    expect(formatCall('t', { q: 'TEST   stream info -- TEST   ' })).toBe('t q="TEST   stream info -- TEST   "');
    expect(formatCall('t', { q: 'prod\u200b', r: 'a\u202eb', 'k\u200b': 1 })).toBe('t "k\\u200b"=1 q="prod\\u200b" r="a\\u202eb"');
    expect(formatCall('t', { q: ['x\ufeff'] })).toBe('t q=["x\\ufeff"]');
  });
  it('renders arguments nested 3,000 and 100,000 levels deep without overflowing the stack', () => {
    for (const n of [3000, 100_000]) {
      const input = inputObject(`{"q":${'['.repeat(n)}${']'.repeat(n)}}`);
      const line = formatCall('deep', input);
      expect(line.startsWith('deep q=[[[')).toBe(true);
      expect(line.length).toBe('deep q='.length + 2 * n);
    }
  });
});
