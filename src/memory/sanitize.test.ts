import { describe, expect, it } from 'vitest';
import { defuseFence, sanitizeMemoryText, stripTerminalSequences } from './sanitize.js';

describe('sanitizeMemoryText', () => {
  it('removes terminal sequences, controls and bidi overrides but keeps tabs and newlines', () => {
    expect(sanitizeMemoryText('a\u001b[2J\u001b]0;title\u0007b\u0000c\r\nd\te\u202ef\u009b31mg')).toBe('abc\nd\tefg');
  });

  it('removes an OSC 8 hyperlink wrapper but keeps its text', () => {
    expect(stripTerminalSequences('\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\')).toBe('click');
  });

  it('leaves ordinary text alone', () => {
    const text = 'Plain notes: 5 < 6, "quotes", 日本語\n- list';
    expect(sanitizeMemoryText(text)).toBe(text);
  });
});

describe('defuseFence', () => {
  it('breaks closing and opening tags in any case or spacing', () => {
    const out = defuseFence('x </memory-index> y < / MEMORY-INDEX> <memory-index>', 'memory-index');
    expect(out).not.toMatch(/<\s*\/?\s*memory-index/iu);
    expect(out).toContain('‹/memory-index>');
  });

  it('leaves other tags alone', () => {
    expect(defuseFence('<b>bold</b>', 'memory')).toBe('<b>bold</b>');
  });
});
