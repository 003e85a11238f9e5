import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, parseConfigForMode } from '../config/index.js';
import type { MemoryConfig } from '../config/index.js';
import { checkStoreBackend, memoryBackend, memoryBackends, memoryInfoRows, memoryStorePaths, openMemoryStore } from './backends.js';
import type { MemoryError } from './errors.js';
import { FileStore } from './file/file-store.js';
import { BackendRegistry } from './registry.js';
import type { BackendFactory } from './registry.js';

let base: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'fisk-mem-backends-'));
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

function memoryOf(yaml: string): MemoryConfig {
  return parseConfigForMode(
    { text: `identity: bot\nnats_context: prod\nsystem_prompt: hi\nllm: { model: m }\nharness:\n  memory:\n${yaml}` },
    'run',
  ).harness.memory;
}

async function thrown(p: Promise<unknown> | (() => unknown)): Promise<unknown> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

describe('the backend registry', () => {
  it('has file and jetstream', () => {
    expect(memoryBackends.names()).toEqual(['file', 'jetstream']);
    expect(memoryBackend('jetstream').needs).toEqual(['nats']);
    expect(memoryBackend('file').needs).toEqual([]);
  });

  it('refuses an empty name, a missing factory and a duplicate', () => {
    const r = new BackendRegistry();
    const f: BackendFactory = { needs: [], open: () => Promise.reject(new Error('x')), describe: () => [] };
    expect(() => r.register(' ', f)).toThrow(/name is empty/u);
    expect(() => r.register('x', undefined as unknown as BackendFactory)).toThrow(/no factory/u);
    r.register('x', f);
    expect(() => r.register('x', f)).toThrow(/already registered/u);
  });

  it('refuses an unknown backend naming the key and the known ones', async () => {
    const err = await thrown(openMemoryStore({ backend: 'redis', options: '{}' }, { identity: 'bot' }));
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).key).toBe('harness.memory.backend');
    expect((err as Error).message).toContain('unknown memory backend "redis": known backends are [file jetstream]');
  });
});

describe('opening from configuration', () => {
  it('opens the file backend at memory/<identity> under the base directory', async () => {
    const m = memoryOf('    enabled: true\n');
    const store = await openMemoryStore(m, { identity: 'bot', baseDir: base });
    expect(store).toBeInstanceOf(FileStore);
    expect(statSync(join(base, 'memory', 'bot')).isDirectory()).toBe(true);
  });

  it('honours a configured directory, relative to the base or absolute', async () => {
    await openMemoryStore(memoryOf('    enabled: true\n    options: { directory: notes }\n'), { identity: 'bot', baseDir: base });
    expect(statSync(join(base, 'notes')).isDirectory()).toBe(true);
    const abs = join(base, 'abs', 'dir');
    await openMemoryStore(memoryOf(`    enabled: true\n    options: { directory: ${JSON.stringify(abs)} }\n`), {
      identity: 'bot',
      baseDir: '/nonexistent',
    });
    expect(statSync(abs).isDirectory()).toBe(true);
  });

  it('refuses an unknown option key for either backend, naming it', async () => {
    const file = await thrown(
      openMemoryStore(memoryOf('    enabled: true\n    options: { directry: x }\n'), { identity: 'bot', baseDir: base }),
    );
    expect((file as ConfigError).key).toBe('harness.memory.options.directry');
    expect((file as Error).message).toMatch(/not an option of the file backend; accepted: directory/u);
    const js = await thrown(
      openMemoryStore(memoryOf('    enabled: true\n    backend: jetstream\n    options: { bucket: b, prefx: p }\n'), { identity: 'bot' }),
    );
    expect((js as ConfigError).key).toBe('harness.memory.options.prefx');
  });

  it('refuses a mistyped option', async () => {
    const err = await thrown(
      openMemoryStore({ backend: 'jetstream', options: '{"bucket":"b","no_require_read_before_update":"yes"}' }, { identity: 'bot' }),
    );
    expect((err as ConfigError).key).toBe('harness.memory.options.no_require_read_before_update');
  });

  it('requires a bucket, a legal bucket name, a legal prefix and a NATS connection for jetstream', async () => {
    const missing = await thrown(openMemoryStore({ backend: 'jetstream', options: '{}' }, { identity: 'bot' }));
    expect((missing as ConfigError).key).toBe('harness.memory.options.bucket');
    expect((missing as Error).message).toContain('jetstream memory: options.bucket is required');
    const badBucket = await thrown(openMemoryStore({ backend: 'jetstream', options: '{"bucket":"a.b"}' }, { identity: 'bot' }));
    expect((badBucket as ConfigError).key).toBe('harness.memory.options.bucket');
    const badPrefix = await thrown(
      openMemoryStore({ backend: 'jetstream', options: '{"bucket":"b","prefix":"a/b"}' }, { identity: 'bot' }),
    );
    expect((badPrefix as ConfigError).key).toBe('harness.memory.options.prefix');
    const badIdentity = await thrown(openMemoryStore({ backend: 'jetstream', options: '{"bucket":"b"}' }, { identity: '' }));
    expect((badIdentity as Error).message).toContain('cannot be used as a key prefix');
    const noNats = await thrown(openMemoryStore({ backend: 'jetstream', options: '{"bucket":"b"}' }, { identity: 'bot' }));
    expect((noNats as MemoryError).code).toBe('missing_dependency');
  });
});

