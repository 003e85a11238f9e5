/**
 * Tasks as files, one directory per store. Each write is made whole in a temporary file, then
 * linked into place: a link refuses an existing name atomically, so of two workers recording one
 * task or storing its result, exactly one succeeds and nobody needs a lock. A task is `<id>.json`
 * (what was asked, and how its attempts went, replaced by a rename) and, once finished,
 * `<id>.result.json` (the whole record with its result), which wins when both are read. A reader
 * never sees half a record: a name appears only once the whole text is written. The temporary file
 * is a spare made ahead in the background when one is ready (util/spare-files.ts): making a file
 * costs far more than writing and naming one, and a job writes three records in quick succession.
 *
 * What survives a crash, write by write:
 * - A result: its file is synced before it is linked into place and the directory is synced after,
 *   both before `complete` returns, so the result is on disk before the job's message is
 *   acknowledged.
 * - What was asked and how far it got: not synced. A crash may lose the newest of them, or leave
 *   the name of one with its text never written (an empty file, or one of zero bytes); such a record
 *   reads as not there, and the next delivery of the job writes it again. At worst a crash loses
 *   the count of attempts made since the last one that survived.
 * - Reopening a task: its new record is synced before it replaces the old one, then its result is
 *   removed and the directory synced, so a removed result does not come back. Removing a task syncs
 *   the directory too.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { flockNow } from '../runstate/file/lock.js';
import { syncDescriptor, syncDirectory, writeWhole } from '../util/durable-write.js';
import { SpareFiles } from '../util/spare-files.js';
import { TaskError } from './errors.js';
import { checkTaskId, decodeTaskRecord, encodeTaskRecord, finishedTask, isFinalState, progressedTask, reopenedTask } from './record.js';
import type { TaskRecord } from './record.js';
import type { TaskStore } from './store.js';
import { newestFirst } from './store.js';

const ASKED = '.json';
const RESULT = '.result.json';

// records are small: they are written, linked, renamed, read and removed synchronously, and only
// the syncs wait off the event loop (see util/durable-write.ts)

/**
 * Writes `text` to a new private temporary file beside `name` (synced with `sync`), and returns its
 * path: a spare when one is ready (util/spare-files.ts), else a file made for it.
 */
async function writeTemp(dir: string, spares: SpareFiles, name: string, text: string, sync: boolean): Promise<string> {
  const spare = spares.take();
  const tmp = spare?.path ?? join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  // the write refreshes a spare's time, so no sweep takes it for an orphan once it is closed
  const fd = spare?.fd ?? openSync(tmp, 'wx', 0o600);
  try {
    try {
      writeWhole(fd, text);
      if (sync) await syncDescriptor(fd);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    // a write, sync or close that failed leaves no temporary file behind
    unlinkQuietly(tmp);
    throw err;
  }
  return tmp;
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone, or never made: nothing is left behind either way
  }
}

/**
 * Writes `text` under `name` unless the name exists; false when it did. With `durable` the text
 * is synced before the name appears and the directory after, so the record survives a crash.
 */
