/**
 * The session store contract every backend implements, and the journal a run writes through.
 * A store is built once by a host and borrowed by runs; it owns no connection it was handed.
 */
import type { RecordBody, SessionRecord, StoredRecord, TerminalReason } from './records.js';

/** Whether an append stored a record or recognised a retry of one already stored. */
export type AppendOutcome = 'appended' | 'duplicate';

/**
 * One run's append-only journal, held exclusively for its lifetime. `append` follows
 * `checkAppend`: a sequence at or below `lastSeq()` is a duplicate and skipped, the next one is
 * stored durably before `lastSeq()` advances, and a gap is refused. A writer that lost the run to
 * a newer claimant is refused at its next append with `RunStateError` `locked`. `appendAll` stores
 * records written back to back as one durable step, under the same rules record by record.
 */
export interface Journal {
  readonly runId: string;
  /** The last durably stored sequence (0 for a journal with nothing written yet). */
  lastSeq(): number;
  /**
   * Whether this journal still holds its run: nobody else has appended since its last record.
   * A runner checks it right before a tool's irreversible effect, so a run taken over on a shared
   * store stops there rather than at its next append. Never throws; an unreachable store is
   * reported as not held (fail closed).
   */
  isHeld(): Promise<boolean>;
  /** Validates and durably stores one record. */
  append(record: SessionRecord): Promise<AppendOutcome>;
  /**
   * Validates and durably stores several records as one step, answering each one's outcome in
   * order. Each is checked as `append` would check it against the records before it, the batch's
   * own included, so a retried record is a duplicate inside a batch as across batches. An invalid
   * record or a gap anywhere refuses the whole batch before anything is stored. The file backend
   * writes the batch's lines at once under one fsync; a backend may store them one after another,
   * as long as none is reported stored before it is durable. A write that fails part way may leave
   * a prefix of the batch stored, as appends one after another would, and leaves the journal as a
   * failed `append` does (a file journal refuses to write again until the run is reopened). An
   * empty batch stores nothing.
   */
  appendAll(records: readonly SessionRecord[]): Promise<AppendOutcome[]>;
  /** Releases the journal (the file lock); appending afterwards is refused. Idempotent. */
  close(): Promise<void>;
}

/** How `fisk session ls` and embedders see a stored run without reading it whole. */
export type RunSummary =
  | {
      readonly runId: string;
      readonly model: string;
      /** The last terminal reason, or `open` for a run that is running, crashed or mid-resume. */
      readonly status: TerminalReason | 'open';
      /** When the last record was written. */
      readonly updated: Date;
      readonly prompt: string;
    }
  | {
      readonly runId: string;
      /** A journal that cannot be read back: listed so it can be found and removed, never hidden. */
      readonly status: 'corrupt';
      /** Why it cannot be read, as loading it would say. */
      readonly problem: string;
      readonly updated: Date;
    };

/**
 * Where runs are kept. Run ids are checked by every method (`invalid_run_id`).
 *
 * - `create` refuses an id that exists (`exists`), including one a concurrent creator took first.
 * - `open` refuses an unknown id (`not_found`) and a run another writer holds (`locked`).
 * - `load` reads every record without taking the run, validating each; a torn final record is
 *   dropped, an interior bad one is `corrupt`.
 * - `list` summarises every run, listing one that cannot be read as `corrupt` with the reason.
 * - `remove` deletes whatever is stored under the id without reading it, so a corrupt journal or
 *   records orphaned by a lost meta record can be removed too. It answers whether anything was
 *   there; removing an unknown id is not an error.
 */
export interface SessionStore {
  /** The registered backend name (`file`, `jetstream`, `memory`). */
  readonly backend: string;
  /** Where runs live, for messages (`/home/x/.local/state/fisk-ai/runs`, `stream SESSIONS`). */
  readonly location: string;
  /**
   * True when `create` itself shuts out every other writer of the run until the journal closes
   * (the file store's lock), so a new run's first record can be refused only by the store failing,
   * never because another writer has the run. A run then goes on while that record is made durable
   * (see `startCheckpoint`). Unset, the first record is the claim (a JetStream journal's first
   * publish) and the run waits for it.
   */
  readonly exclusiveCreate?: boolean;
  create(runId: string): Promise<Journal>;
  open(runId: string): Promise<Journal>;
  load(runId: string): Promise<readonly StoredRecord[]>;
  list(): Promise<readonly RunSummary[]>;
  remove(runId: string): Promise<boolean>;
  /**
   * Lets go of what the store keeps ready between calls (the file store's spare files). A store
   * need not be closed, and one that is still works: it makes what it needs as it goes.
   */
  close?(): Promise<void>;
}

/** Appends `body` as the journal's next record (`lastSeq() + 1`). */
export async function appendNext(journal: Journal, body: RecordBody): Promise<SessionRecord> {
  const record = { seq: journal.lastSeq() + 1, ...body } as SessionRecord;
  await journal.append(record);
  return record;
}

/** Appends `bodies` as the journal's next records (from `lastSeq() + 1`), as one durable step. */
export async function appendAllNext(journal: Journal, bodies: readonly RecordBody[]): Promise<SessionRecord[]> {
  const first = journal.lastSeq() + 1;
  const records = bodies.map((body, i) => ({ seq: first + i, ...body }));
  await journal.appendAll(records);
  return records;
}