describe('checkStoreBackend', () => {
  it('refuses an injected store of another backend when the configuration names one, naming both', async () => {
    const store = await FileStore.open(join(base, 'x'));
    expect(() => checkStoreBackend({ backend: 'file', backendNamed: true }, store)).not.toThrow();
    expect(() => checkStoreBackend({ backend: 'jetstream', backendNamed: false }, store)).not.toThrow();
    const err = await thrown(() => checkStoreBackend({ backend: 'jetstream', backendNamed: true }, store));
    expect((err as MemoryError).code).toBe('backend_mismatch');
    expect((err as Error).message).toMatch(/"jetstream".*"file"/u);
  });

  it('follows the configuration: a named backend counts, a defaulted one does not', () => {
    expect(memoryOf('    enabled: true\n').backendNamed).toBe(false);
    expect(memoryOf('    enabled: true\n    backend: file\n').backendNamed).toBe(true);
  });
});

describe('memoryInfoRows', () => {
  it('is empty when memory is disabled', () => {
    expect(memoryInfoRows(memoryOf('    enabled: false\n'), { identity: 'bot' })).toEqual([]);
  });

  it('shows the file backend and its directory', () => {
    const rows = memoryInfoRows(memoryOf('    enabled: true\n    read_only: true\n'), { identity: 'bot', baseDir: '/srv/agent' });
    expect(rows).toEqual([
      { label: 'Backend', value: 'file' },
      { label: 'Directory', value: '/srv/agent/memory/bot' },
      { label: 'Index', value: 'injected into the system prompt' },
      { label: 'Access', value: 'read only (list and read)' },
      { label: 'Limits', value: '64 KB per entry, 1024 entries' },
    ]);
  });

  it('shows the jetstream bucket, context and prefix without contacting anything', () => {
    const m = memoryOf('    enabled: true\n    backend: jetstream\n    no_index: true\n    options: { bucket: MEM, prefix: "" }\n');
    const rows = memoryInfoRows(m, { identity: 'bot', natsContext: 'prod' });
    expect(rows).toContainEqual({ label: 'Bucket', value: 'MEM' });
    expect(rows).toContainEqual({ label: 'Context', value: 'prod' });
    expect(rows).toContainEqual({ label: 'Prefix', value: '(none, flat keyspace)' });
    expect(rows).toContainEqual({ label: 'Index', value: 'not injected (no_index)' });
    const defaulted = memoryInfoRows(memoryOf('    enabled: true\n    backend: jetstream\n    options: { bucket: MEM }\n'), {
      identity: 'bot',
    });
    expect(defaulted).toContainEqual({ label: 'Prefix', value: 'bot' });
  });

  it('says where the file backend keeps its entries, the directory info shows, and nothing for jetstream', () => {
    const file = memoryOf('    enabled: true\n    backend: file\n');
    expect(memoryStorePaths(file, { identity: 'bot', baseDir: '/srv/agent' })).toEqual(['/srv/agent/memory/bot']);
    expect(
      memoryStorePaths(memoryOf('    enabled: true\n    backend: file\n    options: { directory: /var/mem }\n'), {
        identity: 'bot',
        baseDir: '/srv/agent',
      }),
    ).toEqual(['/var/mem']);
    expect(
      memoryStorePaths(memoryOf('    enabled: true\n    backend: jetstream\n    options: { bucket: MEM }\n'), { identity: 'bot' }),
    ).toEqual([]);
    expect(() => memoryStorePaths({ backend: 'file', options: '{"directroy":"x"}' }, { identity: 'bot' })).toThrow(ConfigError);
    // a backend that says nothing about its paths keeps nothing here
    const registry = new BackendRegistry();
    registry.register('elsewhere', { needs: [], open: () => Promise.reject(new Error('unused')), describe: () => [] });
    expect(memoryStorePaths({ backend: 'elsewhere', options: '{}' }, { identity: 'bot' }, registry)).toEqual([]);
  });
});
