import { describe, expect, it } from 'vitest';
import { MemoryError } from './errors.js';
import { Scope } from './scope.js';

describe('Scope', () => {
  it('records, forgets and snapshots sorted by key', () => {
    const s = new Scope();
    s.record('b', 7);
    s.record('a', 3);
    s.record('__proto__', 1);
    s.record('b', 9);
    s.forget('a');
    expect(s.revision('a')).toBeUndefined();
    expect(s.revision('b')).toBe(9);
    expect(s.snapshot()).toEqual([
      { key: '__proto__', revision: 1 },
      { key: 'b', revision: 9 },
    ]);
  });

  it('restores a journaled snapshot through JSON', () => {
    const s = new Scope();
    s.record('notes', 12);
    const back = Scope.restore(JSON.parse(JSON.stringify(s.snapshot())));
    expect(back.revision('notes')).toBe(12);
    expect(back.snapshot()).toEqual(s.snapshot());
  });

  it.each([
    ['not a list', { notes: 1 }],
    ['not an object', [1]],
    ['bad key', [{ key: '../x', revision: 1 }]],
    ['missing revision', [{ key: 'a' }]],
    ['negative revision', [{ key: 'a', revision: -1 }]],
    ['fractional revision', [{ key: 'a', revision: 1.5 }]],
  ])('refuses a malformed snapshot: %s', (_what, snapshot) => {
    expect(() => Scope.restore(snapshot)).toThrow(MemoryError);
    try {
      Scope.restore(snapshot);
    } catch (err) {
      expect((err as MemoryError).code).toBe('invalid_snapshot');
    }
  });
});
