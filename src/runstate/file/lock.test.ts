import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { flockNow, tryLock } from './lock.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fisk-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An empty file in the test directory, flocked by this process, as a pool hands out spares. */
function spareAt(name: string): { path: string; fd: number } {
  const fd = openSync(join(dir, name), 'wx+', 0o600);
  expect(flockNow(fd)).toBe(true);
  return { path: join(dir, name), fd };
}

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

  it('makes a spare the lock file when none is there, and otherwise locks the one that is', () => {
    const path = join(dir, 'run.lock');
    const spare = spareAt('.spare-a-0.tmp');
    const held = tryLock(path, spare);
    expect(held).toBeDefined();
    // the spare's inode is the lock file now, and its own name is gone
    expect(readdirSync(dir)).toEqual(['run.lock']);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(tryLock(path)).toBeUndefined();
    // a second spare finds the lock file there: it is removed, and the lock is refused
    expect(tryLock(path, spareAt('.spare-a-1.tmp'))).toBeUndefined();
    expect(readdirSync(dir)).toEqual(['run.lock']);
    held?.release();
    expect(readdirSync(dir)).toEqual([]);
    // a lock file nobody holds (its holder died) is taken as it is, the spare removed
    const stale = openSync(path, 'w');
    closeSync(stale);
    const taken = tryLock(path, spareAt('.spare-a-2.tmp'));
    expect(taken).toBeDefined();
    expect(readdirSync(dir)).toEqual(['run.lock']);
    taken?.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('offers a released lock file made from a spare to be given back, and removes it when declined', () => {
    const path = join(dir, 'run.lock');
    const offered: [string, number][] = [];
    const keep = (p: string, fd: number): boolean => {
      offered.push([p, fd]);
      renameSync(p, join(dir, '.spare-kept.tmp'));
      return true;
    };
    const spare = spareAt('.spare-a-0.tmp');
    tryLock(path, spare, keep)?.release();
    expect(offered).toEqual([[path, spare.fd]]);
    // taken: the descriptor is the taker's, still open and locked
    expect(readdirSync(dir)).toEqual(['.spare-kept.tmp']);
    const other = openSync(join(dir, '.spare-kept.tmp'), 'r');
    expect(flockNow(other)).toBe(false);
    closeSync(other);
    closeSync(spare.fd);
    unlinkSync(join(dir, '.spare-kept.tmp'));
    // declined: removed and closed as before
    tryLock(path, spareAt('.spare-a-1.tmp'), () => false)?.release();
    expect(readdirSync(dir)).toEqual([]);
    // a lock not made from a spare is never offered
    tryLock(path, undefined, keep)?.release();
    expect(offered).toHaveLength(1);
    expect(readdirSync(dir)).toEqual([]);
  });
});
