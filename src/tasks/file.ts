/**
 * Tasks as files, one directory per store. Each write is made whole in a temporary file, synced,
 * then linked into place: a link refuses an existing name atomically, so of two workers recording
 * one task or storing its result, exactly one succeeds and nobody needs a lock. A task is
 * `<id>.json` (what was asked, and how its attempts went, replaced by a rename) and, once
 * finished, `<id>.result.json` (the whole record with its result), which wins when both are read.
 *
 * Every file's content is synced before its name appears, so a name never shows a torn record. Only
 * a result waits for its directory to be synced too: it must survive a crash before the job's
 * message is acknowledged. What was asked and how far it got are written again by the next
 * delivery of the job if a crash loses their names, so they are not worth two more syncs a job.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { link, mkdir, open, readFile, readdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { TaskError } from './errors.js';
import { checkTaskId, decodeTaskRecord, encodeTaskRecord, finishedTask, isFinalState, progressedTask, reopenedTask } from './record.js';
import type { TaskRecord } from './record.js';
import type { TaskStore } from './store.js';
import { newestFirst } from './store.js';

const ASKED = '.json';
const RESULT = '.result.json';

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes `text` to a new private temporary file beside `name`, synced, and returns its path. */
async function writeTemp(dir: string, name: string, text: string): Promise<string> {
  const tmp = join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  const fh = await open(tmp, 'wx', 0o600);
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  return tmp;
}

/**
 * Writes `text` under `name` unless the name exists; false when it did. With `durable` the
 * directory is synced as well, so the name itself survives a crash.
 */
async function createExclusive(dir: string, name: string, text: string, durable: boolean): Promise<boolean> {
  const tmp = await writeTemp(dir, name, text);
  try {
    await link(tmp, join(dir, name));
    if (durable) syncDir(dir);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

/** Writes `text` under `name`, replacing what is there, atomically (after a crash, the old or the new whole). */
async function replace(dir: string, name: string, text: string, durable: boolean): Promise<void> {
  const tmp = await writeTemp(dir, name, text);
  try {
    await rename(tmp, join(dir, name));
    if (durable) syncDir(dir);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

async function unlinkIfPresent(path: string): Promise<boolean> {
  try {
    await unlink(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** A task store in `dir`, created on first write (the directory, never anything shared). */
export function fileTaskStore(dir: string): TaskStore {
  let made = false;
  const ensureDir = async (): Promise<void> => {
    if (made) return;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    made = true;
  };
  const read = async (id: string): Promise<TaskRecord | undefined> => {
    checkTaskId(id);
    for (const suffix of [RESULT, ASKED]) {
      const path = join(dir, id + suffix);
      const text = await readIfPresent(path);
      if (text !== undefined) {
        const record = decodeTaskRecord(text, path);
        if (record.id !== id) throw new TaskError('schema', `${path}: holds task ${JSON.stringify(record.id)}, not ${JSON.stringify(id)}`);
        return record;
      }
    }
    return undefined;
  };
  return {
    backend: 'file',
    location: dir,
    async ask(record) {
      checkTaskId(record.id);
      const text = encodeTaskRecord(record, `task ${record.id}`);
      await ensureDir();
      if (await createExclusive(dir, record.id + ASKED, text, false)) return record;
      return (await read(record.id)) as TaskRecord;
    },
    get: read,
    async complete(id, result) {
      const current = await read(id);
      if (current === undefined) throw new TaskError('not_found', `no task ${JSON.stringify(id)} in ${dir}`);
      if (isFinalState(current.state)) throw new TaskError('completed', `task ${JSON.stringify(id)} already has its result (${current.state}); the first result stands`);
      const done = finishedTask(current, result);
      if (await createExclusive(dir, id + RESULT, encodeTaskRecord(done, `task ${id}`), true)) return done;
      const winner = await read(id);
      throw new TaskError('completed', `task ${JSON.stringify(id)} already has its result (${winner?.state ?? 'unknown'}); the first result stands`);
    },
    async progress(id, progress) {
      const current = await read(id);
      if (current === undefined) throw new TaskError('not_found', `no task ${JSON.stringify(id)} in ${dir}`);
      const next = progressedTask(current, progress);
      if (next === current) return current;
      await replace(dir, id + ASKED, encodeTaskRecord(next, `task ${id}`), false);
      // a result stored meanwhile wins over what was just written
      return (await read(id)) ?? next;
    },
    async reopen(id) {
      const current = await read(id);
      if (current === undefined) throw new TaskError('not_found', `no task ${JSON.stringify(id)} in ${dir}`);
      if (current.state !== 'failed' && current.state !== 'dead') throw new TaskError('state', `task ${JSON.stringify(id)} is ${current.state}; only a failed or dead task can be retried`);
      const next = reopenedTask(current);
      await replace(dir, id + ASKED, encodeTaskRecord(next, `task ${id}`), false);
      await unlinkIfPresent(join(dir, id + RESULT));
      syncDir(dir);
      return next;
    },
    async remove(id) {
      checkTaskId(id);
      // the result first: a task half removed reads as still asked, never as finished without its question
      const result = await unlinkIfPresent(join(dir, id + RESULT));
      const asked = await unlinkIfPresent(join(dir, id + ASKED));
      if (result || asked) syncDir(dir);
      return result || asked;
    },
    async list() {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw err;
      }
      const ids = new Set(names.filter((n) => n.endsWith(ASKED) && !n.startsWith('.')).map((n) => n.slice(0, n.endsWith(RESULT) ? -RESULT.length : -ASKED.length)));
      const records = await Promise.all([...ids].map((id) => read(id)));
      return newestFirst(records.filter((r): r is TaskRecord => r !== undefined));
    },
  };
}
