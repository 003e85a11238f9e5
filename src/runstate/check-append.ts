import { RunStateError } from './errors.js';

/** What an append of `seq` onto a journal whose last stored sequence is `last` means. */
export type AppendCheck = 'duplicate' | 'next' | 'gap';

/**
 * The one rule both backends share, so they cannot drift: a sequence at or below the last is a
 * duplicate to skip (an idempotent retry), one above is the next record, anything higher is a gap.
 *
 * It deliberately does not advance anything: the caller advances its last sequence only after
 * the record is durably stored, so a torn write re-appends the same sequence instead of losing it.
 */
export function checkAppend(seq: number, last: number): AppendCheck {
  if (seq <= last) return 'duplicate';
  if (seq === last + 1) return 'next';
  return 'gap';
}

/** The error for a gap, in one wording for every backend. */
export function gapError(seq: number, last: number): RunStateError {
  return new RunStateError('gap', `record seq gap: seq ${seq} skips ahead of ${last}`);
}
