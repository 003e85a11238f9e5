/**
 * The JetStream session backend. It binds a stream the operator created (and never creates
 * one), stores each record as its own message on `<prefix>.<run>._meta` (sequence 1) or
 * `<prefix>.<run>.<seq>`, with the same body as a file journal line, so a run moves between
 * backends unchanged.
 *
 * The stream keeps one message per subject and discards new ones, and every append expects its
 * subject to be empty: exactly one writer can store a given sequence. A rejected append is
 * explained by reading the subject it targeted: our own message id means our earlier attempt
 * landed and only its ack was lost (adopt it); a meta record means a concurrent creator; anything
 * else means another writer holds the run.
 */
import { randomBytes } from 'node:crypto';
import { JetStreamApiError, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { JetStreamClient, JetStreamManager, StoredMsg } from '@nats-io/jetstream';
import type { NatsConn } from '../../conns/nats-connect.js';
import { checkAppend, gapError } from '../check-append.js';
import { RunStateError, isRunStateError } from '../errors.js';
import type { SessionRecord, StoredRecord } from '../records.js';
import { checkRunId } from '../run-id.js';
import type { AppendOutcome, Journal, RunSummary, SessionStore } from '../store.js';
import { statusOf, summarize } from '../summary.js';
import { decodeRecord, encodeRecord } from '../validate.js';
import { explainRejection } from './rejection.js';
import { suggestedReplicas } from '../../util/replicas.js';
import { checkStream, streamAddCommand } from './stream-check.js';

const FENCE_FAILURES = new Set([10071, 10077]); // wrong last sequence; max messages per subject exceeded

function unavailable(what: string, err: unknown): RunStateError {
  if (isRunStateError(err)) return err;
  return new RunStateError('unavailable', `${what}: ${(err as Error).message}`, { cause: err });
}

function apiCode(err: unknown): number | undefined {
  return err instanceof JetStreamApiError ? err.code : undefined;
}

/**
 * Binds `stream` on a borrowed connection and checks it can hold journals. Refuses a missing
 * stream or a wrong one (RunStateError `config`, naming `harness.sessions.options.stream` and the
 * `nats stream add` command), and an unreachable JetStream (`unavailable`).
 */
export async function jetstreamSessionStore(conn: NatsConn, stream: string): Promise<SessionStore> {
  let jsm: JetStreamManager;
  let prefix: string;
  try {
    jsm = await jetstreamManager(conn.connection, conn.jetstream);
    const info = await jsm.streams.info(stream).catch((err: unknown) => {
      if (apiCode(err) === 10059) {
        throw new RunStateError(
          'config',
          `harness.sessions.options.stream: stream ${JSON.stringify(stream)} does not exist; fisk-ai never creates it. Create it with: ${streamAddCommand(stream, 'fisk.sessions', suggestedReplicas(conn.connection), conn.context.name)}`,
        );
      }
      throw err;
    });
    prefix = checkStream(stream, info.config, suggestedReplicas(conn.connection), conn.context.name);
  } catch (err) {
    throw unavailable(`cannot bind JetStream stream ${JSON.stringify(stream)} via NATS context ${JSON.stringify(conn.context.name)}`, err);
  }
  const js: JetStreamClient = jetstream(conn.connection, conn.jetstream);
  const subject = (runId: string, seq: number): string => `${prefix}.${runId}.${seq === 1 ? '_meta' : String(seq)}`;
  const runSubjects = (runId: string): string => `${prefix}.${runId}.>`;
  const seqOf = (subj: string): number => {
    const last = subj.slice(subj.lastIndexOf('.') + 1);
    return last === '_meta' ? 1 : Number(last);
  };
  const lastMsg = async (subj: string): Promise<StoredMsg | null> => {
    try {
      return await jsm.streams.getMessage(stream, { last_by_subj: subj });
    } catch (err) {
      if (apiCode(err) === 10037) return null; // no message found
      throw err;
    }
  };
  const decodeAt = (m: { readonly subject: string; readonly seq: number; readonly data: Uint8Array }): StoredRecord => {
    let record: StoredRecord;
    try {
      record = decodeRecord(new TextDecoder().decode(m.data));
    } catch (err) {
      if (isRunStateError(err, 'version')) throw err;
      throw new RunStateError('corrupt', `corrupt record sequence: ${m.subject} (stream seq ${m.seq}): ${(err as Error).message}`, { cause: err });
    }
    if (record.seq !== seqOf(m.subject)) throw new RunStateError('corrupt', `corrupt record sequence: ${m.subject} holds record seq ${record.seq}`);
    return record;
  };

  /**
   * Before every append after the first: the run's meta record must still be there. A stream that
   * was deleted, purged or recreated under a running run would otherwise take records nobody can
   * find again; the run stops instead, saying what happened.
   */
  const requireMeta = async (runId: string): Promise<void> => {
    let meta: StoredMsg | null;
    try {
      meta = await lastMsg(subject(runId, 1));
    } catch (err) {
      if (apiCode(err) === 10059) {
        throw new RunStateError('unavailable', `cannot append to run ${JSON.stringify(runId)}: stream ${JSON.stringify(stream)} no longer exists; the run cannot continue`);
      }
      throw unavailable(`cannot append to run ${JSON.stringify(runId)} in stream ${JSON.stringify(stream)}`, err);
    }
    if (meta === null) {
      throw new RunStateError(
        'not_found',
        `cannot append to run ${JSON.stringify(runId)}: its meta record is gone from stream ${JSON.stringify(stream)} (the stream was purged, recreated or edited); the run cannot continue. Remove what is left with: fisk session rm ${runId}`,
      );
    }
  };

  const journal = (runId: string, last: number): Journal => {
    const nonce = randomBytes(16).toString('hex');
    let lastSeq = last;
    let closed = false;
    let chain: Promise<unknown> = Promise.resolve();

    const write = async (record: SessionRecord): Promise<AppendOutcome> => {
      if (closed) throw new RunStateError('locked', `journal for run ${JSON.stringify(runId)} is closed`);
      const body = encodeRecord(record);
      const check = checkAppend(record.seq, lastSeq);
      if (check === 'duplicate') return 'duplicate';
      if (check === 'gap') throw gapError(record.seq, lastSeq);
      if (record.seq > 1) await requireMeta(runId);
      const target = subject(runId, record.seq);
      const msgID = `${nonce}-${record.seq}`;
      try {
        await js.publish(target, body, { msgID, expect: { lastSubjectSequence: 0 } });
      } catch (err) {
        if (!FENCE_FAILURES.has(apiCode(err) ?? 0)) throw unavailable(`cannot append to run ${JSON.stringify(runId)} in stream ${JSON.stringify(stream)}`, err);
        const held = await lastMsg(target).catch((e: unknown) => {
          throw unavailable(`cannot read ${target} after a rejected append`, e);
        });
        const verdict = explainRejection(held?.header?.get('Nats-Msg-Id') || undefined, msgID, record.seq);
        switch (verdict) {
          case 'adopt':
            break; // our own earlier attempt landed and only its ack was lost
          case 'exists':
            throw new RunStateError('exists', `run already exists: ${JSON.stringify(runId)} (another writer created it first)`);
          case 'locked':
            throw new RunStateError(
              'locked',
              `run is already locked (another writer holds it): ${JSON.stringify(runId)}; inspect it with: nats stream subjects ${stream} '${runSubjects(runId)}'`,
            );
          default: {
            const never: never = verdict;
            throw new RunStateError('locked', `unknown rejection ${String(never)}`);
          }
        }
      }
      lastSeq = record.seq;
      return 'appended';
    };

    return {
      runId,
      lastSeq: () => lastSeq,
      async isHeld(): Promise<boolean> {
        if (closed) return false;
        try {
          const last = await lastMsg(runSubjects(runId));
          return last === null ? lastSeq === 0 : seqOf(last.subject) === lastSeq;
        } catch {
          return false;
        }
      },
      append(record: SessionRecord): Promise<AppendOutcome> {
        const next = chain.then(() => write(record));
        chain = next.catch(() => undefined);
        return next;
      },
      async close(): Promise<void> {
        closed = true;
        await chain;
      },
    };
  };

  const requireRun = async (runId: string): Promise<StoredMsg> => {
    const last = await lastMsg(runSubjects(runId));
    if (last === null || (await lastMsg(subject(runId, 1))) === null) {
      throw new RunStateError('not_found', `run not found: ${JSON.stringify(runId)} in stream ${JSON.stringify(stream)}`);
    }
    return last;
  };

  const guard = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw unavailable(what, err);
    }
  };

  return {
    backend: 'jetstream',
    location: `stream ${stream}`,

    create: (runId) =>
      guard(`cannot create run ${JSON.stringify(runId)}`, async () => {
        checkRunId(runId);
        if ((await lastMsg(runSubjects(runId))) !== null) throw new RunStateError('exists', `run already exists: ${JSON.stringify(runId)}`);
        return journal(runId, 0);
      }),

    open: (runId) =>
      guard(`cannot open run ${JSON.stringify(runId)}`, async () => {
        checkRunId(runId);
        const last = await requireRun(runId);
        return journal(runId, seqOf(last.subject));
      }),

    load: (runId) =>
      guard(`cannot read run ${JSON.stringify(runId)}`, async () => {
        checkRunId(runId);
        await requireRun(runId);
        const info = await jsm.streams.info(stream, { subjects_filter: runSubjects(runId) });
        const expected = Object.keys(info.state.subjects ?? {}).length;
        const consumer = await js.consumers.get(stream, { filter_subjects: runSubjects(runId) });
        const records: StoredRecord[] = [];
        try {
          while (records.length < expected) {
            const batch = await consumer.fetch({ max_messages: Math.min(expected - records.length, 1000), expires: 5000 });
            let got = 0;
            for await (const m of batch) {
              got++;
              records.push(decodeAt(m));
              if (records.length >= expected) break;
            }
            if (got === 0) throw new RunStateError('unavailable', `run ${JSON.stringify(runId)}: stream stopped delivering after ${records.length} of ${expected} records`);
          }
        } finally {
          await consumer.delete().catch(() => undefined);
        }
        records.sort((a, b) => a.seq - b.seq);
        return records;
      }),

    list: () =>
      guard(`cannot list runs in stream ${JSON.stringify(stream)}`, async () => {
        const info = await jsm.streams.info(stream, { subjects_filter: `${prefix}.*._meta` });
        const out: RunSummary[] = [];
        for (const subj of Object.keys(info.state.subjects ?? {})) {
          const runId = subj.slice(prefix.length + 1, -'._meta'.length);
          let updated = new Date(0);
          try {
            const meta = await lastMsg(subj);
            const last = await lastMsg(runSubjects(runId));
            if (meta === null || last === null) continue;
            updated = last.time;
            // a summary from the meta record and the tail, walking back over inert records
            const tail: StoredRecord[] = [decodeAt(last)];
            let status = statusOf([decodeAt(meta), ...tail]);
            for (let seq = seqOf(last.subject) - 1; seq > 1 && tail.length < 8; seq--) {
              const t = tail[0] as StoredRecord;
              if ('terminal' in t || 'assistant' in t || 'user' in t) break;
              const prev = await lastMsg(subject(runId, seq));
              if (prev === null) break;
              tail.unshift(decodeAt(prev));
              status = statusOf([decodeAt(meta), ...tail]);
            }
            const summary = summarize(runId, [decodeAt(meta)], last.time);
            out.push({ ...summary, status });
          } catch (err) {
            // listed, not hidden: the operator must be able to find it and remove it
            if (isRunStateError(err, 'corrupt') || isRunStateError(err, 'schema') || isRunStateError(err, 'version')) {
              out.push({ runId, status: 'corrupt', problem: err.message, updated });
            }
          }
        }
        out.sort((a, b) => b.updated.getTime() - a.updated.getTime());
        return out;
      }),

    remove: (runId) =>
      guard(`cannot remove run ${JSON.stringify(runId)}`, async () => {
        checkRunId(runId);
        // every subject of the run, meta or not: records orphaned by a lost meta record go too
        const purged = await jsm.streams.purge(stream, { filter: runSubjects(runId) });
        return purged.purged > 0;
      }),
  };
}
