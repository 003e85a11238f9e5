/**
 * One run's journal in a sessions stream. Every append expects its subject to be empty, so
 * exactly one writer can store a given sequence. A rejected append is explained by reading the
 * subject it targeted: our own message id means our earlier attempt landed and only its ack was
 * lost (adopt it); a meta record means a concurrent creator; anything else means another writer
 * holds the run.
 */
import { randomBytes } from 'node:crypto';
import type { JetStreamClient, StoredMsg } from '@nats-io/jetstream';
import { checkAppend, gapError } from '../check-append.js';
import { RunStateError } from '../errors.js';
import type { SessionRecord } from '../records.js';
import type { AppendOutcome, Journal } from '../store.js';
import { encodeRecord } from '../validate.js';
import { STREAM_NOT_FOUND, apiCode, unavailable } from './keyspace.js';
import type { RunKeyspace } from './keyspace.js';
import { explainRejection } from './rejection.js';

const FENCE_FAILURES = new Set([10071, 10077]); // wrong last sequence; max messages per subject exceeded

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
    if (record.seq > 1) await this.#requireMeta();
    const target = this.#keys.subject(this.runId, record.seq);
    const msgID = `${this.#nonce}-${record.seq}`;
    try {
      await this.#js.publish(target, body, { msgID, expect: { lastSubjectSequence: 0 } });
    } catch (err) {
      if (!FENCE_FAILURES.has(apiCode(err) ?? 0)) throw unavailable(`cannot append to ${this.#where}`, err);
      await this.#explainFence(target, msgID, record.seq);
    }
    this.#lastSeq = record.seq;
    return 'appended';
  }

  /**
   * Before every append after the first: the run's meta record must still be there. A stream that
   * was deleted, purged or recreated under a running run would otherwise take records nobody can
   * find again; the run stops instead, saying what happened.
   */
  async #requireMeta(): Promise<void> {
    let meta: StoredMsg | null;
    try {
      meta = await this.#keys.lastMsg(this.#keys.subject(this.runId, 1));
    } catch (err) {
      if (apiCode(err) === STREAM_NOT_FOUND) {
        throw new RunStateError('unavailable', `cannot append to run ${JSON.stringify(this.runId)}: stream ${JSON.stringify(this.#keys.stream)} no longer exists; the run cannot continue`);
      }
      throw unavailable(`cannot append to ${this.#where}`, err);
    }
    if (meta === null) {
      throw new RunStateError(
        'not_found',
        `cannot append to run ${JSON.stringify(this.runId)}: its meta record is gone from stream ${JSON.stringify(this.#keys.stream)} (the stream was purged, recreated or edited); the run cannot continue. Remove what is left with: fisk session rm ${this.runId}`,
      );
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
