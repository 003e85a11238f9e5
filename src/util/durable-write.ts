/**
 * The small-file writes of the file stores (task records, journal lines). A record is a few
 * hundred bytes, so opening, writing and closing it are done synchronously: through the thread
 * pool each step cost tens of microseconds of CPU (a promise, a hand-off and a wake-up) more than
 * the system call itself. Only the syncs, which wait for the disk, are handed to the thread pool,
 * so a slow disk holds up no other run.
 */
import fs from 'node:fs';

/** Waits for `fd`'s data to reach the disk, off the event loop. */
export function syncDescriptor(fd: number): Promise<void> {
  // called through the module object, so a test can count the syncs
  return new Promise((resolve, reject) => fs.fsync(fd, (err) => (err === null ? resolve() : reject(err))));
}

/** Syncs a directory, so the names just made or removed in it survive a crash. */
export async function syncDirectory(dir: string): Promise<void> {
  const fd = fs.openSync(dir, fs.constants.O_RDONLY);
  try {
    await syncDescriptor(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes all of `text` to `fd`, or throws. A write to a full disk or past a file-size limit can
 * store part of it and report fewer bytes written: it is continued, and one that stores nothing fails.
 */
export function writeWhole(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let at = 0;
  while (at < bytes.length) {
    const written = fs.writeSync(fd, bytes, at, bytes.length - at);
    if (written <= 0) throw new Error(`the write stored ${at} of ${bytes.length} bytes (is the disk full?)`);
    at += written;
  }
}
