import {
  closeSync,
  fstatSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SpareFiles, isSpareName, nameSpare } from './spare-files.js';
import type { Spare } from './spare-files.js';

const flockSync = (createRequire(import.meta.url)('fs-ext') as { flockSync: (fd: number, how: string) => void }).flockSync;
const lock = (fd: number): boolean => {
  try {
    flockSync(fd, 'exnb');
    return true;
  } catch {
    return false;
  }
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fisk-spares-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const spares = (): string[] => readdirSync(dir).filter(isSpareName).sort();

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
}

/** Asks a new pool for more files than it keeps, so it starts making spares. */
function warm(pool: SpareFiles, keep: number): void {
  for (let i = 0; i <= keep; i++) expect(pool.take()).toBeUndefined();
}

/** A pool keeping one spare, and the spare it handed out named `run.lock`, as a lock file is. */
async function namedLock(): Promise<{ pool: SpareFiles; spare: Spare; named: string }> {
  const pool = new SpareFiles(dir, lock, 1);
  warm(pool, 1);
  const spare = await ready(pool);
  const named = join(dir, 'run.lock');
  expect(nameSpare(spare, named)).toBeUndefined();
  return { pool, spare, named };
}

async function ready(pool: SpareFiles): Promise<Spare> {
  for (let i = 0; i < 400; i++) {
    const spare = pool.take();
    if (spare !== undefined) return spare;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('no spare was made');
}

describe('SpareFiles', () => {
  it('makes nothing until asked for more files than it keeps, then keeps spares ready in the background', async () => {
    const pool = new SpareFiles(dir, lock, 2);
    expect(spares()).toEqual([]);
    // a process that needs a file or two gets none and makes none: the caller makes its own
    expect(pool.take()).toBeUndefined();
    expect(pool.take()).toBeUndefined();
    await new Promise((r) => setTimeout(r, 30));
    expect(spares()).toEqual([]);
    expect(pool.take()).toBeUndefined();
    await until(() => spares().length === 2);
    const spare = await ready(pool);
    expect(isSpareName(spare.path.slice(dir.length + 1))).toBe(true);
    const info = statSync(spare.path);
    expect(info.size).toBe(0);
    expect(info.mode & 0o777).toBe(0o600);
    closeSync(spare.fd);
    await pool.close();
  });

  it('holds each spare locked, so no other open of it can lock it', async () => {
    const pool = new SpareFiles(dir, lock, 1);
    warm(pool, 1);
    const spare = await ready(pool);
    const other = openSync(spare.path, 'r');
    try {
      expect(lock(other)).toBe(false);
    } finally {
      closeSync(other);
      closeSync(spare.fd);
    }
    await pool.close();
  });

  it('removes the spares still waiting when closed, and makes no more', async () => {
    const pool = new SpareFiles(dir, lock, 3);
    warm(pool, 3);
    await until(() => spares().length === 3);
    await pool.close();
    expect(spares()).toEqual([]);
    expect(pool.take()).toBeUndefined();
    await new Promise((r) => setTimeout(r, 30));
    expect(spares()).toEqual([]);
  });

  it('tries again at the next take when it cannot make a file', async () => {
    const missing = join(dir, 'later');
    const pool = new SpareFiles(missing, lock, 1);
    warm(pool, 1);
    await new Promise((r) => setTimeout(r, 30));
    expect(pool.take()).toBeUndefined();
    // the directory appears: the next take fills the pool again
    mkdirSync(missing);
    const spare = await ready(pool);
    expect(spare.path.startsWith(missing)).toBe(true);
    closeSync(spare.fd);
    await pool.close();
    expect(readdirSync(missing).filter(isSpareName)).toHaveLength(1); // the one taken is the taker's to name or remove
  });

  it('removes what a process left behind once it is old and unlocked, and nothing else', async () => {
    const orphan = join(dir, '.spare-dead-0.tmp');
    const young = join(dir, '.spare-dead-1.tmp');
    const held = join(dir, '.spare-live-0.tmp');
    const record = join(dir, 'task.json');
    for (const path of [orphan, young, held, record]) writeFileSync(path, '');
    const past = new Date(Date.now() - 120_000);
    for (const path of [orphan, held, record]) utimesSync(path, past, past);
    const holder = openSync(held, 'r');
    expect(lock(holder)).toBe(true);
    try {
      const pool = new SpareFiles(dir, lock, 1);
      warm(pool, 1);
      await until(() => !readdirSync(dir).includes('.spare-dead-0.tmp'));
      const names = readdirSync(dir);
      expect(names).toContain('.spare-dead-1.tmp');
      expect(names).toContain('.spare-live-0.tmp');
      expect(names).toContain('task.json');
      await pool.close();
    } finally {
      closeSync(holder);
    }
  });

  it('takes back a named spare, still locked, as a spare again, and hands it out before making another', async () => {
    const { pool, spare, named } = await namedLock();
    await until(() => spares().length === 1); // the pool has made its one back meanwhile
    const inode = fstatSync(spare.fd).ino;
    expect(pool.adopt(named, spare.fd)).toBe(true);
    // the name is gone as if removed, the file waits under a spare's name, still locked
    expect(readdirSync(dir)).not.toContain('run.lock');
    expect(spares()).toHaveLength(2);
    const other = openSync(join(dir, spares().find((n) => statSync(join(dir, n)).ino === inode) ?? ''), 'r');
    expect(lock(other)).toBe(false);
    closeSync(other);
    // two wait now, one of them the file given back: taking both makes none meanwhile
    const first = pool.take();
    const second = pool.take();
    expect([first, second].map((s) => (s === undefined ? 0 : fstatSync(s.fd).ino))).toContain(inode);
    for (const s of [first, second]) if (s !== undefined) closeSync(s.fd);
    await pool.close();
  });

  it('takes nothing back once closed, when full, or when the name no longer stands for the file', async () => {
    const { pool, spare, named } = await namedLock();
    // the name was replaced by another file: neither is touched
    unlinkSync(named);
    writeFileSync(named, '');
    expect(pool.adopt(named, spare.fd)).toBe(false);
    expect(readdirSync(dir)).toContain('run.lock');
    await until(() => spares().length === 1);
    // the file is there once made; it waits in the pool once its maker's callback has run
    await new Promise((r) => setTimeout(r, 30));
    const count = spares().length;
    // full: twice what it keeps is the most that waits
    const extra = openSync(join(dir, 'extra.lock'), 'wx+', 0o600);
    const extra2 = openSync(join(dir, 'extra2.lock'), 'wx+', 0o600);
    expect(pool.adopt(join(dir, 'extra.lock'), extra)).toBe(true);
    expect(pool.adopt(join(dir, 'extra2.lock'), extra2)).toBe(false);
    expect(spares()).toHaveLength(count + 1);
    closeSync(extra2);
    unlinkSync(join(dir, 'extra2.lock'));
    await pool.close();
    expect(spares()).toEqual([]);
    // closed: nothing is taken back
    linkSync(named, join(dir, 'again.lock'));
    expect(pool.adopt(join(dir, 'again.lock'), spare.fd)).toBe(false);
    closeSync(spare.fd);
  });
});
