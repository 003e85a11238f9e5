/**
 * One run's journal in a sessions stream. Every append expects its subject to be empty, so
 * exactly one writer can store a given sequence. A rejected append is explained by reading the
 * subject it targeted: our own message id means our earlier attempt landed and only its ack was
 * lost (adopt it); a meta record means a concurrent creator; anything else means another writer
 * holds the run.
 *
 * Every append after the first also reads the run's meta record, in the same round trip as the
 * publish: a stream that was deleted, purged or recreated under a running run stops the run at
 * its next append, and the record that append stored (it belongs to no run) is deleted again. A
 * publish cannot be made conditional on another subject on the servers this runs against (that
 * header arrived in nats-server 2.11 and is ignored before it), so the check rides beside the
 * publish instead of before it; the record is deleted only when the meta record is gone, never
 * when another writer took the sequence.
 */
import { randomBytes } from 'node:crypto';
import type { JetStreamClient } from '@nats-io/jetstream';
import { checkAppend, gapError, planBatch } from '../check-append.js';
import { RunStateError } from '../errors.js';
import type { SessionRecord } from '../records.js';
import type { AppendOutcome, Journal } from '../store.js';
import { encodeRecord } from '../validate.js';
import { STREAM_NOT_FOUND, apiCode, unavailable } from './keyspace.js';
import type { RunKeyspace } from './keyspace.js';
import { explainRejection } from './rejection.js';

const FENCE_FAILURES = new Set([10071, 10077]); // wrong last sequence; max messages per subject exceeded

/** What the check beside an append found of the run's meta record. */
type MetaState = 'present' | 'gone' | 'no_stream';

export class JetStreamJournal implements Journal {
  readonly runId: string;
  readonly #keys: RunKeyspace;
  readonly #js: JetStreamClient;
  /** Our message ids are `<nonce>-<seq>`: a rejected append that finds ours landed. */
  readonly #nonce = randomBytes(16).toString('hex');
  #lastSeq: number;
  #closed = false;
  #chain: Promise<unknown> = Promise.resolve();

  constructor(keys: RunKeyspace, js: JetStreamClient, runId: string, lastSeq: number) {
    this.#keys = keys;
    this.#js = js;
    this.runId = runId;
    this.#lastSeq = lastSeq;
  }

  lastSeq(): number {
    return this.#lastSeq;
  }

  async isHeld(): Promise<boolean> {
    if (this.#closed) return false;
    try {
      const last = await this.#keys.lastMsg(this.#keys.runSubjects(this.runId));
      return last === null ? this.#lastSeq === 0 : this.#keys.seqOf(last.subject) === this.#lastSeq;
    } catch {
      return false;
    }
  }

  append(record: SessionRecord): Promise<AppendOutcome> {
    const next = this.#chain.then(() => this.#write(record));
    this.#chain = next.catch(() => undefined);
    return next;
  }

  /**
   * The batch is checked whole (validity, gaps) before anything is published, then published one
   * record after another, each acknowledged before the next: a message per subject cannot be
   * fenced as a group, so a batch costs what its appends would.
   */
  appendAll(records: readonly SessionRecord[]): Promise<AppendOutcome[]> {
    const next = this.#chain.then(async () => {
      if (this.#closed) throw new RunStateError('locked', `journal for run ${JSON.stringify(this.runId)} is closed`);
      // encoded here to refuse an invalid record before any of the batch is published
      const plan = planBatch(records, this.#lastSeq, (record) => {
        encodeRecord(record);
        return record;
      });
      for (const record of plan.stored) await this.#write(record);
      return plan.outcomes;
    });
    this.#chain = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#chain;
  }

  get #where(): string {
    return `run ${JSON.stringify(this.runId)} in stream ${JSON.stringify(this.#keys.stream)}`;
  }

  async #write(record: SessionRecord): Promise<AppendOutcome> {
    if (this.#closed) throw new RunStateError('locked', `journal for run ${JSON.stringify(this.runId)} is closed`);
    const body = encodeRecord(record);
    const check = checkAppend(record.seq, this.#lastSeq);
    if (check === 'duplicate') return 'duplicate';
    if (check === 'gap') throw gapError(record.seq, this.#lastSeq);
    const target = this.#keys.subject(this.runId, record.seq);
    const msgID = `${this.#nonce}-${record.seq}`;
    // the meta check and the publish travel together: one round trip, not two
    const meta = record.seq > 1 ? this.#metaState() : Promise.resolve<MetaState>('present');
    const published = this.#js.publish(target, body, { msgID, expect: { lastSubjectSequence: 0 } });
    const [found, ack] = await Promise.allSettled([meta, published]);
    if (found.status === 'rejected') throw unavailable(`cannot append to ${this.#where}`, found.reason);
    if (found.value !== 'present') {
      // what this append stored belongs to no run: it goes, and the run stops
      if (ack.status === 'fulfilled') await this.#keys.removeMessage(ack.value.seq).catch(() => undefined);
      throw this.#lost(found.value);
    }
    if (ack.status === 'rejected') {
      if (!FENCE_FAILURES.has(apiCode(ack.reason) ?? 0)) throw unavailable(`cannot append to ${this.#where}`, ack.reason);
      await this.#explainFence(target, msgID, record.seq);
    }
    this.#lastSeq = record.seq;
    return 'appended';
  }

  /**
   * Before every append after the first: whether the run's meta record is still there. A stream
   * that was deleted, purged or recreated under a running run would otherwise take records nobody
   * can find again; the run stops instead, saying what happened.
   */
  async #metaState(): Promise<MetaState> {
    try {
      return (await this.#keys.lastMsg(this.#keys.subject(this.runId, 1))) === null ? 'gone' : 'present';
    } catch (err) {
      if (apiCode(err) === STREAM_NOT_FOUND) return 'no_stream';
      throw err;
    }
  }

  #lost(state: Exclude<MetaState, 'present'>): RunStateError {
    const run = JSON.stringify(this.runId);
    const stream = JSON.stringify(this.#keys.stream);
    switch (state) {
      case 'no_stream':
        return new RunStateError('unavailable', `cannot append to run ${run}: stream ${stream} no longer exists; the run cannot continue`);
      case 'gone':
        return new RunStateError(
          'not_found',
          `cannot append to run ${run}: its meta record is gone from stream ${stream} (the stream was purged, recreated or edited); the run cannot continue. Remove what is left with: fisk session rm ${this.runId}`,
        );
      default: {
        const never: never = state;
        return new RunStateError('unavailable', `unknown meta state ${String(never)}`);
      }
    }
  }

  /** The target subject was taken: adopt our own earlier attempt, or say who holds it. */
  async #explainFence(target: string, msgID: string, seq: number): Promise<void> {
    const held = await this.#keys.lastMsg(target).catch((e: unknown) => {
      throw unavailable(`cannot read ${target} after a rejected append`, e);
    });
    const verdict = explainRejection(held?.header?.get('Nats-Msg-Id') || undefined, msgID, seq);
    switch (verdict) {
      case 'adopt':
        return; // our own earlier attempt landed and only its ack was lost
      case 'exists':
        throw new RunStateError('exists', `run already exists: ${JSON.stringify(this.runId)} (another writer created it first)`);
      case 'locked':
        throw new RunStateError(
          'locked',
          `run is already locked (another writer holds it): ${JSON.stringify(this.runId)}; inspect it with: nats stream subjects ${this.#keys.stream} '${this.#keys.runSubjects(this.runId)}'`,
        );
      default: {
        const never: never = verdict;
        throw new RunStateError('locked', `unknown rejection ${String(never)}`);
      }
    }
  }
}
