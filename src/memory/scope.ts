import { MemoryError } from './errors.js';
import { isValidKey } from './validate.js';

/**
 * A scope as journal data: memory key to revision, the shape of the session journal's
 * `memory_scope.revisions`. Keys are in sorted order; the object has no prototype, so a key such as
 * `__proto__` is an ordinary entry.
 */
export type ScopeSnapshot = Readonly<Record<string, number>>;

/**
 * One run's record of which memories it has read and at which revision. It is the authority for
 * overwriting on a backend that enforces read-before-update: only a model-initiated read and the
 * run's own writes record a revision; listing and the start-of-run index do not, because seeing a
 * key in an index is not seeing its current text. A delete drops the revision, so a stale one cannot
 * authorize overwriting a key that was re-created in between.
 *
 * A run passes its scope on every store call rather than binding it to the store, so one store
 * serves many concurrent runs, each with its own scope. An absent scope authorizes no overwrite.
 */
export class Scope {
  // A Map, not an object: keys such as `__proto__` are legal memory keys.
  readonly #revisions = new Map<string, number>();

  /** The revision this run last read or wrote for `key`, if any. */
  revision(key: string): number | undefined {
    return this.#revisions.get(key);
  }

  /** Records that this run has seen `key` at `revision` (backends without revisions record 0). */
  record(key: string, revision: number): void {
    this.#revisions.set(key, revision);
  }

  /** Forgets `key` (it was deleted, or found missing). */
  forget(key: string): void {
    this.#revisions.delete(key);
  }

  /** The recorded revisions, for the journal (`memory_scope.revisions`). */
  snapshot(): ScopeSnapshot {
    const out = Object.create(null) as Record<string, number>;
    for (const key of [...this.#revisions.keys()].sort()) out[key] = this.#revisions.get(key) ?? 0;
    return out;
  }

  /**
   * Rebuilds a scope from a journaled snapshot so a resumed run keeps the authority it had. The
   * snapshot is checked entry by entry; a malformed one is refused (`invalid_snapshot`) rather than
   * half-applied, since a wrong revision would be an overwrite nobody read for.
   */
  static restore(snapshot: unknown): Scope {
    if (typeof snapshot !== 'object' || snapshot === null || Array.isArray(snapshot)) {
      throw new MemoryError('invalid_snapshot', 'a memory scope snapshot must be an object of memory key to revision');
    }
    const scope = new Scope();
    for (const [key, revision] of Object.entries(snapshot)) {
      if (!isValidKey(key)) {
        throw new MemoryError('invalid_snapshot', `memory scope snapshot has an invalid key ${JSON.stringify(key)}`);
      }
      if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 0) {
        throw new MemoryError('invalid_snapshot', `memory scope snapshot has no valid revision for ${JSON.stringify(key)}`);
      }
      scope.record(key, revision);
    }
    return scope;
  }
}
