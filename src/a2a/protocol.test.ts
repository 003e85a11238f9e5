import { describe, expect, it } from 'vitest';
import { isoTime, mintId } from './protocol.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function decodeBase62(id: string): bigint {
  let n = 0n;
  for (const c of id) n = n * 62n + BigInt(BASE62.indexOf(c));
  return n;
}

describe('mintId', () => {
  it('writes 27 base62 digits whose top 32 bits are the seconds since the KSUID epoch', () => {
    const now = new Date('2026-11-30T11:00:00.500Z');
    const seconds = BigInt(Math.floor(now.getTime() / 1000) - 1_400_000_000);
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = mintId(now);
      expect(id).toMatch(/^[0-9A-Za-z]{27}$/);
      const value = decodeBase62(id);
      expect(value < 1n << 160n).toBe(true);
      expect(value >> 128n).toBe(seconds);
      seen.add(id);
    }
    expect(seen.size).toBe(2000);
  });

  it('orders ids by their second', () => {
    const a = mintId(new Date('2026-11-30T11:00:00Z'));
    const b = mintId(new Date('2026-11-30T11:00:01Z'));
    expect(decodeBase62(a) >> 128n < decodeBase62(b) >> 128n).toBe(true);
    expect(a < b).toBe(true);
  });
});

describe('isoTime', () => {
  it('writes what toISOString writes, across seconds, milliseconds and years', () => {
    const times = [
      0,
      1,
      9,
      10,
      99,
      100,
      999,
      1000,
      1001,
      -1,
      -999,
      -1000,
      -1001,
      Date.UTC(2026, 10, 30, 11, 0, 0, 5),
      Date.UTC(2026, 10, 30, 11, 0, 0, 50),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(10000, 0, 1),
      Date.UTC(-1, 0, 1, 0, 0, 0, 7),
    ];
    for (let i = 0; i < 3000; i++) times.push(Date.UTC(2026, 10, 30) + i * 7);
    for (const t of times) {
      const d = new Date(t);
      expect(isoTime(d)).toBe(d.toISOString());
    }
  });
});
