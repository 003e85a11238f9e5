/**
 * The file session backend: one JSON-lines journal per run (`<dir>/<id>.json`, mode 0600, in a
 * 0700 directory) and an exclusive flock on `<dir>/<id>.lock` for as long as a journal is open.
 * Every record is fsynced before the journal advances (records appended together share one write
 * and one fsync), and the directory is fsynced after a new journal's first record so the file
 * itself survives a crash. A new run's lock file and journal are spare files made ahead in the
 * background when they are ready (util/spare-files.ts), linked into place; a released lock file,
 * still locked, goes back to being a spare, so a run in steady use makes only its journal.
 */
import { closeSync, constants, ftruncateSync, openSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDescriptor, syncDirectory, writeWhole } from '../../util/durable-write.js';
import { SpareFiles, nameSpare } from '../../util/spare-files.js';
import { planBatch } from '../check-append.js';
import { RunStateError } from '../errors.js';
import type { SessionRecord, StoredRecord } from '../records.js';
import { RUN_ID_PATTERN, checkRunId } from '../run-id.js';
import type { AppendOutcome, Journal, RunSummary, SessionStore } from '../store.js';
import { summarize } from '../summary.js';
import { encodeRecord } from '../validate.js';
import { flockNow, tryLock } from './lock.js';
import type { HeldLock } from './lock.js';
import { parseJournal } from './read.js';

// a journal line is small: it is written synchronously, and only its sync waits off the event
// loop (see util/durable-write.ts)

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

function lockedError(runId: string): RunStateError {
  return new RunStateError(
    'locked',
    `run is already locked (by another process or a concurrent run of the same id): ${JSON.stringify(runId)}`,
  );
}

/** A journal this small is read without leaving the event loop: through the thread pool it costs more than the read. */
const SMALL_JOURNAL_BYTES = 64 * 1024;

/** Why a journal file holding text but no record cannot be read back. */
function noWholeRecord(file: string): string {
  return `corrupt record sequence: ${file} holds no whole record (it is not a journal, or its first write was torn); remove the run with fisk session rm`;
}

