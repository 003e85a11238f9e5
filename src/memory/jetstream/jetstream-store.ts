import { JetStreamApiCodes, JetStreamApiError, jetstream } from '@nats-io/jetstream';
import type { JetStreamClient } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { KV, KvEntry } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { MemoryError } from '../errors.js';
import { isTransientNatsError } from '../../conns/transient.js';
import { MAX_ENTRY_BYTES } from '../limits.js';
import { parseEntry, serializeEntry } from '../serialize.js';
import type { Scope } from '../scope.js';
import type { CallOptions, MemoryEntry, MemoryItem, Store, StoreInfo } from '../store.js';
import { checkCapacity, isValidKey, validateKey, validateWrite } from '../validate.js';
import { JETSTREAM_BACKEND } from './name.js';
import { suggestedReplicas } from '../../util/replicas.js';

export { JETSTREAM_BACKEND };

/** How long binding the bucket may take before the run fails at start rather than hanging. */
export const BIND_TIMEOUT_MS = 10_000;

/** What the JetStream backend needs. */
export interface JetStreamStoreOptions {
  /** A borrowed connection; the store never closes it. */
  readonly nats: NatsConnection;
  /** An existing KV bucket. */
  readonly bucket: string;
  /** Keys are stored as `<prefix>.<key>`; `""` is a flat keyspace. */
  readonly prefix: string;
  /** Enforce read-before-update with revision-checked updates (default true). */
  readonly requireReadBeforeUpdate?: boolean;
  /** The NATS context name, only to make error messages copy-pasteable. */
  readonly context?: string | undefined;
  /** Overrides the ten-second bind timeout (tests). */
  readonly bindTimeoutMs?: number;
}

/**
 * Memories in a NATS JetStream KV bucket, for agents on several machines sharing one memory.
 *
 * The bucket is the operator's: it is bound, never created, and refused at open when it has a TTL
 * (memories would silently expire) or a maximum value size below the largest serialized entry.
 * Updates are revision-checked by default: an update is sent with the revision this run's scope
 * read, so of two agents updating one key from the same read, the second is refused (`stale`)
 * instead of silently replacing the first one's text.
 */
export class JetStreamStore implements Store {
  readonly #kv: KV;
  readonly #bucket: string;
  readonly #prefix: string;
  readonly #requireRead: boolean;
  // Entry counts per run: counting scans every key, so a run counts once and then keeps its own tally.
  readonly #counts = new WeakMap<Scope, number>();

  private constructor(kv: KV, bucket: string, prefix: string, requireRead: boolean) {
    this.#kv = kv;
    this.#bucket = bucket;
    this.#prefix = prefix;
    this.#requireRead = requireRead;
  }

