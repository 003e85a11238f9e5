import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { revealInvisible, shellJoin, shellQuote } from './shell-quote.js';

describe('shellQuote', () => {
  it('leaves safe words bare and quotes the rest', () => {
    expect(shellQuote('stream')).toBe('stream');
    expect(shellQuote('--count=3')).toBe('--count=3');
    expect(shellQuote('')).toBe("''");
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote('$(rm -rf /)')).toBe("'$(rm -rf /)'");
  });
  it('shows where a padded argument ends', () => {
    expect(shellJoin(['stream', 'info', '--', 'TEST   stream info -- TEST   '])).toBe("stream info -- 'TEST   stream info -- TEST   '");
  });
  it('spells out zero-width, bidi, control and odd space characters', () => {
    expect(shellQuote('TEST\u200b')).toBe("$'TEST\\u200b'");
    expect(shellQuote('a\u202eb')).toBe("$'a\\u202eb'");
    expect(shellQuote('x\u001b[2Jy\n')).toBe("$'x\\x1b[2Jy\\n'");
    expect(shellQuote('no\u00a0break')).toBe("$'no\\xa0break'");
    expect(shellQuote("a'b\u200b\\")).toBe("$'a\\'b\\u200b\\\\'");
  });
  it('quotes so that a real shell reads back the same arguments', () => {
    const args = ['plain', 'a b', "it's", '', 'TEST   x   ', 'zw\u200bj', 'tab\there', 'nl\nx', "q'\\\u200b"];
    const out = execFileSync('bash', ['-c', `for a in ${shellJoin(args)}; do printf '%s\\0' "$a"; done`], { encoding: 'utf8' });
    expect(out.split('\0').slice(0, -1)).toEqual(args);
  });
});

describe('revealInvisible', () => {
  it('writes invisible characters as escapes and leaves others alone', () => {
    expect(revealInvisible('a\u200bb\ufeffc é')).toBe('a\\u200bb\\ufeffc é');
    expect(revealInvisible('x\ufe0fy\u034fz\u3164')).toBe('x\\ufe0fy\\u034fz\\u3164');
  });
});
