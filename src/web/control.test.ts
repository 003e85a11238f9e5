import { afterEach, describe, expect, it, vi } from 'vitest';
import { TabControl } from './control.js';

let control: TabControl | undefined;

afterEach(() => {
  control?.close();
  vi.useRealTimers();
});

function make(): TabControl {
  control = new TabControl(() => undefined);
  return control;
}

describe('TabControl', () => {
  it('gives control to the first tab and a key only to it', () => {
    const c = make();
    c.attach('a', undefined);
    c.attach('b', undefined);
    expect(c.controller).toBe('a');
    expect(c.keyFor('a')).toMatch(/^[\w-]{24}$/);
    expect(c.keyFor('b')).toBeUndefined();
  });

  it('keeps control for a tab that reloads after its old stream closed, while another tab watches', () => {
    const c = make();
    c.attach('a', undefined);
    c.attach('b', undefined);
    const key = c.keyFor('a');
    expect(c.detach('a')).toBe(true);
    expect(c.controller).toBeUndefined();
    c.attach('a2', key);
    expect(c.controller).toBe('a2');
    expect(c.keyFor('a2')).toBe(key);
  });

  it('keeps control for a tab whose new stream arrives before the old one closed', () => {
    const c = make();
    c.attach('a', undefined);
    c.attach('b', undefined);
    const key = c.keyFor('a');
    c.attach('a2', key);
    expect(c.controller).toBe('a');
    c.detach('a');
    expect(c.controller).toBe('a2');
  });

  it('passes control to the next tab when the controlling one does not come back, and never on a wrong key', () => {
    vi.useFakeTimers();
    const c = make();
    c.attach('a', undefined);
    c.attach('b', undefined);
    const key = c.keyFor('a') ?? '';
    c.detach('a');
    c.attach('c', `${key.slice(0, -1)}x`);
    c.attach('d', '');
    expect(c.controller).toBeUndefined();
    vi.advanceTimersByTime(5_000);
    expect(c.controller).toBe('b');
    // the old key is spent: it no longer claims anything
    c.attach('a3', key);
    expect(c.controller).toBe('b');
    expect(c.keyFor('b')).not.toBe(key);
  });

  it('hands control to the next tab to connect when no other tab was open', () => {
    const c = make();
    c.attach('a', undefined);
    c.detach('a');
    c.attach('b', undefined);
    expect(c.controller).toBe('b');
  });
});
