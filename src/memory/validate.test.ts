import { describe, expect, it } from 'vitest';
import { MemoryError } from './errors.js';
import { MAX_CONTENT_BYTES, MAX_ENTRIES, MAX_ENTRY_BYTES } from './limits.js';
import { checkCapacity, isValidKey, normalizeDescription, validateKey, validateWrite } from './validate.js';

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(MemoryError);
    return (err as MemoryError).code;
  }
  return 'none';
}

describe('keys', () => {
  it.each(['a', 'notes', 'jokes.history', 'A-b_c=d.e', '__proto__', 'x'.repeat(200)])('accepts %s', (key) => {
    expect(() => validateKey(key)).not.toThrow();
    expect(isValidKey(key)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['traversal', '../x'],
    ['leading dot', '.x'],
    ['trailing dot', 'x.'],
    ['double dot', 'a..b'],
    ['slash', 'a/b'],
    ['parent directory', '..'],
    ['path traversal', '../../etc/passwd'],
    ['absolute path', '/etc/passwd'],
    ['backslash', 'a\\b'],
    ['NUL', 'a\u0000b'],
    ['space', 'a b'],
    ['wildcard', 'a.*'],
    ['subject tail', 'a.>'],
    ['non-ASCII', 'ключ'],
    ['201 runes', 'x'.repeat(201)],
  ])('refuses %s', (_what, key) => {
    expect(codeOf(() => validateKey(key))).toBe('invalid_key');
    expect(isValidKey(key)).toBe(false);
  });

  it('says what to change', () => {
    expect(() => validateKey('a/b')).toThrow(/use only letters, digits/);
    expect(() => validateKey('x'.repeat(201))).toThrow(/at most 200/);
  });
});

describe('descriptions', () => {
  it('turns controls into spaces, collapses whitespace and trims', () => {
    expect(normalizeDescription('  two\nlines\tand\r\n  spaces  ')).toBe('two lines and spaces');
    expect(normalizeDescription('red \u001b[31mtext\u001b[0m here')).toBe('red text here');
    expect(normalizeDescription('a\u2028b\u0085c')).toBe('a b c');
  });

  it('stores the normalized description', () => {
    expect(validateWrite('k', ' a\nb ', 'body').description).toBe('a b');
  });

  it('refuses an empty or over-long description', () => {
    expect(codeOf(() => validateWrite('k', ' \n\t ', 'x'))).toBe('invalid_description');
    expect(codeOf(() => validateWrite('k', 'é'.repeat(501), 'x'))).toBe('invalid_description');
    expect(() => validateWrite('k', 'é'.repeat(500), 'x')).not.toThrow();
  });
});

describe('content and capacity', () => {
  it('caps content at 64 KiB of UTF-8', () => {
    expect(() => validateWrite('k', 'd', 'a'.repeat(MAX_CONTENT_BYTES))).not.toThrow();
    expect(codeOf(() => validateWrite('k', 'd', 'a'.repeat(MAX_CONTENT_BYTES + 1)))).toBe('too_large');
    // Two bytes per rune: half as many runes fit.
    expect(codeOf(() => validateWrite('k', 'd', 'é'.repeat(MAX_CONTENT_BYTES / 2 + 1)))).toBe('too_large');
  });

  it('validates the key first', () => {
    expect(codeOf(() => validateWrite('../x', '', 'a'.repeat(MAX_CONTENT_BYTES + 1)))).toBe('invalid_key');
  });

  it('refuses a create at capacity', () => {
    expect(() => checkCapacity(MAX_ENTRIES - 1, 'k')).not.toThrow();
    expect(codeOf(() => checkCapacity(MAX_ENTRIES, 'k'))).toBe('full');
  });

  it('derives the largest entry from the other limits', () => {
    expect(MAX_ENTRY_BYTES).toBe(69_600);
  });
});
