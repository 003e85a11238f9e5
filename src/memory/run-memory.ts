import type { MemoryConfig } from '../config/index.js';
import type { Tool } from '../toolkit/tool.js';
import { checkStoreBackend, openMemoryStore } from './backends.js';
import { memoryIndexPrompt, memoryNote } from './prompt.js';
import type { BackendContext } from './registry.js';
import { Scope } from './scope.js';
import type { Store } from './store.js';
import { memoryTools } from './tools.js';

/** What one run needs from memory. */
export interface RunMemory {
  /** The store, opened from configuration or the one passed in (borrowed either way; nothing to close). */
  readonly store: Store;
  /** This run's read record; journal `scope.snapshot()` with the run. */
  readonly scope: Scope;
  /** The tools to register: four, or two when read-only. */
  readonly tools: readonly Tool[];
  /** System prompt segments: the note on the tools, then the index unless `no_index`. */
  readonly notes: readonly string[];
  /** The note on the tools alone: stable for a configuration, so a run fingerprint may include it. */
  readonly note: string;
  /** The index of stored memories, when injected; it changes as memories are written, so it is never fingerprinted. */
  readonly index: string | undefined;
}

/** Options for `prepareRunMemory`. */
export interface RunMemoryOptions {
  /** A store built by the host (shared across runs); checked against `harness.memory.backend`. */
  readonly store?: Store | undefined;
  /** A journaled scope snapshot to seed (a resume); refused when malformed. */
  readonly snapshot?: unknown;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Everything a run takes from `harness.memory`, at run start: opens the configured store (or checks
 * an injected one names the same backend), seeds the scope from a resumed run's snapshot, builds the
 * tools and the system prompt notes. `undefined` when memory is disabled. Every failure (unknown
 * backend, bad option, missing bucket, a listing that fails) throws here, before the model is
 * contacted.
 */
export async function prepareRunMemory(
  memory: MemoryConfig,
  context: BackendContext,
  options: RunMemoryOptions = {},
): Promise<RunMemory | undefined> {
  if (!memory.enabled) return undefined;
  let store: Store;
  if (options.store !== undefined) {
    checkStoreBackend(memory, options.store);
    store = options.store;
  } else {
    store = await openMemoryStore(memory, context);
  }
  const scope = options.snapshot === undefined ? new Scope() : Scope.restore(options.snapshot);
  const tools = memoryTools(store, scope, { readOnly: memory.readOnly });
  const note = memoryNote(memory.readOnly);
  const index = memory.noIndex ? undefined : await memoryIndexPrompt(store, options.signal === undefined ? {} : { signal: options.signal });
  return { store, scope, tools, notes: index === undefined ? [note] : [note, index], note, index };
}
