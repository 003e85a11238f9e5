/**
 * Memory as the package offers it to embedders: the `Store` contract, the backend registry, the
 * file and JetStream stores, and the one call that prepares a run's memory. Code inside the tree
 * imports `index.ts`.
 */
export { MemoryError, memoryBackends, openMemoryStore, prepareRunMemory, FileStore, JetStreamStore } from './index.js';
export type {
  CallOptions,
  MemoryEntry,
  MemoryItem,
  Store,
  StoreInfo,
  MemoryErrorCode,
  ScopeSnapshot,
  BackendRegistry,
  BackendContext,
  BackendFactory,
  BackendNeed,
  InfoRow,
  FileOptions,
  JetStreamStoreOptions,
  RunMemory,
  RunMemoryOptions,
} from './index.js';
export type { Scope } from './scope.js';
export type { FileOptionsSchema } from './file/backend.js';
// the closed vocabularies the types above are drawn from, as types only
export type { MEMORY_ERROR_CODES, BACKEND_NEEDS } from './index.js';