  /**
   * Binds the bucket and checks it is fit to hold memories, within the bind timeout. Throws
   * `MemoryError` `bucket_missing` (with the `nats kv add` command to create it),
   * `bucket_unsuitable` or `unavailable`.
   */
  static async open(options: JetStreamStoreOptions): Promise<JetStreamStore> {
    const { bucket, prefix } = options;
    if (!/^[-\w]+$/u.test(bucket)) {
      throw new MemoryError(
        'bucket_unsuitable',
        `harness.memory.options.bucket: ${JSON.stringify(bucket)} is not a KV bucket name; use letters, digits, "_" and "-"`,
      );
    }
    if (prefix !== '' && !isValidKey(prefix)) {
      throw new MemoryError(
        'invalid_key',
        `harness.memory.options.prefix: ${JSON.stringify(prefix)} is not a legal key prefix; use letters, digits, ".", "_", "=" and "-", or "" for a flat keyspace`,
      );
    }
    const timeoutMs = options.bindTimeoutMs ?? BIND_TIMEOUT_MS;
    const js: JetStreamClient = jetstream(options.nats, { timeout: timeoutMs });
    const bind = async (): Promise<KV> => {
      const kv = await new Kvm(js).open(bucket);
      const status = await kv.status();
      if (status.ttl > 0) {
        throw new MemoryError(
          'bucket_unsuitable',
          `harness.memory.options.bucket: KV bucket ${JSON.stringify(bucket)} has a TTL (${status.ttl} ms), so memories would silently expire; use a bucket without a TTL`,
        );
      }
      if (status.maxValueSize > 0 && status.maxValueSize < MAX_ENTRY_BYTES) {
        throw new MemoryError(
          'bucket_unsuitable',
          `harness.memory.options.bucket: KV bucket ${JSON.stringify(bucket)} takes values of at most ${status.maxValueSize} bytes; a memory needs up to ${MAX_ENTRY_BYTES}, so raise its max value size or leave it unlimited`,
        );
      }
      return kv;
    };
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(
          new MemoryError(
            'unavailable',
            `jetstream memory: binding KV bucket ${JSON.stringify(bucket)} did not finish within ${timeoutMs / 1000}s; check nats_context and that JetStream is enabled`,
          ),
        );
      }, timeoutMs);
    });
    try {
      const kv = await Promise.race([bind(), expired]);
      return new JetStreamStore(kv, bucket, prefix, options.requireReadBeforeUpdate ?? true);
    } catch (err) {
      if (err instanceof MemoryError) throw err;
      if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) {
        const ctx = options.context === undefined ? '' : ` --context ${options.context}`;
        throw new MemoryError(
          'bucket_missing',
          `harness.memory.options.bucket: KV bucket ${JSON.stringify(bucket)} does not exist; fisk never creates it. Create it with: nats kv add ${bucket} --history 1 --storage file --replicas ${suggestedReplicas(options.nats)}${ctx}`,
          { cause: err },
        );
      }
      throw new MemoryError('unavailable', `jetstream memory: cannot bind KV bucket ${JSON.stringify(bucket)}: ${(err as Error).message}`, {
        cause: err,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  info(): StoreInfo {
    return { backend: JETSTREAM_BACKEND, location: this.#prefix === '' ? this.#bucket : `${this.#bucket}/${this.#prefix}` };
  }

  async list(options?: CallOptions): Promise<readonly MemoryItem[]> {
    options?.signal?.throwIfAborted();
    const keys = await this.#keys();
    const items: MemoryItem[] = [];
    // Bounded fan-out: at most 1024 keys, fetched a slice at a time.
    for (let i = 0; i < keys.length; i += 64) {
      options?.signal?.throwIfAborted();
      const slice = keys.slice(i, i + 64);
      const entries = await Promise.all(slice.map((k) => this.#get(k)));
      entries.forEach((e, j) => {
        const key = slice[j];
        if (e !== undefined && key !== undefined) items.push({ key, description: parseEntry(e.string()).description });
      });
    }
    return items;
  }

  async read(key: string, options?: CallOptions): Promise<MemoryEntry> {
    validateKey(key);
    options?.signal?.throwIfAborted();
    const entry = await this.#get(key);
    if (entry === undefined) {
      options?.scope?.forget(key);
      throw new MemoryError('not_found', `no memory named ${JSON.stringify(key)}`, { key });
    }
    options?.scope?.record(key, entry.revision);
    return parseEntry(entry.string());
  }

  async create(key: string, description: string, content: string, options?: CallOptions): Promise<void> {
    const write = validateWrite(key, description, content);
    options?.signal?.throwIfAborted();
    checkCapacity(await this.#count(options?.scope), key);
    const value = encode(serializeEntry(write.description, write.content), key);
    let rev: number;
    try {
      rev = await this.#kv.create(this.#stored(key), value);
    } catch (err) {
      if (isWrongSequence(err)) {
        throw new MemoryError('exists', `a memory named ${JSON.stringify(key)} already exists`, { key, cause: err });
      }
      throw backendError(`cannot store memory ${JSON.stringify(key)}`, err, key);
    }
    this.#tally(options?.scope, 1);
    options?.scope?.record(key, rev);
  }

  async update(key: string, description: string, content: string, options?: CallOptions): Promise<void> {
    const write = validateWrite(key, description, content);
    options?.signal?.throwIfAborted();
    const value = encode(serializeEntry(write.description, write.content), key);
    let rev: number;
    if (!this.#requireRead) {
      // An unchecked update of a key that holds nothing adds an entry, so it counts like a create.
      const adds = (await this.#get(key)) === undefined;
      if (adds) checkCapacity(await this.#count(options?.scope), key);
      try {
        rev = await this.#kv.put(this.#stored(key), value);
      } catch (err) {
        throw backendError(`cannot store memory ${JSON.stringify(key)}`, err, key);
      }
      if (adds) this.#tally(options?.scope, 1);
    } else {
      const seen = options?.scope?.revision(key);
      if (seen === undefined || seen <= 0) throw stale(key);
      try {
        rev = await this.#kv.update(this.#stored(key), value, seen);
      } catch (err) {
        if (isWrongSequence(err)) {
          options?.scope?.forget(key);
          throw stale(key, err);
        }
        throw backendError(`cannot store memory ${JSON.stringify(key)}`, err, key);
      }
    }
    options?.scope?.record(key, rev);
  }

  async delete(key: string, options?: CallOptions): Promise<boolean> {
    validateKey(key);
    options?.signal?.throwIfAborted();
    options?.scope?.forget(key);
    const entry = await this.#get(key);
    if (entry === undefined) return false;
    try {
      await this.#kv.delete(this.#stored(key));
    } catch (err) {
      throw backendError(`cannot delete memory ${JSON.stringify(key)}`, err, key);
    }
    this.#tally(options?.scope, -1);
    return true;
  }

  /** Live entries as this run counts them: scanned on the run's first create, tallied after. */
  async #count(scope: Scope | undefined): Promise<number> {
    const cached = scope === undefined ? undefined : this.#counts.get(scope);
    if (cached !== undefined) return cached;
    const counted = (await this.#keys()).length;
    if (scope !== undefined) this.#counts.set(scope, counted);
    return counted;
  }

  #tally(scope: Scope | undefined, delta: number): void {
    if (scope === undefined) return;
    const count = this.#counts.get(scope);
    if (count !== undefined) this.#counts.set(scope, Math.max(0, count + delta));
  }

  #stored(key: string): string {
    return this.#prefix === '' ? key : `${this.#prefix}.${key}`;
  }

  /** The live entry under a memory key, or undefined when it holds nothing (or a delete marker). */
  async #get(key: string): Promise<KvEntry | undefined> {
    let entry: KvEntry | null;
    try {
      entry = await this.#kv.get(this.#stored(key));
    } catch (err) {
      throw backendError(`cannot read memory ${JSON.stringify(key)}`, err, key);
    }
    return entry === null || entry.operation !== 'PUT' ? undefined : entry;
  }

  /** Live memory keys under the prefix, sorted; stored keys that are not legal memory keys are skipped. */
  async #keys(): Promise<string[]> {
    const strip = this.#prefix === '' ? 0 : this.#prefix.length + 1;
    const out: string[] = [];
    try {
      const it = await this.#kv.keys(this.#prefix === '' ? '>' : `${this.#prefix}.>`);
      for await (const stored of it) {
        const key = stored.slice(strip);
        if (isValidKey(key)) out.push(key);
      }
    } catch (err) {
      throw backendError('cannot list memories', err);
    }
    return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }
}

function encode(text: string, key: string): Uint8Array {
  const bytes = new TextEncoder().encode(text);
  // Unreachable after validateWrite by construction of the limit; kept so a limit change cannot slip past a bucket check.
  if (bytes.length > MAX_ENTRY_BYTES) {
    throw new MemoryError(
      'too_large',
      `memory ${JSON.stringify(key)} serializes to ${bytes.length} bytes, over ${MAX_ENTRY_BYTES}; shorten it`,
      { key },
    );
  }
  return bytes;
}

function isWrongSequence(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamWrongLastSequence || err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

function stale(key: string, cause?: unknown): MemoryError {
  const message = `memory ${JSON.stringify(key)} has not been read at its current revision by this run (it may have changed since); read it first, then write again with overwrite`;
  return new MemoryError('stale', message, cause === undefined ? { key } : { key, cause });
}

function backendError(what: string, err: unknown, key?: string): MemoryError {
  if (err instanceof MemoryError) return err;
  const opts = key === undefined ? { cause: err } : { cause: err, key };
  // a store that timed out or had no leader may answer later; anything else is about the entry
  return new MemoryError(isTransientNatsError(err) ? 'unavailable' : 'io', `${what}: ${(err as Error).message}`, opts);
}
