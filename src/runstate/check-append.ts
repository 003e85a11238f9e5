import { RunStateError } from './errors.js';
import type { SessionRecord } from './records.js';
import type { AppendOutcome } from './store.js';

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

/** A batch checked record by record: what each one is, and the records to store, in order. */
export interface BatchPlan<R> {
  readonly outcomes: AppendOutcome[];
  readonly stored: R[];
}

/**
 * Checks a batch against a journal whose last stored sequence is `last`, each record against the
 * ones before it in the batch too, so a record repeated inside the batch is a duplicate like one
 * repeated across batches. A gap anywhere throws before anything is stored. `prepare` runs on
 * every record, duplicates included (an append validates a record before its sequence is looked
 * at), and what it returns for the records to store is kept.
 */
export function planBatch<R>(records: readonly SessionRecord[], last: number, prepare: (record: SessionRecord) => R): BatchPlan<R> {
  const outcomes: AppendOutcome[] = [];
  const stored: R[] = [];
  let at = last;
  for (const record of records) {
    const prepared = prepare(record);
    const check = checkAppend(record.seq, at);
    if (check === 'gap') throw gapError(record.seq, at);
    if (check === 'duplicate') {
      outcomes.push('duplicate');
      continue;
    }
    outcomes.push('appended');
    stored.push(prepared);
    at = record.seq;
  }
  return { outcomes, stored };
}
