import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tryLock } from './lock.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fisk-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('tryLock', () => {
  it('excludes a second holder and removes its file on release', () => {
    const path = join(dir, 'run.lock');
    const first = tryLock(path);
    expect(first).toBeDefined();
    expect(existsSync(path)).toBe(true);
    expect(tryLock(path)).toBeUndefined();
    first?.release();
    expect(existsSync(path)).toBe(false);
    first?.release(); // idempotent
    const again = tryLock(path);
    expect(again).toBeDefined();
    expect(tryLock(path)).toBeUndefined();
    again?.release();
    expect(existsSync(path)).toBe(false);
  });

  it('fails with the error of a path it cannot create', () => {
    expect(() => tryLock(join(dir, 'missing', 'run.lock'))).toThrow(/ENOENT/);
  });
});
