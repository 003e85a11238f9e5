/**
 * Memory: notes the model writes and reads back on later runs. The harness stores the text, shows
 * it back fenced as data, and never treats it as instruction.
 *
 * A `Store` (file or JetStream KV backend, chosen by `harness.memory.backend`), the limits and key
 * rules every backend shares, the one stored format, the per-run `Scope` that gates overwrites,
 * the four memory tools, and the prompt pieces the agent loop injects.
 */
export type { CallOptions, MemoryEntry, MemoryItem, Store, StoreInfo } from './store.js';
export { MemoryError, MEMORY_ERROR_CODES, isMemoryError } from './errors.js';
export type { MemoryErrorCode } from './errors.js';
export { MAX_KEY_RUNES, MAX_DESCRIPTION_RUNES, MAX_CONTENT_BYTES, MAX_ENTRIES, MAX_ENTRY_BYTES, describeLimits } from './limits.js';
export { validateKey, isValidKey, normalizeDescription, validateWrite, checkCapacity } from './validate.js';
export type { ValidWrite } from './validate.js';
export { serializeEntry, parseEntry } from './serialize.js';
export type { ParsedEntry } from './serialize.js';
export { sanitizeMemoryText, stripTerminalSequences, defuseFence } from './sanitize.js';
export { Scope } from './scope.js';
export type { ScopeSnapshot } from './scope.js';
export { BackendRegistry, BACKEND_NEEDS } from './registry.js';
export type { BackendContext, BackendFactory, BackendNeed, InfoRow } from './registry.js';
export { memoryBackends, memoryBackend, openMemoryStore, checkStoreBackend, memoryInfoRows } from './backends.js';
export { FileStore, FILE_BACKEND } from './file/file-store.js';
export { fileBackend, FileOptionsSchema, decodeFileOptions, fileDirectory } from './file/backend.js';
export type { FileOptions } from './file/backend.js';
export { JetStreamStore, JETSTREAM_BACKEND, BIND_TIMEOUT_MS } from './jetstream/jetstream-store.js';
export type { JetStreamStoreOptions } from './jetstream/jetstream-store.js';
export { jetStreamBackend, JetStreamOptionsSchema, jetStreamSettings } from './jetstream/backend.js';
export type { JetStreamOptions, JetStreamSettings } from './jetstream/backend.js';
export { memoryIndexPrompt, memoryNote, renderMemoryIndex, renderDescription, MEMORY_INDEX_TAG, MEMORY_TAG } from './prompt.js';
export { memoryTools, memoryToolsForListing, MEMORY_TOOL_NAMES, READ_ONLY_MEMORY_TOOL_NAMES } from './tools.js';
export type { MemoryToolName, MemoryToolsOptions, ScopeSource } from './tools.js';
export { prepareRunMemory } from './run-memory.js';
export type { RunMemory, RunMemoryOptions } from './run-memory.js';
