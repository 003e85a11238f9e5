import { isKnownRecord, recordKind } from './records.js';
import type { StoredRecord, TerminalReason } from './records.js';
import type { RunSummary } from './store.js';

/**
 * The status a listing shows, by the fold's rule read from the tail: the last terminal reason,
 * unless a model call or a follow-up came after it (the run was resumed and is running, or
 * crashed while running). Claims, results, grants and memory scopes do not reopen a run.
 */
export function statusOf(records: readonly StoredRecord[]): TerminalReason | 'open' {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (r === undefined || !isKnownRecord(r)) continue;
    if ('terminal' in r) return r.terminal.reason;
    const kind = recordKind(r);
    if (kind === 'assistant' || kind === 'user' || kind === 'meta') return 'open';
  }
  return 'open';
}

/** A summary from a run's records (the meta record gives model and prompt). */
export function summarize(runId: string, records: readonly StoredRecord[], updated: Date): Exclude<RunSummary, { status: 'corrupt' }> {
  const first = records[0];
  const meta = first !== undefined && isKnownRecord(first) && 'meta' in first ? first.meta : undefined;
  return {
    runId,
    model: meta?.fingerprint.model ?? '',
    status: statusOf(records),
    updated,
    prompt: meta?.prompt ?? '',
  };
}
