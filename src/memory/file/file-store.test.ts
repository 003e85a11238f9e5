import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryError } from '../errors.js';
import { FileStore } from './file-store.js';

let root: string;
let dir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'fisk-mem-file-'));
  dir = join(root, 'memory', 'agent');
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

async function failure(p: Promise<unknown>): Promise<MemoryError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(MemoryError);
    return err as MemoryError;
  }
  throw new Error('expected the call to fail');
}

describe('FileStore', () => {
  it('creates its directory 0700 and entries 0600, one <key>.md each, leaving no temp files', async () => {
    const store = await FileStore.open(dir);
    await store.create('notes', 'd', 'body');
    await store.update('notes', 'd', 'body2');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'notes.md')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['notes.md']);
    expect(readFileSync(join(dir, 'notes.md'), 'utf8')).toBe('---\ndescription: d\n---\n\nbody2');
  });

  it('tightens an existing directory to 0700', async () => {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    await FileStore.open(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('refuses a directory path that is a file, naming the option', async () => {
    writeFileSync(join(root, 'plain'), 'x');
    const err = await failure(FileStore.open(join(root, 'plain')));
    expect(err.message).toContain('harness.memory.options.directory');
  });

  it('refuses to read through a symlink and hides it from the listing', async () => {
    const store = await FileStore.open(dir);
    writeFileSync(join(root, 'secret.txt'), 'top secret');
    symlinkSync(join(root, 'secret.txt'), join(dir, 'leak.md'));
    const err = await failure(store.read('leak'));
    expect(err.code).toBe('unsafe_entry');
    expect(err.message).not.toContain('top secret');
    expect(await store.list()).toEqual([]);
  });

  it('refuses to read a directory or a FIFO standing where a memory would be', async () => {
    const store = await FileStore.open(dir);
    mkdirSync(join(dir, 'adir.md'));
    execFileSync('mkfifo', [join(dir, 'pipe.md')]);
    expect((await failure(store.read('adir'))).code).toBe('unsafe_entry');
    expect((await failure(store.read('pipe'))).code).toBe('unsafe_entry');
    expect(await store.list()).toEqual([]);
  });

  it('hides hand-planted files whose stem is not a legal key, and files that are not .md', async () => {
    const store = await FileStore.open(dir);
    for (const name of ['.hidden.md', 'bad..key.md', 'trailing..md', 'has space.md', 'notes.txt', '.memtmp-abc']) {
      writeFileSync(join(dir, name), '---\ndescription: planted\n---\n\nx');
    }
    writeFileSync(join(dir, 'good.md'), '---\ndescription: kept\n---\n\nx');
    expect(await store.list()).toEqual([{ key: 'good', description: 'kept' }]);
  });

  it('writes a key that holds nothing yet on update (no read-before-update here)', async () => {
    const store = await FileStore.open(dir);
    await store.update('fresh', 'd', 'c');
    expect(await store.read('fresh')).toEqual({ description: 'd', content: 'c' });
    expect(store.info()).toEqual({ backend: 'file', location: '' });
  });
});
