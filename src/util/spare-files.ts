/**
 * Empty private files made ahead of need in one directory. On some file systems making a named
 * file costs far more than writing, linking or renaming one (on one ext4 volume measured, about
 * 160 us of system time, on another over 500, against under 25 for a link or a rename), and a
 * job through `fisk serve` with the file stores names five: two task records, the result, the
 * run's lock and its journal. A store takes a spare that was made in the thread pool while it did
 * other work, and gives it its name with a link or a rename; when no spare is ready it makes its
 * file on the spot.
 *
 * A spare is `.spare-<tag>.tmp`, mode 0600, opened for reading and appending, and locked (with the
 * `lock` the pool is given: an flock, which the kernel drops when its process ends) by the process
 * holding it for as long as it holds it. Spares are made one at a time, once the pool has been
 * asked for more files than it keeps, and at most `keep` are made to wait at once; a file that was
 * a spare and is empty again (a released lock file) can be given back with `adopt`, so a run's
 * lock costs no new file. `close` removes the ones still waiting. A spare left by a process that
 * ended without closing its stores is no longer locked: the next pool to start making spares in
 * that directory removes it once it is a minute old, so a crash leaves at most a few behind, and
 * only until a server uses the directory again.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { join } from 'node:path';

const PREFIX = '.spare-';
const SUFFIX = '.tmp';
/** A spare this old and unlocked belongs to nobody: its maker ended without removing it. */
const ORPHAN_AGE_MS = 60_000;

/** An empty file held open and locked, ready to be written and named. */
export interface Spare {
  readonly path: string;
  readonly fd: number;
}

/** Whether `name` is a spare's file name (so listings can pass over it). */
export function isSpareName(name: string): boolean {
  return name.startsWith(PREFIX) && name.endsWith(SUFFIX);
}

// pools with spares waiting, so a process that exits without closing them removes their files
const live = new Set<SpareFiles>();
let exitHooked = false;
function watchExit(pool: SpareFiles): void {
  live.add(pool);
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const each of live) void each.close();
  });
}

const SPARE_FLAGS = fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_APPEND;

export class SpareFiles {
  readonly #dir: string;
  readonly #keep: number;
  readonly #lock: (fd: number) => boolean;
  readonly #tag = randomBytes(6).toString('hex');
  readonly #ready: Spare[] = [];
  #made = 0;
  #asked = 0;
  #making: Promise<void> | undefined;
  #stopped = false;
  #swept = false;

  /**
   * A pool in `dir`, which must exist by the time it starts making spares. `lock` takes an
   * exclusive lock on an open file without waiting and says whether it got it.
   */
  constructor(dir: string, lock: (fd: number) => boolean, keep = 2) {
    this.#dir = dir;
    this.#lock = lock;
    this.#keep = keep;
  }