async function createExclusive(dir: string, spares: SpareFiles, name: string, text: string, durable: boolean): Promise<boolean> {
  const tmp = await writeTemp(dir, spares, name, text, durable);
  try {
    linkSync(tmp, join(dir, name));
  } catch (err) {
    unlinkQuietly(tmp);
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  unlinkQuietly(tmp);
  if (durable) await syncDirectory(dir);
  return true;
}

/**
 * Writes `text` under `name`, replacing what is there; a reader sees the old whole or the new. With
 * `synced` the text is on disk before the name moves to it (the caller syncs the directory).
 */
async function replace(dir: string, spares: SpareFiles, name: string, text: string, synced = false): Promise<void> {
  const tmp = await writeTemp(dir, spares, name, text, synced);
  try {
    renameSync(tmp, join(dir, name));
  } catch (err) {
    unlinkQuietly(tmp);
    throw err;
  }
}

/** Whether a record file holds only what a crash leaves of an unsynced write: nothing, or zero bytes. */
function neverWritten(text: string): boolean {
  return /^\0*$/u.test(text);
}

function unlinkIfPresent(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

function readIfPresent(path: string): string | undefined {
  // a result is looked for on every read and is usually not there: asked without an exception,
  // which costs many times the look itself
  if (statSync(path, { throwIfNoEntry: false }) === undefined) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** A task store in `dir`, created on first write (the directory, never anything shared). */
export function fileTaskStore(dir: string): TaskStore {
  // a job writes three records in quick succession: three spares wait for them
  const spares = new SpareFiles(dir, flockNow, 3);
  let made = false;
  const ensureDir = async (): Promise<void> => {
    if (made) return;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    made = true;
  };
  const decodeAt = (id: string, path: string, text: string): TaskRecord => {
    const record = decodeTaskRecord(text, path);
    if (record.id !== id) throw new TaskError('schema', `${path}: holds task ${JSON.stringify(record.id)}, not ${JSON.stringify(id)}`);
    return record;
  };
  const read = (id: string): TaskRecord | undefined => {
    checkTaskId(id);
    for (const suffix of [RESULT, ASKED]) {
      const path = join(dir, id + suffix);
      const text = readIfPresent(path);
      // a result is synced before its name appears; what was asked is not, and may be empty after a crash
      if (text !== undefined && !(suffix === ASKED && neverWritten(text))) return decodeAt(id, path, text);
    }
    return undefined;
  };
  return {
    backend: 'file',
    location: dir,
    close: () => spares.close(),
    async ask(record) {
      checkTaskId(record.id);
      const text = encodeTaskRecord(record, `task ${record.id}`);
      await ensureDir();
      if (await createExclusive(dir, spares, record.id + ASKED, text, false)) return record;
      const current = read(record.id);
      if (current !== undefined) return current;
      // the name is there but a crash kept none of its text: asked again, it is written again
      await replace(dir, spares, record.id + ASKED, text);
      return read(record.id) ?? record;
    },
    // a throw while reading becomes the promise's rejection
    get: (id) => new Promise((resolve) => resolve(read(id))),
    async complete(id, result) {
      const current = read(id);
      if (current === undefined) throw new TaskError('not_found', `no task ${JSON.stringify(id)} in ${dir}`);
      if (isFinalState(current.state))
        throw new TaskError('completed', `task ${JSON.stringify(id)} already has its result (${current.state}); the first result stands`);
      const done = finishedTask(current, result);
      if (await createExclusive(dir, spares, id + RESULT, encodeTaskRecord(done, `task ${id}`), true)) return done;
      const winner = read(id);
      throw new TaskError(
        'completed',
        `task ${JSON.stringify(id)} already has its result (${winner?.state ?? 'unknown'}); the first result stands`,
      );
    },
    async progress(id, progress) {
      const current = read(id);
      if (current === undefined) throw new TaskError('not_found', `no task ${JSON.stringify(id)} in ${dir}`);
      const next = progressedTask(current, progress);
      if (next === current) return current;
      await replace(dir, spares, id + ASKED, encodeTaskRecord(next, `task ${id}`));
      // a result stored meanwhile wins over what was just written
      const resultPath = join(dir, id + RESULT);
      const result = readIfPresent(resultPath);
      return result === undefined ? next : decodeAt(id, resultPath, result);
    },
    async reopen(id) {
      const current = read(id);
      if (current === undefined) throw new TaskError('not_found', `no task ${JSON.stringify(id)} in ${dir}`);
      if (current.state !== 'failed' && current.state !== 'dead')
        throw new TaskError('state', `task ${JSON.stringify(id)} is ${current.state}; only a failed or dead task can be retried`);
      const next = reopenedTask(current);
      // synced: once the result is gone, this record is all that says the task exists
      await replace(dir, spares, id + ASKED, encodeTaskRecord(next, `task ${id}`), true);
      unlinkIfPresent(join(dir, id + RESULT));
      await syncDirectory(dir);
      return next;
    },
    async remove(id) {
      checkTaskId(id);
      // the result first: a task half removed reads as still asked, never as finished without its question
      const result = unlinkIfPresent(join(dir, id + RESULT));
      const asked = unlinkIfPresent(join(dir, id + ASKED));
      if (result || asked) await syncDirectory(dir);
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
      const ids = new Set(
        names
          .filter((n) => n.endsWith(ASKED) && !n.startsWith('.'))
          .map((n) => n.slice(0, n.endsWith(RESULT) ? -RESULT.length : -ASKED.length)),
      );
      const records = [...ids].map((id) => read(id));
      return newestFirst(records.filter((r): r is TaskRecord => r !== undefined));
    },
  };
}
