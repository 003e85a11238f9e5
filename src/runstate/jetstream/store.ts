/**
 * The JetStream session backend. It binds a stream the operator created (and never creates
 * one), stores each record as its own message on `<prefix>.<run>._meta` (sequence 1) or
 * `<prefix>.<run>.<seq>`, with the same body as a file journal line, so a run moves between
 * backends unchanged.
 *
 * The stream keeps one message per subject and discards new ones, so exactly one writer can store
 * a given sequence; how a journal appends is in `journal.ts`.
 */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { JetStreamClient, JetStreamManager, StoredMsg } from '@nats-io/jetstream';
import type { NatsConn } from '../../conns/nats-connect.js';
import { RunStateError, isRunStateError } from '../errors.js';
import type { StoredRecord } from '../records.js';
import { checkRunId } from '../run-id.js';
import type { Journal, RunSummary, SessionStore } from '../store.js';
import { statusOf, summarize } from '../summary.js';
import { suggestedReplicas } from '../../util/replicas.js';
import { JetStreamJournal } from './journal.js';
import { RunKeyspace, STREAM_NOT_FOUND, apiCode, unavailable } from './keyspace.js';
import { checkStream, streamAddCommand } from './stream-check.js';

/**
 * Binds `stream` on a borrowed connection and checks it can hold journals. Refuses a missing
 * stream or a wrong one (RunStateError `config`, naming `harness.sessions.options.stream` and the
 * `nats stream add` command), and an unreachable JetStream (`unavailable`).
 */
export function jetstreamSessionStore(conn: NatsConn, stream: string): Promise<SessionStore> {
  return JetStreamSessionStore.bind(conn, stream);
}

/** Runs kept in a JetStream stream, one message per record. */
export class JetStreamSessionStore implements SessionStore {
  readonly backend = 'jetstream';
  readonly location: string;
  readonly #keys: RunKeyspace;
  readonly #jsm: JetStreamManager;
  readonly #js: JetStreamClient;

  private constructor(keys: RunKeyspace, jsm: JetStreamManager, js: JetStreamClient) {
    this.#keys = keys;
    this.#jsm = jsm;
    this.#js = js;
    this.location = `stream ${keys.stream}`;
  }

  /** See `jetstreamSessionStore`. */
  static async bind(conn: NatsConn, stream: string): Promise<JetStreamSessionStore> {
    let jsm: JetStreamManager;
    let prefix: string;
    try {
      jsm = await jetstreamManager(conn.connection, conn.jetstream);
      const info = await jsm.streams.info(stream).catch((err: unknown) => {
        if (apiCode(err) === STREAM_NOT_FOUND) {
          throw new RunStateError(
            'config',
            `harness.sessions.options.stream: stream ${JSON.stringify(stream)} does not exist; fisk-ai never creates it. Create it with: ${streamAddCommand(stream, 'fisk.sessions', suggestedReplicas(conn.connection), conn.context.name)}`,
          );
        }
        throw err;
      });
      prefix = checkStream(stream, info.config, suggestedReplicas(conn.connection), conn.context.name);
    } catch (err) {
      throw unavailable(
        `cannot bind JetStream stream ${JSON.stringify(stream)} via NATS context ${JSON.stringify(conn.context.name)}`,
        err,
      );
    }
    return new JetStreamSessionStore(new RunKeyspace(jsm, stream, prefix), jsm, jetstream(conn.connection, conn.jetstream));
  }

  create(runId: string): Promise<Journal> {
    return this.#guard(`cannot create run ${JSON.stringify(runId)}`, async () => {
      checkRunId(runId);
      if ((await this.#keys.lastMsg(this.#keys.runSubjects(runId))) !== null)
        throw new RunStateError('exists', `run already exists: ${JSON.stringify(runId)}`);
      return new JetStreamJournal(this.#keys, this.#js, runId, 0);
    });
  }

  open(runId: string): Promise<Journal> {
    return this.#guard(`cannot open run ${JSON.stringify(runId)}`, async () => {
      checkRunId(runId);
      const last = await this.#requireRun(runId);
      return new JetStreamJournal(this.#keys, this.#js, runId, this.#keys.seqOf(last.subject));
    });
  }

