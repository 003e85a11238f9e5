/**
 * Where a run's records live in a sessions stream, and how one is read back: the meta record on
 * `<prefix>.<run>._meta` (sequence 1), every later record on `<prefix>.<run>.<seq>`.
 */
import { JetStreamApiError } from '@nats-io/jetstream';
import type { JetStreamManager, StoredMsg } from '@nats-io/jetstream';
import { RunStateError, isRunStateError } from '../errors.js';
import type { StoredRecord } from '../records.js';
import { decodeRecord } from '../validate.js';

/** JetStream's code for a stream that does not exist. */
export const STREAM_NOT_FOUND = 10059;
/** JetStream's code for a message that is not there. */
const NO_MESSAGE = 10037;

/** The JetStream API error code of a failure, if it is one. */
export function apiCode(err: unknown): number | undefined {
  return err instanceof JetStreamApiError ? err.code : undefined;
}

/** A failure of the stream or the connection, as a RunStateError `unavailable` saying what failed. */
export function unavailable(what: string, err: unknown): RunStateError {
  if (isRunStateError(err)) return err;
  return new RunStateError('unavailable', `${what}: ${(err as Error).message}`, { cause: err });
}

/** A message as far as decoding needs it. */
export interface RecordMessage {
  readonly subject: string;
  readonly seq: number;
  readonly data: Uint8Array;
}

/** The subjects of the runs in one stream, and reads of single messages from it. */
export class RunKeyspace {
  readonly stream: string;
  readonly #prefix: string;
  readonly #jsm: JetStreamManager;

  constructor(jsm: JetStreamManager, stream: string, prefix: string) {
    this.#jsm = jsm;
    this.stream = stream;
    this.#prefix = prefix;
  }

  /** The subject of a run's record `seq`. */
  subject(runId: string, seq: number): string {
    return `${this.#prefix}.${runId}.${seq === 1 ? '_meta' : String(seq)}`;
  }

  /** Every subject of a run. */
  runSubjects(runId: string): string {
    return `${this.#prefix}.${runId}.>`;
  }

  /** Every run's meta subject. */
  metaSubjects(): string {
    return `${this.#prefix}.*._meta`;
  }

  /** The run a meta subject belongs to. */
  runOfMeta(subject: string): string {
    return subject.slice(this.#prefix.length + 1, -'._meta'.length);
  }

  /** The record sequence a subject holds. */
  seqOf(subject: string): number {
    const last = subject.slice(subject.lastIndexOf('.') + 1);
    return last === '_meta' ? 1 : Number(last);
  }

  /** The last message on a subject (or a filter), or null when there is none. */
  async lastMsg(subject: string): Promise<StoredMsg | null> {
    try {
      return await this.#jsm.streams.getMessage(this.stream, { last_by_subj: subject });
    } catch (err) {
      if (apiCode(err) === NO_MESSAGE) return null;
      throw err;
    }
  }

  /** Removes one message by its stream sequence; false when it was not there. */
  removeMessage(streamSeq: number): Promise<boolean> {
    return this.#jsm.streams.deleteMessage(this.stream, streamSeq, false);
  }

  /** Decodes a stored message, refusing one whose record does not belong on its subject (`corrupt`). */
  decodeAt(message: RecordMessage): StoredRecord {
    let record: StoredRecord;
    try {
      record = decodeRecord(new TextDecoder().decode(message.data));
    } catch (err) {
      if (isRunStateError(err, 'version')) throw err;
      throw new RunStateError(
        'corrupt',
        `corrupt record sequence: ${message.subject} (stream seq ${message.seq}): ${(err as Error).message}`,
        { cause: err },
      );
    }
    if (record.seq !== this.seqOf(message.subject))
      throw new RunStateError('corrupt', `corrupt record sequence: ${message.subject} holds record seq ${record.seq}`);
    return record;
  }
}
