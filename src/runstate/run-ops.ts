/**
 * The few calls a runner needs, each built on the store contract: start a journaled run, load
 * and fold one, claim one for a resume, answer a deferred call and decide a gated one.
 */
import { hostname } from 'node:os';
import type { ToolResultBlock } from '../llm/types.js';
import { checkAnswer, checkDecision } from './answer.js';
import { approvalBody, claimBody, metaBody, toolResultBody } from './builders.js';
import { RunStateError } from './errors.js';
import { fold } from './fold.js';
import type { FoldedRun } from './fold.js';
import type { ApprovalDecisionValue, Fingerprint } from './records.js';
import { newRunId } from './run-id.js';
import { appendNext } from './store.js';
import type { Journal, SessionStore } from './store.js';

/** Who this process is, for a claim record: diagnostic only. */
export function claimant(): string {
  return `${hostname()} pid ${process.pid}`;
}

/**
 * Creates a run and writes its meta record. `runId` defaults to a new time-sortable id. The
 * journal is returned open (held) for the run to write through; the caller closes it.
 */
export async function startRun(
  store: SessionStore,
  m: {
    readonly runId?: string;
    readonly fingerprint: Fingerprint;
    readonly prompt: string;
    readonly interactive?: boolean;
    readonly created?: Date;
  },
): Promise<Journal> {
  const runId = m.runId ?? newRunId();
  const journal = await store.create(runId);
  try {
    await appendNext(
      journal,
      metaBody({
        runId,
        created: m.created ?? new Date(),
        fingerprint: m.fingerprint,
        prompt: m.prompt,
        ...(m.interactive === true ? { interactive: true } : {}),
      }),
    );
    return journal;
  } catch (err) {
    await journal.close();
    throw err;
  }
}

/**
 * Like `startRun`, but for a store whose `create` already shuts out every other writer
 * (`exclusiveCreate`: the file store's lock) it returns once the meta record is handed to the
 * store rather than once it is durable, so the run's first model call goes out while the record is
 * synced (a file journal's fsync and directory sync). The journal returned waits for that record
 * before anything else: every append, `isHeld` and `close` goes after it, and when it failed each
 * append throws its error (`isHeld` answers false). So nothing that depends on the run being
 * stored, a tool's effect, an answer shown, a result stored, another record, happens before it is;
 * a crash meanwhile loses only a run that had done nothing yet. Its `lastSeq` counts the meta
 * record from the start. For any other store the first record is the claim on the run (a
 * JetStream journal's first publish, refused when another writer has the run), and this waits for
 * it as `startRun` does, so a run another worker took is refused before it starts.
 */
export async function beginRun(
  store: SessionStore,
  m: { readonly runId?: string; readonly fingerprint: Fingerprint; readonly prompt: string; readonly created?: Date },
): Promise<Journal> {
  if (store.exclusiveCreate !== true) return startRun(store, m);
  const runId = m.runId ?? newRunId();
  const journal = await store.create(runId);
  const metaSeq = journal.lastSeq() + 1;
  const meta = appendNext(journal, metaBody({ runId, created: m.created ?? new Date(), fingerprint: m.fingerprint, prompt: m.prompt }));
  return afterFirst(journal, meta, metaSeq);
}

/** `journal`, every use of which waits for `first` (a record appended as `firstSeq`) to be stored. */
function afterFirst(journal: Journal, first: Promise<unknown>, firstSeq: number): Journal {
  // handled here, so a run that ends before it appends again leaves no unhandled rejection
  first.catch(() => undefined);
  const ready = async (): Promise<void> => {
    await first;
  };
  return {
    runId: journal.runId,
    lastSeq: () => Math.max(journal.lastSeq(), firstSeq),
    async isHeld() {
      try {
        await ready();
      } catch {
        return false;
      }
      return journal.isHeld();
    },
    async append(record) {
      await ready();
      return journal.append(record);
    },
    async appendAll(records) {
      await ready();
      return journal.appendAll(records);
    },
    async close() {
      await first.catch(() => undefined);
      return journal.close();
    },
  };
}

/** Reads and folds a run without taking it. */
export async function loadRun(store: SessionStore, runId: string): Promise<FoldedRun> {
  const run = fold(await store.load(runId));
  if (run.runId !== runId) {
    throw new RunStateError(
      'corrupt',
      `corrupt record sequence: run ${JSON.stringify(runId)} holds the meta record of ${JSON.stringify(run.runId)}`,
    );
  }
  return run;
}

/**
 * Takes a run for a resume: opens its journal, appends a claim before anything else, then reads
 * and folds it (after the claim, so the runner's next sequence is above the claim's). A claim that
 * fails is fatal; the journal is closed and the error thrown, since resuming without it would
 * leave another worker free to append.
 */
export async function claimRun(store: SessionStore, runId: string, by: string = claimant()): Promise<{ journal: Journal; run: FoldedRun }> {
  const journal = await store.open(runId);
  try {
    await appendNext(journal, claimBody(by));
    const run = await loadRun(store, runId);
    if (run.lastSeq !== journal.lastSeq()) {
      throw new RunStateError('locked', `run ${JSON.stringify(runId)} moved on while it was being claimed; another writer holds it`);
    }
    return { journal, run };
  } catch (err) {
    await journal.close();
    throw err;
  }
}

/**
 * Supplies the result of a deferred call. Loads and validates first (a refusal costs no lock),
 * then writes one ordinary tool result record and nothing else, so the next resume is an ordinary
 * resume. Throws `RunStateError` `answer` for an unknown, undeferred or already answered call.
 */
export async function answerDeferred(
  store: SessionStore,
  runId: string,
  callId: string,
  content: string,
  opts: { readonly isError?: boolean } = {},
): Promise<void> {
  checkAnswer(await loadRun(store, runId), callId);
  const journal = await store.open(runId);
  try {
    // re-check under the lock: a second answer may have landed between load and open
    checkAnswer(await loadRun(store, runId), callId);
    const result: ToolResultBlock =
      opts.isError === true
        ? { type: 'tool_result', toolUseId: callId, content, isError: true }
        : { type: 'tool_result', toolUseId: callId, content };
    await appendNext(journal, toolResultBody(result));
  } finally {
    await journal.close();
  }
}

/**
 * Records an operator's approval or decline of a call the stopped run has not run yet; the resumed
 * run's gate takes it instead of asking, and a decline's `reason` reaches the model with the
 * refusal. Validated before the lock and again under it, like `answerDeferred`.
 */
export async function answerApproval(
  store: SessionStore,
  runId: string,
  callId: string,
  decision: ApprovalDecisionValue,
  opts: { readonly reason?: string; readonly by?: string } = {},
): Promise<void> {
  if (decision === 'approve' && opts.reason !== undefined) throw new RunStateError('answer', 'a reason goes only with a decline');
  checkDecision(await loadRun(store, runId), callId);
  const journal = await store.open(runId);
  try {
    checkDecision(await loadRun(store, runId), callId);
    await appendNext(journal, approvalBody(callId, decision, opts.by ?? claimant(), opts.reason));
  } finally {
    await journal.close();
  }
}
