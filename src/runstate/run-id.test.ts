import { describe, expect, it } from 'vitest';
import { checkAppend } from './check-append.js';
import { isRunStateError } from './errors.js';
import { RUN_ID_PATTERN, checkRunId, newRunId } from './run-id.js';

describe('run ids', () => {
  it('generates 27-character base62 ids that sort by creation time', () => {
    const ids = [new Date('2020-01-01T00:00:00Z'), new Date('2024-06-01T00:00:00Z'), new Date('2031-12-31T23:59:59Z')].map((d) =>
      newRunId(d),
    );
    for (const id of ids) {
      expect(id).toMatch(/^[0-9A-Za-z]{27}$/);
      expect(checkRunId(id)).toBe(id);
    }
    expect([...ids].reverse().sort()).toEqual(ids);
    expect(newRunId()).not.toBe(newRunId());
  });

  it('accepts letters, digits, dash and underscore up to 128 characters', () => {
    for (const ok of ['a', 'A-1_b', 'x'.repeat(128)]) expect(checkRunId(ok)).toBe(ok);
  });

  it('refuses anything that could escape a directory or a subject token', () => {
    for (const bad of ['', '-lead', '_lead', 'a/b', '..', 'a.b', 'a b', 'a*', 'a>', 'x'.repeat(129), 'é']) {
      let caught: unknown;
      try {
        checkRunId(bad);
      } catch (err) {
        caught = err;
      }
      expect(isRunStateError(caught, 'invalid_run_id'), bad).toBe(true);
      expect(RUN_ID_PATTERN.test(bad) && bad.length <= 128).toBe(false);
    }
  });
});

describe('checkAppend', () => {
  it('skips at or below the last, takes the next, refuses a gap', () => {
    expect(checkAppend(3, 5)).toBe('duplicate');
    expect(checkAppend(5, 5)).toBe('duplicate');
    expect(checkAppend(6, 5)).toBe('next');
    expect(checkAppend(1, 0)).toBe('next');
    expect(checkAppend(8, 5)).toBe('gap');
  });
});
