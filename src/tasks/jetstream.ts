/**
 * Tasks in a JetStream KV bucket the operator created, so workers on different machines share one
 * store. One key per task. Recording a task is a create (refused when the key exists); storing its
 * result is an update at the revision read, so of two workers completing one task the second is
 * refused and the first result stands.
 */
import { JetStreamApiCodes, JetStreamApiError, jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { suggestedReplicas } from '../util/replicas.js';
import { TaskError } from './errors.js';
import { checkTaskId, decodeTaskRecord, encodeTaskRecord, finishedTask, isFinalState, progressedTask, reopenedTask } from './record.js';
import type { TaskRecord } from './record.js';
import type { TaskStore } from './store.js';
import { newestFirst } from './store.js';

/** How long binding the bucket may take before startup fails rather than hangs. */
const BIND_TIMEOUT_MS = 10_000;

/** The command that creates a suitable bucket. */
export function kvAddCommand(bucket: string, context?: string, replicas = 1): string {
  return `nats kv add ${bucket} --history 1 --storage file --replicas ${replicas}${context === undefined ? '' : ` --context ${context}`}`;
}

function wrongRevision(err: unknown): boolean {
  if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamWrongLastSequence) return true;
  const text = err instanceof Error ? err.message : String(err);
  return /wrong last sequence|key exists/iu.test(text);
}

async function bind(
  conn: NatsConnection,
  bucket: string,
  context: string | undefined,
  jsOpts: { domain?: string; apiPrefix?: string },
): Promise<KV> {
  const js = jetstream(conn, { ...jsOpts, timeout: BIND_TIMEOUT_MS });
  try {
    const kv = await new Kvm(js).open(bucket);
    const status = await kv.status();
    if (status.ttl > 0) {
      throw new TaskError(
        'config',
        `tasks.options.bucket: KV bucket ${JSON.stringify(bucket)} has a TTL (${status.ttl} ms), so task results would silently expire; use a bucket without a TTL: ${kvAddCommand(`${bucket}_NEW`, context, suggestedReplicas(conn))}`,
      );
    }
    return kv;
  } catch (err) {
    if (err instanceof TaskError) throw err;
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) {
      throw new TaskError(
        'config',
        `tasks.options.bucket: KV bucket ${JSON.stringify(bucket)} does not exist; fisk-ai never creates it. Create it with: ${kvAddCommand(bucket, context, suggestedReplicas(conn))}`,
        { cause: err },
      );
    }
    throw new TaskError('unavailable', `cannot bind the task bucket ${JSON.stringify(bucket)}: ${(err as Error).message}`, { cause: err });
  }
}

/** Binds the operator's bucket (never creates it) and returns the store over it. */
export async function jetstreamTaskStore(options: {
  readonly nats: NatsConnection;
  readonly bucket: string;
  readonly context?: string;
  readonly jetstream?: { domain?: string; apiPrefix?: string };
}): Promise<TaskStore> {
  const { bucket } = options;
  const kv = await bind(options.nats, bucket, options.context, options.jetstream ?? {});
  const where = (id: string): string => `task ${id} in KV bucket ${bucket}`;
  const entry = async (id: string): Promise<{ record: TaskRecord; revision: number } | undefined> => {
    checkTaskId(id);
    let e;
    try {
      e = await kv.get(id);
    } catch (err) {
      throw new TaskError('unavailable', `cannot read ${where(id)}: ${(err as Error).message}`, { cause: err });
    }
    if (e === null || e.operation !== 'PUT') return undefined;
    const record = decodeTaskRecord(e.string(), where(id));
    if (record.id !== id) throw new TaskError('schema', `${where(id)}: holds task ${JSON.stringify(record.id)}`);
    return { record, revision: e.revision };
  };
  return {
    backend: 'jetstream',
    location: `KV bucket ${bucket}`,
    async ask(record) {
      checkTaskId(record.id);
      const text = encodeTaskRecord(record, where(record.id));
      try {
        await kv.create(record.id, text);
        return record;
      } catch (err) {
        if (!wrongRevision(err))
          throw new TaskError('unavailable', `cannot record ${where(record.id)}: ${(err as Error).message}`, { cause: err });
      }
      const held = await entry(record.id);
      if (held === undefined) throw new TaskError('unavailable', `${where(record.id)}: the key was taken but cannot be read back`);
      return held.record;
    },
    async get(id) {
      return (await entry(id))?.record;
    },
    async complete(id, result) {
      const current = await entry(id);
      if (current === undefined) throw new TaskError('not_found', `no ${where(id)}`);
      if (isFinalState(current.record.state))
        throw new TaskError(
          'completed',
          `task ${JSON.stringify(id)} already has its result (${current.record.state}); the first result stands`,
        );
      const done = finishedTask(current.record, result);
      try {
        await kv.update(id, encodeTaskRecord(done, where(id)), current.revision);
        return done;
      } catch (err) {
        if (!wrongRevision(err))
          throw new TaskError('unavailable', `cannot store the result of ${where(id)}: ${(err as Error).message}`, { cause: err });
      }
      const winner = await entry(id);
      throw new TaskError(
        'completed',
        `task ${JSON.stringify(id)} already has its result (${winner?.record.state ?? 'unknown'}); the first result stands`,
      );
    },
    async progress(id, progress) {
      // another worker's write in between is read again and applied on top (a result wins)
      for (let tries = 0; tries < 5; tries++) {
        const current = await entry(id);
        if (current === undefined) throw new TaskError('not_found', `no ${where(id)}`);
        const next = progressedTask(current.record, progress);
        if (next === current.record) return current.record;
        try {
          await kv.update(id, encodeTaskRecord(next, where(id)), current.revision);
          return next;
        } catch (err) {
          if (!wrongRevision(err))
            throw new TaskError('unavailable', `cannot record the progress of ${where(id)}: ${(err as Error).message}`, { cause: err });
        }
      }
      throw new TaskError('unavailable', `${where(id)}: changed under every attempt to record its progress`);
    },
    async reopen(id) {
      const current = await entry(id);
      if (current === undefined) throw new TaskError('not_found', `no ${where(id)}`);
      if (current.record.state !== 'failed' && current.record.state !== 'dead')
        throw new TaskError('state', `task ${JSON.stringify(id)} is ${current.record.state}; only a failed or dead task can be retried`);
      const next = reopenedTask(current.record);
      try {
        await kv.update(id, encodeTaskRecord(next, where(id)), current.revision);
        return next;
      } catch (err) {
        if (!wrongRevision(err))
          throw new TaskError('unavailable', `cannot reopen ${where(id)}: ${(err as Error).message}`, { cause: err });
      }
      throw new TaskError(
        'state',
        `task ${JSON.stringify(id)} changed while it was being reopened; look at it again with fisk task show ${id}`,
      );
    },
    async remove(id) {
      const current = await entry(id);
      if (current === undefined) return false;
      try {
        await kv.purge(id);
        return true;
      } catch (err) {
        throw new TaskError('unavailable', `cannot remove ${where(id)}: ${(err as Error).message}`, { cause: err });
      }
    },
    async list() {
      const keys: string[] = [];
      try {
        for await (const k of await kv.keys()) keys.push(k);
      } catch (err) {
        throw new TaskError('unavailable', `cannot list KV bucket ${bucket}: ${(err as Error).message}`, { cause: err });
      }
      const out: TaskRecord[] = [];
      for (let i = 0; i < keys.length; i += 64) {
        const got = await Promise.all(keys.slice(i, i + 64).map((k) => entry(k)));
        for (const g of got) if (g !== undefined) out.push(g.record);
      }
      return newestFirst(out);
    },
  };
}
