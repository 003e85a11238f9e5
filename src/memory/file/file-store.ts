import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, link, lstat, mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { MemoryError } from '../errors.js';
import { MAX_ENTRY_BYTES } from '../limits.js';
import { parseEntry, serializeEntry } from '../serialize.js';
import type { CallOptions, MemoryEntry, MemoryItem, Store, StoreInfo } from '../store.js';
import { checkCapacity, isValidKey, validateKey, validateWrite } from '../validate.js';

/** The registered name of the file backend. */
export const FILE_BACKEND = 'file';

const SUFFIX = '.md';
const TEMP_PREFIX = '.memtmp-';

/**
 * Memories as one `<key>.md` file each in a directory (0700; files 0600). A create stages a temp
 * file and hard-links it into place, so of two racing creators exactly one wins and the other gets
 * `exists`; an overwrite renames over the old file, so a reader sees the old text or the new, never
 * half of one. Reads refuse symlinks and anything but a regular file, so a planted link cannot make
 * the agent read (or leak) a file outside the directory.
 *
 * The file backend keeps no revisions: it records revision 0 for a read and does not enforce
 * read-before-update.
 */
export class FileStore implements Store {
  readonly #dir: string;

  private constructor(dir: string) {
    this.#dir = dir;
  }

  /**
   * Opens (and if needed creates, 0700) the directory. Refuses a path that exists and is not a
   * directory. With `create: false` (opened to look) nothing is changed: a missing directory is
   * left missing, and the store lists nothing until something creates it.
   */
  static async open(directory: string, options: { readonly create?: boolean } = {}): Promise<FileStore> {
    try {
      if (options.create !== false) await mkdir(directory, { recursive: true, mode: 0o700 });
      const st = await lstat(directory).catch((err: unknown) => {
        // only a look finds nothing here: the store then lists nothing until something creates it
        if (options.create === false && (err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      });
      if (st === undefined) return new FileStore(directory);
      if (st.isSymbolicLink()) {
        // An operator may point the directory at a link; only the entries inside are held to no-follow.
      } else if (!st.isDirectory()) {
        throw new MemoryError(
          'io',
          `memory directory ${directory} is not a directory; set harness.memory.options.directory to a directory`,
        );
      } else if (options.create !== false && (st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) {
        // tightened when opened to use; a look (`create: false`) changes nothing
        await chmod(directory, 0o700);
      }
    } catch (err) {
      if (err instanceof MemoryError) throw err;
      throw new MemoryError(
        'io',
        `cannot use memory directory ${directory}: ${(err as Error).message}; set harness.memory.options.directory to a writable directory`,
        { cause: err },
      );
    }
    return new FileStore(directory);
  }

  info(): StoreInfo {
    // A path is not an operator identifier and would land in telemetry.
    return { backend: FILE_BACKEND, location: '' };
  }

  async list(options?: CallOptions): Promise<readonly MemoryItem[]> {
    options?.signal?.throwIfAborted();
    const keys = await this.#keys();
    const items: MemoryItem[] = [];
    for (const key of keys) {
      options?.signal?.throwIfAborted();
      const text = await this.#readFile(key).catch((err: unknown) => {
        // Vanished since the directory was read, or not a regular file: not a memory.
        if (err instanceof MemoryError && (err.code === 'not_found' || err.code === 'unsafe_entry')) return undefined;
        throw err;
      });
      if (text === undefined) continue;
      items.push({ key, description: parseEntry(text).description });
    }
    return items;
  }

  async read(key: string, options?: CallOptions): Promise<MemoryEntry> {
    validateKey(key);
    options?.signal?.throwIfAborted();
    let text: string;
    try {
      text = await this.#readFile(key);
    } catch (err) {
      if (err instanceof MemoryError && err.code === 'not_found') options?.scope?.forget(key);
      throw err;
    }
    options?.scope?.record(key, 0);
    return parseEntry(text);
  }

  async create(key: string, description: string, content: string, options?: CallOptions): Promise<void> {
    const write = validateWrite(key, description, content);
    options?.signal?.throwIfAborted();
    checkCapacity((await this.#keys()).length, key);
    const tmp = await this.#stage(serializeEntry(write.description, write.content));
    try {
      await link(tmp, this.#path(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new MemoryError('exists', `a memory named ${JSON.stringify(key)} already exists`, { key, cause: err });
      }
      throw ioError(`cannot store memory ${JSON.stringify(key)}`, err, key);
    } finally {
      await unlink(tmp).catch(() => undefined);
    }
    options?.scope?.record(key, 0);
  }

  async update(key: string, description: string, content: string, options?: CallOptions): Promise<void> {
    const write = validateWrite(key, description, content);
    options?.signal?.throwIfAborted();
    // Replacing an entry keeps the count; writing a key that holds nothing adds one, so it counts like a create.
    if (!(await this.#exists(key))) checkCapacity((await this.#keys()).length, key);
    const tmp = await this.#stage(serializeEntry(write.description, write.content));
    try {
      await rename(tmp, this.#path(key));
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw ioError(`cannot store memory ${JSON.stringify(key)}`, err, key);
    }
    options?.scope?.record(key, 0);
  }

  async delete(key: string, options?: CallOptions): Promise<boolean> {
    validateKey(key);
    options?.signal?.throwIfAborted();
    options?.scope?.forget(key);
    try {
      await unlink(this.#path(key));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw ioError(`cannot delete memory ${JSON.stringify(key)}`, err, key);
    }
  }

  async #exists(key: string): Promise<boolean> {
    try {
      await lstat(this.#path(key));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw ioError(`cannot inspect memory ${JSON.stringify(key)}`, err, key);
    }
  }

  #path(key: string): string {
    return join(this.#dir, key + SUFFIX);
  }

  /** Legal keys present as regular `.md` files, sorted. A stem that is not a legal key stays invisible. */
  async #keys(): Promise<string[]> {
    let entries;
    try {
      entries = await readdir(this.#dir, { withFileTypes: true });
    } catch (err) {
      // a store opened only to look at a directory nothing has created yet
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw ioError('cannot list the memory directory', err);
    }
    const keys: string[] = [];
    for (const entry of entries) {
      if (!entry.isFile() || !entry.name.endsWith(SUFFIX)) continue;
      const stem = entry.name.slice(0, -SUFFIX.length);
      if (isValidKey(stem)) keys.push(stem);
    }
    return keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  async #readFile(key: string): Promise<string> {
    let fh;
    try {
      fh = await open(this.#path(key), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new MemoryError('not_found', `no memory named ${JSON.stringify(key)}`, { key, cause: err });
      if (code === 'ELOOP' || code === 'EISDIR' || code === 'ENXIO') throw unsafe(key, err);
      throw ioError(`cannot read memory ${JSON.stringify(key)}`, err, key);
    }
    try {
      const st = await fh.stat();
      if (!st.isFile()) throw unsafe(key);
      if (st.size > MAX_ENTRY_BYTES * 4) {
        throw new MemoryError(
          'too_large',
          `memory ${JSON.stringify(key)} is ${st.size} bytes on disk, far over the limit; remove or shorten the file`,
          { key },
        );
      }
      return await fh.readFile({ encoding: 'utf8' });
    } catch (err) {
      if (err instanceof MemoryError) throw err;
      throw ioError(`cannot read memory ${JSON.stringify(key)}`, err, key);
    } finally {
      await fh.close();
    }
  }

  async #stage(text: string): Promise<string> {
    const tmp = join(this.#dir, TEMP_PREFIX + randomBytes(8).toString('hex'));
    try {
      const fh = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      try {
        await fh.writeFile(text, 'utf8');
        await fh.sync();
      } finally {
        await fh.close();
      }
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw ioError('cannot stage a memory file', err);
    }
    return tmp;
  }
}

function unsafe(key: string, cause?: unknown): MemoryError {
  return new MemoryError(
    'unsafe_entry',
    `memory ${JSON.stringify(key)} is stored as a symlink or a non-regular file; refusing to read it`,
    cause === undefined ? { key } : { key, cause },
  );
}

function ioError(what: string, err: unknown, key?: string): MemoryError {
  const opts = key === undefined ? { cause: err } : { cause: err, key };
  return new MemoryError('io', `${what}: ${(err as Error).message}`, opts);
}
