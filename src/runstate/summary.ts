import { isKnownRecord, recordKind } from './records.js';
import type { StoredRecord, TerminalReason } from './records.js';

/**
 * The status a listing shows, from the records alone: the last terminal reason unless a record
 * that moves the run on (a model call, a follow-up, a result, a deferral) came after it. Claims,
 * grants and memory scopes are inert here as they are in the fold.
 */
export function statusOf(records: readonly StoredRecord[]): TerminalReason | 'open' {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (r === undefined || !isKnownRecord(r)) continue;
    const kind = recordKind(r);
    if ('terminal' in r) return r.terminal.reason;
    if (kind === 'assistant' || kind === 'user' || kind === 'tool_result' || kind === 'deferral' || kind === 'meta') return 'open';
  }
  return 'open';
}
