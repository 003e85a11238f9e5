import type { Scope } from './scope.js';

/** What a store says about itself. */
export interface StoreInfo {
  /** The registered backend name (`file`, `jetstream`); it lands on a telemetry span. */
  readonly backend: string;
  /**
   * An operator-configured identifier (a bucket and prefix), never a filesystem path, a URL with
   * userinfo or a credential, because it is recorded in telemetry. The file backend reports `""`.
   */
  readonly location: string;
}

/** One memory in a listing: the key and description only; the body is always a separate read. */
export interface MemoryItem {
  readonly key: string;
  readonly description: string;
}

/** A memory as read. */
export interface MemoryEntry {
  readonly description: string;
  readonly content: string;
}

/** Per-call context: the calling run's scope and its cancellation. */
export interface CallOptions {
  /** The run's read record. Absent, no overwrite is authorized where read-before-update is enforced. */
  readonly scope?: Scope | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Where memories live. Six methods and no `close`: no backend owns a resource to release (a
 * JetStream connection is borrowed from the host and never closed here).
 *
 * Every method validates the key before touching the backing store. An implementation is safe for
 * concurrent use by independent processes sharing one backing store. Failures throw `MemoryError`
 * with a closed `code`.
 */
export interface Store {
  /** The backend name and an operator-facing location. */
  info(): StoreInfo;
  /** Every memory's key and description, sorted by key. Grants no authority to overwrite. */
  list(options?: CallOptions): Promise<readonly MemoryItem[]>;
  /** One memory; `not_found` when the key holds nothing. Records the revision read in the scope. */
  read(key: string, options?: CallOptions): Promise<MemoryEntry>;
  /**
   * Stores a new memory; `exists` when the key is already there, `full` when the store is at
   * capacity. The description is normalized before it is stored. Records the new revision.
   */
  create(key: string, description: string, content: string, options?: CallOptions): Promise<void>;
  /**
   * Replaces what a key holds. Where read-before-update is enforced, `stale` unless the scope read
   * the key at its current revision; otherwise it also writes a key that holds nothing yet.
   */
  update(key: string, description: string, content: string, options?: CallOptions): Promise<void>;
  /** Removes a memory and reports whether it existed. Drops the key's revision from the scope. */
  delete(key: string, options?: CallOptions): Promise<boolean>;
}
