import { describe, expect, it } from 'vitest';
import { cleanText, oneLine, stripTerminalSequences } from './terminal-text.js';

describe('terminal text', () => {
  it.each([
    ['colour', 'a\u001b[31mred\u001b[0m b', 'ared b'],
    ['cursor movement', 'x\u001b[2Ay', 'xy'],
    ['window title (OSC, BEL)', '\u001b]0;owned\u0007text', 'text'],
    ['OSC 8 hyperlink (ST)', '\u001b]8;;http://evil\u001b\\link\u001b]8;;\u001b\\', 'link'],
    ['8-bit CSI', 'a\u009b31mb', 'ab'],
    ['DCS string', '\u001bPq#0;2;0;0;0\u001b\\after', 'after'],
    ['bidi override', 'safe\u202eexe.txt', 'safeexe.txt'],
    ['NUL and bell', 'a\u0000b\u0007c', 'abc'],
    ['carriage return', 'one\r\ntwo\rthree', 'one\ntwo\nthree'],
  ])('cleans %s', (_name, input, want) => {
    expect(cleanText(input)).toBe(want);
  });

  it('keeps tabs, newlines and ordinary Unicode', () => {
    expect(cleanText('a\tb\nc — ü 日本')).toBe('a\tb\nc — ü 日本');
  });

  it('folds to one line', () => {
    expect(oneLine('a\n\tb\u2028c\u001b[1m')).toBe('a b c');
  });

  it('strips only sequences when asked', () => {
    expect(stripTerminalSequences('a\u001b[1mb\u0000')).toBe('ab\u0000');
  });
});