  /**
   * A spare if one is ready (then another is made in the background), else undefined. A pool
   * starts making spares only once it has been asked for more than it keeps, so a process that
   * makes a file or two and ends (`fisk run`) never makes one it would not use.
   */
  take(): Spare | undefined {
    if (this.#asked <= this.#keep) {
      this.#asked++;
      if (this.#asked <= this.#keep) return undefined;
    }
    const spare = this.#ready.shift();
    this.#fill();
    return spare;
  }

  /**
   * Removes the spares still waiting and makes no more. What it removes is removed before it
   * returns, so it can run while a process exits; the promise settles once a spare that was being
   * made as it ran is removed too.
   */
  close(): Promise<void> {
    this.#stopped = true;
    live.delete(this);
    for (const spare of this.#ready.splice(0)) discard(spare);
    return this.#making ?? Promise.resolve();
  }

  /**
   * Takes back, as a spare, a file of this pool's directory that the caller made from a spare and
   * holds open and locked under `path`, still empty (a lock file): it gets a spare's name and loses
   * `path`, so the next file handed out costs a link instead of a new file. From then on the pool
   * owns the descriptor and the lock stays on. False, with `path` and the descriptor left as they
   * were, when the pool is closed or keeps enough spares already, or `path` does not name that very
   * file; the caller then removes and closes it as it would have. Up to twice as many spares as it
   * keeps made may wait once files come back.
   */
  adopt(path: string, fd: number): boolean {
    // taken back beyond what it keeps made, since the pool makes its spares back as it hands them out
    if (this.#stopped || this.#ready.length >= 2 * this.#keep) return false;
    const spare = { path: this.#nextPath(), fd };
    try {
      fs.linkSync(path, spare.path);
    } catch {
      return false;
    }
    // linked by name, so the name may have come to stand for another file since it was locked
    if (!namesFileQuietly(spare.path, fd) || !unlinkUnlessError(path)) {
      unlinkUnlessError(spare.path);
      return false;
    }
    this.#ready.push(spare);
    watchExit(this);
    return true;
  }

  #nextPath(): string {
    return join(this.#dir, `${PREFIX}${this.#tag}-${(this.#made++).toString(36)}${SUFFIX}`);
  }

  #fill(): void {
    if (this.#stopped || this.#making !== undefined || this.#ready.length >= this.#keep) return;
    if (!this.#swept) {
      this.#swept = true;
      sweepOrphans(this.#dir, this.#lock);
    }
    const path = this.#nextPath();
    this.#making = new Promise((settled) => {
      fs.open(path, SPARE_FLAGS, 0o600, (err, fd) => {
        this.#making = undefined;
        settled();
        // a pool that cannot make a file (a full disk, a missing directory) tries again at the next
        // take; the store makes its own files meanwhile, and reports what goes wrong with them
        if (err !== null) return;
        const spare = { path, fd };
        if (this.#stopped || !lockQuietly(this.#lock, fd)) {
          discard(spare);
          return;
        }
        this.#ready.push(spare);
        watchExit(this);
        this.#fill();
      });
    });
  }
}

/** Whether `path` names the very file open as `fd`: false when nothing is at `path`; other failures throw. */
export function namesFile(path: string, fd: number): boolean {
  const open = fs.fstatSync(fd);
  const named = fs.statSync(path, { throwIfNoEntry: false });
  return named !== undefined && named.ino === open.ino && named.dev === open.dev;
}

function namesFileQuietly(path: string, fd: number): boolean {
  try {
    return namesFile(path, fd);
  } catch {
    return false;
  }
}

/** Removes `path`; false only when that failed for a reason other than its being gone already. */
function unlinkUnlessError(path: string): boolean {
  try {
    fs.unlinkSync(path);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

function lockQuietly(lock: (fd: number) => boolean, fd: number): boolean {
  try {
    return lock(fd);
  } catch {
    return false;
  }
}

/**
 * Gives `spare` the name `path` by a link, which refuses an existing name, then drops the spare's
 * own name; the spare's descriptor is the caller's from then on. When the link fails the spare is
 * removed and closed, and the link's error (EEXIST for a name already there) is returned.
 */
export function nameSpare(spare: Spare, path: string): NodeJS.ErrnoException | undefined {
  try {
    fs.linkSync(spare.path, path);
  } catch (err) {
    discard(spare);
    return err as NodeJS.ErrnoException;
  }
  try {
    fs.unlinkSync(spare.path);
  } catch {
    // its own name is gone already; the new name is what counts
  }
  return undefined;
}

/** Removes a spare that will not be used, and closes it. */
export function discard(spare: Spare): void {
  try {
    fs.unlinkSync(spare.path);
  } catch {
    // already gone: nothing is left behind either way
  }
  try {
    fs.closeSync(spare.fd);
  } catch {
    // already closed
  }
}

/**
 * Removes, in the background, the spares in `dir` that a process which has ended left behind: a
 * minute old and not locked.
 */
function sweepOrphans(dir: string, lock: (fd: number) => boolean): void {
  fs.readdir(dir, (err, names) => {
    if (err !== null) return;
    const old = Date.now() - ORPHAN_AGE_MS;
    for (const name of names) if (isSpareName(name)) removeIfOrphan(join(dir, name), old, lock);
  });
}

function removeIfOrphan(path: string, old: number, lock: (fd: number) => boolean): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    // a live holder keeps its spare locked; one made a moment ago may not be locked yet
    if (fs.fstatSync(fd).mtimeMs < old && lock(fd)) fs.unlinkSync(path);
  } catch {
    // gone meanwhile, or not ours to remove
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
