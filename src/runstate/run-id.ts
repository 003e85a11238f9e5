import { randomBytes } from 'node:crypto';
import { RunStateError } from './errors.js';

/** What a run id must look like: it becomes a file name and a subject token, so nothing else is allowed. */
export const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
export const RUN_ID_MAX_LENGTH = 128;

/**
 * Refuses a run id that could escape a directory or a subject token (`/`, `.`, `*`, `>`,
 * whitespace) or that is longer than 128 characters. Throws `RunStateError` `invalid_run_id`.
 */
export function checkRunId(id: string): string {
  if (id.length > RUN_ID_MAX_LENGTH) {
    throw new RunStateError(
      'invalid_run_id',
      `invalid run id: ${JSON.stringify(id.slice(0, 40))}... is longer than ${RUN_ID_MAX_LENGTH} characters`,
    );
  }
  if (!RUN_ID_PATTERN.test(id)) {
    throw new RunStateError(
      'invalid_run_id',
      `invalid run id: ${JSON.stringify(id)} (use letters, digits, '-' or '_', starting with a letter or digit)`,
    );
  }
  return id;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** The KSUID epoch (2014-05-13T16:53:20Z), so generated ids look like the original's. */
const EPOCH_SECONDS = 1_400_000_000;

/**
 * A new run id: 27 base62 characters encoding a 4-byte timestamp and 16 random bytes (the KSUID
 * layout), so ids sort by creation time as plain strings and never collide in practice. Written by
 * hand because the layout is twenty lines and a dependency would add nothing.
 */
export function newRunId(now: Date = new Date()): string {
  const bytes = Buffer.alloc(20);
  bytes.writeUInt32BE(Math.max(0, Math.floor(now.getTime() / 1000) - EPOCH_SECONDS), 0);
  randomBytes(16).copy(bytes, 4);
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(27, '0');
}
