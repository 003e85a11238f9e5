import { describe, expect, it } from 'vitest';
import { splitMessage, toMrkdwn } from './render.js';
import { threadSessionId } from './settings.js';

describe('Slack rendering', () => {
  it('converts markdown to mrkdwn', () => {
    expect(toMrkdwn('**bold** and _it_ and [a link](https://example.com)')).toBe('*bold* and _it_ and <https://example.com|a link>');
    expect(toMrkdwn('# Title\n\n- one\n- two')).toMatch(/^\*Title\*\n\n•\s+one\n•\s+two$/);
  });

  it('splits a long answer at paragraph breaks, never over the limit, losing nothing', () => {
    const paragraphs = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} ${'word '.repeat(20).trim()}`);
    const parts = splitMessage(paragraphs.join('\n\n'), 500);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(500);
    expect(parts.join('\n\n')).toBe(paragraphs.join('\n\n'));
  });

  it('closes a code block cut in two and reopens it in the next part', () => {
    const code = '```\n' + Array.from({ length: 60 }, (_, i) => `line ${i}`).join('\n') + '\n```';
    const parts = splitMessage(code, 200);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(200);
      expect((p.match(/```/g) ?? []).length % 2).toBe(0);
    }
    expect(parts.slice(1).every((p) => p.startsWith('```\n'))).toBe(true);
  });

  it('cuts a text with no break at the limit', () => {
    const parts = splitMessage('x'.repeat(1000), 300);
    expect(parts.every((p) => p.length <= 300)).toBe(true);
    expect(parts.join('')).toBe('x'.repeat(1000));
  });

  it('derives distinct, valid session ids from the thread alone', () => {
    const a = threadSessionId('T1', 'C1', '1700000000.000100');
    expect(a).toMatch(/^slack-[0-9a-f]{40}$/);
    expect(threadSessionId('T1', 'C1', '1700000000.000100')).toBe(a);
    expect(threadSessionId('T1', 'C2', '1700000000.000100')).not.toBe(a);
    expect(threadSessionId('T2', 'C1', '1700000000.000100')).not.toBe(a);
  });
});
