import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfigForMode } from '../config/index.js';
import type { MemoryConfig } from '../config/index.js';
import { MemoryError } from './errors.js';
import { FileStore } from './file/file-store.js';
import { prepareRunMemory } from './run-memory.js';

let base: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'fisk-mem-run-'));
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

function memoryOf(yaml: string): MemoryConfig {
  return parseConfigForMode(
    { text: `identity: bot\nnats_context: c\nsystem_prompt: hi\nllm: { model: m }\nharness:\n  memory: ${yaml}\n` },
    'run',
  ).harness.memory;
}

describe('prepareRunMemory', () => {
  it('is undefined when memory is disabled', async () => {
    expect(await prepareRunMemory(memoryOf('{ enabled: false }'), { identity: 'bot', baseDir: base })).toBeUndefined();
  });

  it('opens the configured store and gives tools, the note and the index', async () => {
    const m = await prepareRunMemory(memoryOf('{ enabled: true }'), { identity: 'bot', baseDir: base });
    expect(m?.tools.map((t) => t.name)).toEqual(['memory_list', 'memory_read', 'memory_write', 'memory_delete']);
    expect(m?.notes).toHaveLength(2);
    expect(m?.notes[1]).toContain('<memory-index>');
    expect(m?.store.info().backend).toBe('file');
  });

  it('leaves out the index with no_index and the writers with read_only', async () => {
    const m = await prepareRunMemory(memoryOf('{ enabled: true, no_index: true, read_only: true }'), { identity: 'bot', baseDir: base });
    expect(m?.notes).toHaveLength(1);
    expect(m?.notes[0]).not.toMatch(/memory_write/u);
    expect(m?.tools.map((t) => t.name)).toEqual(['memory_list', 'memory_read']);
  });

  it('takes an injected store, refusing one of another backend than the configuration names', async () => {
    const store = await FileStore.open(join(base, 'injected'));
    const m = await prepareRunMemory(memoryOf('{ enabled: true }'), { identity: 'bot' }, { store });
    expect(m?.store).toBe(store);
    await expect(
      prepareRunMemory(memoryOf('{ enabled: true, backend: jetstream, options: { bucket: b } }'), { identity: 'bot' }, { store }),
    ).rejects.toThrow(/harness.memory.backend is "jetstream" but the memory store passed in reports backend "file"/u);
  });

  it('seeds the scope from a snapshot and refuses a malformed one', async () => {
    const m = await prepareRunMemory(memoryOf('{ enabled: true }'), { identity: 'bot', baseDir: base }, { snapshot: { k: 4 } });
    expect(m?.scope.revision('k')).toBe(4);
    await expect(
      prepareRunMemory(memoryOf('{ enabled: true }'), { identity: 'bot', baseDir: base }, { snapshot: [{ key: 'k', revision: 4 }] }),
    ).rejects.toBeInstanceOf(MemoryError);
  });
});