  load(runId: string): Promise<readonly StoredRecord[]> {
    return this.#guard(`cannot read run ${JSON.stringify(runId)}`, async () => {
      checkRunId(runId);
      await this.#requireRun(runId);
      const stream = this.#keys.stream;
      const info = await this.#jsm.streams.info(stream, { subjects_filter: this.#keys.runSubjects(runId) });
      const expected = Object.keys(info.state.subjects ?? {}).length;
      const consumer = await this.#js.consumers.get(stream, { filter_subjects: this.#keys.runSubjects(runId) });
      const records: StoredRecord[] = [];
      try {
        while (records.length < expected) {
          const batch = await consumer.fetch({ max_messages: Math.min(expected - records.length, 1000), expires: 5000 });
          let got = 0;
          for await (const m of batch) {
            got++;
            records.push(this.#keys.decodeAt(m));
            if (records.length >= expected) break;
          }
          if (got === 0)
            throw new RunStateError(
              'unavailable',
              `run ${JSON.stringify(runId)}: stream stopped delivering after ${records.length} of ${expected} records`,
            );
        }
      } finally {
        await consumer.delete().catch(() => undefined);
      }
      records.sort((a, b) => a.seq - b.seq);
      return records;
    });
  }

  list(): Promise<readonly RunSummary[]> {
    return this.#guard(`cannot list runs in stream ${JSON.stringify(this.#keys.stream)}`, async () => {
      const info = await this.#jsm.streams.info(this.#keys.stream, { subjects_filter: this.#keys.metaSubjects() });
      const out: RunSummary[] = [];
      for (const subject of Object.keys(info.state.subjects ?? {})) {
        const summary = await this.#summary(this.#keys.runOfMeta(subject), subject);
        if (summary !== undefined) out.push(summary);
      }
      out.sort((a, b) => b.updated.getTime() - a.updated.getTime());
      return out;
    });
  }

  remove(runId: string): Promise<boolean> {
    return this.#guard(`cannot remove run ${JSON.stringify(runId)}`, async () => {
      checkRunId(runId);
      // every subject of the run, meta or not: records orphaned by a lost meta record go too
      const purged = await this.#jsm.streams.purge(this.#keys.stream, { filter: this.#keys.runSubjects(runId) });
      return purged.purged > 0;
    });
  }

  /** A run's summary from its meta record and its tail, walking back over inert records. */
  async #summary(runId: string, metaSubject: string): Promise<RunSummary | undefined> {
    let updated = new Date(0);
    try {
      const meta = await this.#keys.lastMsg(metaSubject);
      const last = await this.#keys.lastMsg(this.#keys.runSubjects(runId));
      if (meta === null || last === null) return undefined;
      updated = last.time;
      const tail: StoredRecord[] = [this.#keys.decodeAt(last)];
      let status = statusOf([this.#keys.decodeAt(meta), ...tail]);
      for (let seq = this.#keys.seqOf(last.subject) - 1; seq > 1 && tail.length < 8; seq--) {
        const earliest = tail[0] as StoredRecord;
        if ('terminal' in earliest || 'assistant' in earliest || 'user' in earliest) break;
        const prev = await this.#keys.lastMsg(this.#keys.subject(runId, seq));
        if (prev === null) break;
        tail.unshift(this.#keys.decodeAt(prev));
        status = statusOf([this.#keys.decodeAt(meta), ...tail]);
      }
      return { ...summarize(runId, [this.#keys.decodeAt(meta)], last.time), status };
    } catch (err) {
      // listed, not hidden: the operator must be able to find it and remove it
      if (isRunStateError(err, 'corrupt') || isRunStateError(err, 'schema') || isRunStateError(err, 'version')) {
        return { runId, status: 'corrupt', problem: err.message, updated };
      }
      return undefined;
    }
  }

  async #requireRun(runId: string): Promise<StoredMsg> {
    const last = await this.#keys.lastMsg(this.#keys.runSubjects(runId));
    if (last === null || (await this.#keys.lastMsg(this.#keys.subject(runId, 1))) === null) {
      throw new RunStateError('not_found', `run not found: ${JSON.stringify(runId)} in stream ${JSON.stringify(this.#keys.stream)}`);
    }
    return last;
  }

  async #guard<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw unavailable(what, err);
    }
  }
}
