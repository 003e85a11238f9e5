import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/knowledge/support.js';
import type { TempDir } from '../../test/knowledge/support.js';
import type { IndexResult } from './indexer.js';
import { indexCorpus } from './indexer.js';
import { listSources } from './maintenance.js';
import { KnowledgeReader, openWriter } from './store.js';
import type { WriterStore } from './store.js';
import { startWatch } from './watch.js';
import type { Watcher } from './watch.js';

let tmp: TempDir;
let store: WriterStore;
let watcher: Watcher | undefined;
const results: { res: IndexResult; removed: number; batch: readonly string[] }[] = [];
let waiters: (() => void)[] = [];
let lastBatch: readonly string[] = [];

function nextResult(): Promise<void> {
  return new Promise((r) => waiters.push(r));
}

beforeEach(async () => {
  tmp = tempDir();
  tmp.write('docs/a.md', '# A\n\nalpha text\n');
  tmp.write('docs/b.md', '# B\n\nbeta text\n');
  store = openWriter(join(tmp.path, 'docs', 'store-inside', 'kb'));
  await indexCorpus(store.db, { roots: ['docs'], cwd: tmp.path, excludeDirs: [store.dir] });
  results.length = 0;
  waiters = [];
  watcher = await startWatch(store, {
    roots: ['docs'],
    cwd: tmp.path,
    excludeDirs: [store.dir],
    debounceMs: 100,
    events: {
      onBatch: (b) => (lastBatch = b),
      onResult: (res, removed) => {
        results.push({ res, removed, batch: lastBatch });
        const w = waiters;
        waiters = [];
        for (const f of w) f();
      },
    },
  });
});

afterEach(async () => {
  await watcher?.stop();
  store.close();
  tmp.cleanup();
});

function sources(): string[] {
  const r = new KnowledgeReader(store.dir);
  const list = listSources(r)?.map((s) => s.path) ?? [];
  r.close();
  return list;
}

describe('startWatch', () => {
  it("indexes a new file and removes a deleted one, ignoring the store's own writes", async () => {
    expect(watcher?.watchedDirectories()).toBeGreaterThan(0);
    let done = nextResult();
    tmp.write('docs/c.md', '# C\n\ngamma\n');
    await done;
    expect(results[0]?.batch).toEqual(['docs/c.md']);
    expect(results[0]?.res.added).toBe(1);
    expect(sources()).toEqual(['docs/a.md', 'docs/b.md', 'docs/c.md']);
    done = nextResult();
    rmSync(join(tmp.path, 'docs/a.md'));
    await done;
    // the store lives under the watched root: its WAL writes must not have triggered passes
    expect(results.every((r) => r.batch.every((p) => !p.includes('store-inside')))).toBe(true);
    expect(results.at(-1)?.removed).toBe(1);
    expect(sources()).toEqual(['docs/b.md', 'docs/c.md']);
  });

  it('keeps a file replaced by an atomic save (write a temporary file, rename it over)', async () => {
    const done = nextResult();
    writeFileSync(join(tmp.path, 'docs/b.md.tmp'), '# B\n\nbeta rewritten\n');
    rmSync(join(tmp.path, 'docs/b.md'));
    renameSync(join(tmp.path, 'docs/b.md.tmp'), join(tmp.path, 'docs/b.md'));
    await done;
    expect(sources()).toContain('docs/b.md');
    expect(results.reduce((n, r) => n + r.removed, 0)).toBe(0);
  });
});
