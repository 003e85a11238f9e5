/**
 * An in-memory session store with the same contract as the durable backends: records are encoded
 * and decoded exactly as a file or stream would hold them, one writer holds a run at a time, and a
 * writer whose tail was moved by another is refused. For tests and for embedders that want
 * checkpoint semantics without persistence; everything is lost with the process.
 */
import { planBatch } from './check-append.js';
import { RunStateError } from './errors.js';
import type { SessionRecord, StoredRecord } from './records.js';
import { checkRunId } from './run-id.js';
import type { AppendOutcome, Journal, RunSummary, SessionStore } from './store.js';
import { summarize } from './summary.js';
import { decodeRecord, encodeRecord } from './validate.js';

interface StoredRun {
  readonly lines: string[];
  updated: Date;
  holder: object | undefined;
}

/** Runs `fn`, turning a throw into a rejection. */
function attempt<T>(fn: () => T): Promise<T> {
  return new Promise((resolve) => resolve(fn()));
}

/** Builds an empty in-memory store. */
export function memorySessionStore(): SessionStore {
  const runs = new Map<string, StoredRun>();

  const journalFor = (runId: string, run: StoredRun): Journal => {
    const token = {};
    run.holder = token;
    let last = run.lines.length;
    let closed = false;
    // a batch is checked whole and then stored at once, so it lands entirely or not at all
    const store = (records: readonly SessionRecord[]): AppendOutcome[] => {
      if (closed) throw new RunStateError('locked', `journal for run ${JSON.stringify(runId)} is closed`);
      const plan = planBatch(records, last, (record) => ({ seq: record.seq, body: encodeRecord(record) }));
      const newest = plan.stored[plan.stored.length - 1];
      if (newest === undefined) return plan.outcomes;
      if (run.lines.length !== last || runs.get(runId) !== run) {
        throw new RunStateError('locked', `run ${JSON.stringify(runId)} was taken over by another writer`);
      }
      for (const entry of plan.stored) run.lines.push(entry.body);
      run.updated = new Date();
      last = newest.seq;
      return plan.outcomes;
    };
    return {
      runId,
      lastSeq: () => last,
      isHeld: () => Promise.resolve(!closed && run.holder === token && run.lines.length === last && runs.get(runId) === run),
      append(record: SessionRecord): Promise<AppendOutcome> {
        return attempt(() => store([record])[0] ?? 'duplicate');
      },
      appendAll(records: readonly SessionRecord[]): Promise<AppendOutcome[]> {
        return attempt(() => store(records));
      },
      close(): Promise<void> {
        closed = true;
        if (run.holder === token) run.holder = undefined;
        return Promise.resolve();
      },
    };
  };

  const take = (runId: string, run: StoredRun): Journal => {
    if (run.holder !== undefined) {
      throw new RunStateError(
        'locked',
        `run is already locked (by another process or a concurrent run of the same id): ${JSON.stringify(runId)}`,
      );
    }
    return journalFor(runId, run);
  };

  return {
    backend: 'memory',
    location: 'memory',
    create(runId: string): Promise<Journal> {
      return attempt(() => {
        checkRunId(runId);
        if (runs.has(runId)) throw new RunStateError('exists', `run already exists: ${JSON.stringify(runId)}`);
        const run: StoredRun = { lines: [], updated: new Date(), holder: undefined };
        runs.set(runId, run);
        return take(runId, run);
      });
    },
    open(runId: string): Promise<Journal> {
      return attempt(() => {
        checkRunId(runId);
        const run = runs.get(runId);
        if (run === undefined) throw new RunStateError('not_found', `run not found: ${JSON.stringify(runId)}`);
        return take(runId, run);
      });
    },
    load(runId: string): Promise<readonly StoredRecord[]> {
      return attempt(() => {
        checkRunId(runId);
        const run = runs.get(runId);
        if (run === undefined || run.lines.length === 0) throw new RunStateError('not_found', `run not found: ${JSON.stringify(runId)}`);
        return run.lines.map(decodeRecord);
      });
    },
    list(): Promise<readonly RunSummary[]> {
      const out: RunSummary[] = [];
      for (const [runId, run] of runs) {
        try {
          out.push(summarize(runId, run.lines.map(decodeRecord), run.updated));
        } catch (err) {
          out.push({ runId, status: 'corrupt', problem: (err as Error).message, updated: run.updated });
        }
      }
      out.sort((a, b) => b.updated.getTime() - a.updated.getTime());
      return Promise.resolve(out);
    },
    remove(runId: string): Promise<boolean> {
      return attempt(() => {
        checkRunId(runId);
        return runs.delete(runId);
      });
    },
  };
}