/** The file session store over `dir` (created on the first run, mode 0700): one journal file per run. */
export function fileSessionStore(dir: string): SessionStore {
  const paths = (runId: string): { json: string; lock: string } => ({ json: join(dir, `${runId}.json`), lock: join(dir, `${runId}.lock`) });

  const readRun = async (runId: string): Promise<{ text: string } | undefined> => {
    const path = paths(runId).json;
    try {
      // looked for before every new job's run: a missing journal is told without an exception
      const info = statSync(path, { throwIfNoEntry: false });
      if (info === undefined) return undefined;
      return { text: info.size <= SMALL_JOURNAL_BYTES ? readFileSync(path, 'utf8') : await readFile(path, 'utf8') };
    } catch (err) {
      if (errno(err) === 'ENOENT') return undefined;
      throw new RunStateError('unavailable', `cannot read run ${JSON.stringify(runId)} in ${dir}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  };

  // a run's lock file and its journal are made from spares when one is ready (util/spare-files.ts)
  const spares = new SpareFiles(dir, flockNow);
  // a released lock file becomes a spare again: a job's run then makes one file (its journal), not two
  const giveBack = (path: string, fd: number): boolean => spares.adopt(path, fd);

  /** Makes a new journal file, failing with EEXIST when one is there. */
  const createJournal = (path: string): number => {
    const spare = spares.take();
    const failed = spare === undefined ? undefined : nameSpare(spare, path);
    if (spare !== undefined && failed === undefined) return spare.fd;
    if (failed?.code === 'EEXIST') throw failed;
    // no spare, or one that is gone or unusable: the journal is made as it would be without one
    return openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND, 0o600);
  };

  // the directory is made once per store, not before every journal and write
  let made = false;
  const ensureDir = async (): Promise<void> => {
    if (made) return;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    made = true;
  };

  const journal = (runId: string, lock: HeldLock, descriptor: number | undefined, last: number): Journal => {
    let fd = descriptor;
    let lastSeq = last;
    let state: 'open' | 'broken' | 'closed' = 'open';
    let chain: Promise<unknown> = Promise.resolve();

    // the lines of a batch go down in one write under one fsync: a record is durable once the sync returns
    const write = async (records: readonly SessionRecord[]): Promise<AppendOutcome[]> => {
      if (state === 'closed') throw new RunStateError('locked', `journal for run ${JSON.stringify(runId)} is closed`);
      if (state === 'broken') {
        throw new RunStateError(
          'unavailable',
          `journal for run ${JSON.stringify(runId)} failed a write; reopen the run to continue from its last whole record`,
        );
      }
      const plan = planBatch(records, lastSeq, (record) => ({ seq: record.seq, line: `${encodeRecord(record)}\n` }));
      const newest = plan.stored[plan.stored.length - 1];
      if (newest === undefined) return plan.outcomes;
      try {
        let first = false;
        if (fd === undefined) {
          await ensureDir();
          fd = createJournal(paths(runId).json);
          first = true;
        }
        writeWhole(fd, plan.stored.map((entry) => entry.line).join(''));
        await syncDescriptor(fd);
        if (first) await syncDirectory(dir);
      } catch (err) {
        // a partial line may be on disk: only a reopen (which drops a torn tail) may write again
        state = 'broken';
        throw new RunStateError('unavailable', `cannot write run ${JSON.stringify(runId)} in ${dir}: ${(err as Error).message}`, {
          cause: err,
        });
      }
      lastSeq = newest.seq;
      return plan.outcomes;
    };

    const queued = (records: readonly SessionRecord[]): Promise<AppendOutcome[]> => {
      const next = chain.then(() => write(records));
      chain = next.catch(() => undefined);
      return next;
    };

    return {
      runId,
      lastSeq: () => lastSeq,
      // the flock excludes every other writer for as long as the journal is open
      isHeld: () => Promise.resolve(state === 'open'),
      append: async (record: SessionRecord): Promise<AppendOutcome> => (await queued([record]))[0] ?? 'duplicate',
      appendAll: (records: readonly SessionRecord[]): Promise<AppendOutcome[]> => queued(records),
      async close(): Promise<void> {
        if (state === 'closed') return;
        state = 'closed';
        await chain;
        try {
          if (fd !== undefined) closeSync(fd);
        } finally {
          lock.release();
        }
      },
    };
  };

  const take = async (runId: string): Promise<HeldLock | undefined> => {
    await ensureDir();
    return tryLock(paths(runId).lock, spares.take(), giveBack);
  };

  return {
    backend: 'file',
    location: dir,
    // the flock taken in create shuts out every other writer of the run
    exclusiveCreate: true,
    close: () => spares.close(),

    async create(runId: string): Promise<Journal> {
      checkRunId(runId);
      const lock = await take(runId);
      if (lock === undefined)
        throw new RunStateError('exists', `run already exists: ${JSON.stringify(runId)} (another process is writing it)`);
      let found: boolean;
      try {
        found = statSync(paths(runId).json, { throwIfNoEntry: false }) !== undefined;
      } catch (err) {
        lock.release();
        throw err;
      }
      if (!found) return journal(runId, lock, undefined, 0);
      lock.release();
      throw new RunStateError('exists', `run already exists: ${JSON.stringify(runId)}`);
    },

    async open(runId: string): Promise<Journal> {
      checkRunId(runId);
      if ((await readRun(runId)) === undefined) throw new RunStateError('not_found', `run not found: ${JSON.stringify(runId)} in ${dir}`);
      const lock = await take(runId);
      if (lock === undefined) throw lockedError(runId);
      try {
        // read again under the lock: the holder we waited out may have written more
        const text = (await readRun(runId))?.text ?? '';
        const parsed = parseJournal(text, paths(runId).json);
        // nothing to cut back to: the file is left as it is, for the operator to look at or remove
        if (parsed.records.length === 0 && text.trim() !== '') throw new RunStateError('corrupt', noWholeRecord(paths(runId).json));
        const fd = openSync(paths(runId).json, constants.O_RDWR | constants.O_APPEND);
        try {
          const bytes = Buffer.byteLength(text);
          if (parsed.validBytes < bytes) {
            ftruncateSync(fd, parsed.validBytes);
            await syncDescriptor(fd);
          } else if (parsed.missingNewline) {
            writeWhole(fd, '\n');
            await syncDescriptor(fd);
          }
        } catch (err) {
          closeSync(fd);
          throw err;
        }
        const last = parsed.records[parsed.records.length - 1];
        if (last === undefined) {
          closeSync(fd);
          throw new RunStateError('corrupt', `corrupt record sequence: run ${JSON.stringify(runId)} has no whole record`);
        }
        return journal(runId, lock, fd, last.seq);
      } catch (err) {
        lock.release();
        throw err;
      }
    },

    async load(runId: string): Promise<readonly StoredRecord[]> {
      checkRunId(runId);
      const got = await readRun(runId);
      if (got === undefined) throw new RunStateError('not_found', `run not found: ${JSON.stringify(runId)} in ${dir}`);
      const parsed = parseJournal(got.text, paths(runId).json);
      if (parsed.records.length === 0) {
        // an empty file is a run whose first write has not landed; text that holds no record is not a journal
        if (got.text.trim() !== '') throw new RunStateError('corrupt', noWholeRecord(paths(runId).json));
        throw new RunStateError('not_found', `run not found: ${JSON.stringify(runId)} has no whole record yet`);
      }
      return parsed.records;
    },

    async list(): Promise<readonly RunSummary[]> {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (err) {
        if (errno(err) === 'ENOENT') return [];
        throw new RunStateError('unavailable', `cannot list runs in ${dir}: ${(err as Error).message}`, { cause: err });
      }
      const out: RunSummary[] = [];
      for (const name of names) {
        if (!name.endsWith('.json')) continue;
        const runId = name.slice(0, -'.json'.length);
        if (!RUN_ID_PATTERN.test(runId) || runId.length > 128) continue;
        try {
          const file = join(dir, name);
          const [text, info] = await Promise.all([readFile(file, 'utf8'), stat(file)]);
          let records: readonly StoredRecord[];
          try {
            records = parseJournal(text, file).records;
          } catch (err) {
            // listed, not hidden: the operator must be able to find it and remove it
            out.push({ runId, status: 'corrupt', problem: (err as Error).message, updated: info.mtime });
            continue;
          }
          if (records.length > 0) out.push(summarize(runId, records, info.mtime));
          else if (text.trim() !== '') out.push({ runId, status: 'corrupt', problem: noWholeRecord(file), updated: info.mtime });
        } catch {
          // vanished or unreadable between readdir and read: nothing to list
        }
      }
      out.sort((a, b) => b.updated.getTime() - a.updated.getTime());
      return out;
    },

    async remove(runId: string): Promise<boolean> {
      checkRunId(runId);
      const { json, lock: lockPath } = paths(runId);
      let lock: HeldLock | undefined;
      try {
        lock = tryLock(lockPath);
      } catch (err) {
        if (errno(err) === 'ENOENT') return false; // no directory, so no run
        throw err;
      }
      if (lock === undefined)
        throw new RunStateError('locked', `run ${JSON.stringify(runId)} is in use by another process; stop it before removing the run`);
      try {
        const removed = await unlink(json).then(
          () => true,
          (err: unknown) => {
            if (errno(err) !== 'ENOENT') throw err;
            return false;
          },
        );
        await unlink(lockPath).catch((err: unknown) => {
          if (errno(err) !== 'ENOENT') throw err;
        });
        return removed;
      } finally {
        lock.release();
      }
    },
  };
}
