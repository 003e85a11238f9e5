import { describe, expect, it } from 'vitest';
import { HeadTailCapture, TRUNCATION_MARKER } from './capture.js';

describe('HeadTailCapture', () => {
  it('keeps everything within the budget', () => {
    const c = new HeadTailCapture(16);
    c.write(Buffer.from('0123456'));
    c.write(Buffer.from('789abcdef'));
    expect(c.truncated).toBe(false);
    expect(c.text()).toBe('0123456789abcdef');
  });
  it('keeps the head and the latest tail across many small writes', () => {
    const c = new HeadTailCapture(8);
    for (const ch of 'abcdefghijklmnopqrstuvwxyz') c.write(Buffer.from(ch));
    expect(c.truncated).toBe(true);
    expect(c.total).toBe(26);
    expect(c.text()).toBe(`abcd${TRUNCATION_MARKER}wxyz`);
  });
  it('handles one write larger than the whole budget', () => {
    const c = new HeadTailCapture(8);
    c.write(Buffer.from('abcdefghijklmnop'));
    expect(c.text()).toBe(`abcd${TRUNCATION_MARKER}mnop`);
  });
});
