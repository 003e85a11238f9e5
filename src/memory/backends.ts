import { ConfigError } from '../config/index.js';
import type { BackendChoice, MemoryConfig } from '../config/index.js';
import { MemoryError } from './errors.js';
import { fileBackend } from './file/backend.js';
import { FILE_BACKEND } from './file/file-store.js';
import { jetStreamBackend } from './jetstream/backend.js';
import { JETSTREAM_BACKEND } from './jetstream/name.js';
import { describeLimits } from './limits.js';
import { BackendRegistry } from './registry.js';
import type { BackendContext, BackendFactory, InfoRow } from './registry.js';
import type { Store } from './store.js';

/** The memory backends this package ships: `file` and `jetstream`. Embedders may register more. */
export const memoryBackends = new BackendRegistry();
memoryBackends.register(FILE_BACKEND, fileBackend);
memoryBackends.register(JETSTREAM_BACKEND, jetStreamBackend);

/**
 * The factory for `harness.memory.backend`. An unknown name fails naming the key and the known
 * backends, before anything is opened.
 */
export function memoryBackend(name: string, registry: BackendRegistry = memoryBackends): BackendFactory {
  const factory = registry.get(name);
  if (factory === undefined) {
    throw ConfigError.of(
      'value',
      'harness.memory.backend',
      `unknown memory backend ${JSON.stringify(name)}: known backends are [${registry.names().join(' ')}]`,
    );
  }
  return factory;
}

/**
 * Opens the store `harness.memory` selects, decoding its options strictly. Failures land here, at
 * run start: an unknown backend or option, a missing bucket, a bucket with a TTL.
 */
export async function openMemoryStore(
  choice: BackendChoice,
  context: BackendContext,
  registry: BackendRegistry = memoryBackends,
): Promise<Store> {
  return memoryBackend(choice.backend, registry).open(choice.options, context);
}

/**
 * The directories on this machine the store `harness.memory` selects keeps its data in, asked of
 * its backend from configuration alone; none for a backend that keeps nothing here. Throws
 * `ConfigError` for an unknown backend or an options block it refuses.
 */
export function memoryStorePaths(
  choice: BackendChoice,
  context: BackendContext,
  registry: BackendRegistry = memoryBackends,
): readonly string[] {
  return memoryBackend(choice.backend, registry).paths?.(choice.options, context) ?? [];
}

/**
 * Refuses an injected store whose backend differs from the one the configuration names. When the
 * configuration names none (`backendNamed` false), the embedder's store is taken as it is.
 */
export function checkStoreBackend(memory: Pick<MemoryConfig, 'backend' | 'backendNamed'>, store: Store): void {
  if (!memory.backendNamed) return;
  const reported = store.info().backend;
  if (reported !== memory.backend) {
    throw new MemoryError(
      'backend_mismatch',
      `harness.memory.backend is ${JSON.stringify(memory.backend)} but the memory store passed in reports backend ${JSON.stringify(reported)}; make them agree or remove harness.memory.backend`,
    );
  }
}

/**
 * The Memory section of `fisk info`, from configuration alone (nothing is contacted or created):
 * the backend, where it stores (directory, or bucket, context and prefix), whether the index is
 * injected, whether the model may write, and the limits. Empty when memory is disabled.
 */
export function memoryInfoRows(
  memory: MemoryConfig,
  context: BackendContext,
  registry: BackendRegistry = memoryBackends,
): readonly InfoRow[] {
  if (!memory.enabled) return [];
  const factory = memoryBackend(memory.backend, registry);
  return [
    { label: 'Backend', value: memory.backend },
    ...factory.describe(memory.options, context),
    { label: 'Index', value: memory.noIndex ? 'not injected (no_index)' : 'injected into the system prompt' },
    { label: 'Access', value: memory.readOnly ? 'read only (list and read)' : 'read and write' },
    { label: 'Limits', value: describeLimits() },
  ];
}
