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
    const snap = s.snapshot();
    expect(Object.entries(snap)).toEqual([
      ['__proto__', 1],
      ['b', 9],
    ]);
  });

  it('restores a journaled snapshot through JSON, __proto__ included', () => {
    const s = new Scope();
    s.record('notes', 12);
    s.record('__proto__', 2);
    const text = JSON.stringify({ revisions: { ...s.snapshot() } });
    const back = Scope.restore((JSON.parse(text) as { revisions: unknown }).revisions);
    expect(back.revision('notes')).toBe(12);
    expect(back.revision('__proto__')).toBe(2);
    expect(Object.entries(back.snapshot())).toEqual(Object.entries(s.snapshot()));
  });

  it.each([
    ['a list', [{ key: 'a', revision: 1 }]],
    ['not an object', 'a=1'],
    ['null', null],
    ['bad key', { '../x': 1 }],
    ['missing revision', { a: null }],
    ['negative revision', { a: -1 }],
    ['fractional revision', { a: 1.5 }],
  ])('refuses a malformed snapshot: %s', (_what, snapshot) => {
    let err: unknown;
    try {
      Scope.restore(snapshot);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MemoryError);
    expect((err as MemoryError).code).toBe('invalid_snapshot');
  });
});
