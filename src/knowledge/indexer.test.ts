import { chmodSync, existsSync, mkdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/knowledge/support.js';
import type { TempDir } from '../../test/knowledge/support.js';
import { indexCorpus } from './indexer.js';
import { search } from './search.js';
import { checkIntegrity, vocabulary } from './maintenance.js';
import { DB_FILE } from './store-files.js';
import { BUILD_FILE, KnowledgeReader, openWriter } from './store.js';

let tmp: TempDir;
let storeDir: string;

beforeEach(() => {
  tmp = tempDir();
  storeDir = join(tmp.path, 'knowledge', 'agent');
  tmp.write('docs/install.md', '# Install\n\nRun the installer on Linux.\n\n## Upgrade\n\nUpgrading keeps the retention policy.\n');
  tmp.write('docs/ops/backup.md', '# Backup\n\nBackups run nightly.\n\n```sh\n# not a heading\nbackup --all\n```\n');
});
afterEach(() => tmp.cleanup());

async function index(opts: Partial<Parameters<typeof indexCorpus>[1]> = {}) {
  const w = openWriter(storeDir);
  try {
    return await indexCorpus(w.db, { roots: ['docs'], cwd: tmp.path, excludeDirs: [storeDir], ...opts });
  } finally {
    w.close();
  }
}

describe('indexCorpus', () => {
  it('indexes files, skips unchanged ones by hash, and re-indexes on change', async () => {
    const first = await index();
    expect(first).toMatchObject({ added: 2, updated: 0, unchanged: 0, files: 2 });
    expect(first.chunks).toBe(3);
    const again = await index();
    expect(again).toMatchObject({ added: 0, updated: 0, unchanged: 2, chunks: 3 });
    tmp.write('docs/install.md', '# Install\n\nOnly one section now.\n');
    const changed = await index();
    expect(changed).toMatchObject({ added: 0, updated: 1, unchanged: 1, chunks: 2 });
    const forced = await index({ reindex: true });
    expect(forced).toMatchObject({ updated: 2, unchanged: 0 });
    // a shrinking file leaves no ghost rows in the FTS table
    const r = new KnowledgeReader(storeDir);
    const res = await search(r, 'retention', { topK: 5 });
    expect(res.status).toBe('no_results');
    r.close();
  });

  it('creates the directory 0700 and the database 0600', async () => {
    await index();
    expect(statSync(storeDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(storeDir, 'knowledge.db')).mode & 0o777).toBe(0o600);
  });

  it('skips symlinks, dot directories, large files, non-UTF-8 files and the store directory', async () => {
    tmp.write('docs/.hidden/secret.md', 'hidden words');
    tmp.write('docs/big.md', 'x'.repeat(600 * 1024));
    tmp.write('docs/bin.md', Buffer.from([0xff, 0xfe, 0x00, 0x41]));
    symlinkSync(join(tmp.path, 'docs/install.md'), join(tmp.path, 'docs/link.md'));
    const res = await indexCorpus(undefined, { roots: ['docs'], cwd: tmp.path, excludeDirs: [], dryRun: true });
    expect(res.added).toBe(2);
    expect(res.skipped.map((s) => [s.path, s.reason]).sort()).toEqual([
      ['docs/big.md', 'too_large'],
      ['docs/bin.md', 'not_utf8'],
      ['docs/link.md', 'symlink'],
    ]);
    // a store living under a root is never indexed into itself
    const inner = join(tmp.path, 'docs', 'store');
    const w = openWriter(inner);
    const r = await indexCorpus(w.db, { roots: ['docs'], cwd: tmp.path, excludeDirs: [inner] });
    w.close();
    expect(r.added).toBe(2);
  });

  it('prunes orphans only when asked and only when the walk saw files', async () => {
    await index();
    tmp.write('docs/install.md', '# Install\n\nstill here\n');
    rmSync(join(tmp.path, 'docs/ops'), { recursive: true });
    const noPrune = await index();
    expect(noPrune.removed).toBe(0);
    const pruned = await index({ prune: 'under_roots' });
    expect(pruned.removed).toBe(1);
    // a root that no longer exists finds no files: nothing is removed
    const empty = await index({ roots: ['nowhere'], prune: 'all' });
    expect(empty.removed).toBe(0);
    expect(empty.pruneSkipped).toMatch(/no files/);
    expect(empty.skipped).toEqual([{ path: 'nowhere', reason: 'missing' }]);
  });

  it('stops between files when canceled, leaving the index consistent', async () => {
    const ac = new AbortController();
    const res = await index({ signal: ac.signal, onProgress: () => ac.abort() });
    expect(res.canceled).toBe(true);
    expect(res.added).toBe(1);
    const again = await index();
    expect(again).toMatchObject({ added: 1, unchanged: 1 });
  });

  it('refuses a second writer while one holds the lock', () => {
    const w = openWriter(storeDir);
    try {
      expect(() => openWriter(storeDir)).toThrow(/another knowledge writer/);
    } finally {
      w.close();
    }
    openWriter(storeDir).close();
  });

  it('refuses a symlink in place of the database', () => {
    tmp.write('elsewhere.db', '');
    const dir = join(tmp.path, 'store2');
    mkdirSync(dir);
    symlinkSync(join(tmp.path, 'elsewhere.db'), join(dir, 'knowledge.db'));
    expect(() => openWriter(dir)).toThrow(/symlink/);
    expect(() => new KnowledgeReader(dir).handle()).toThrow(/symlink/);
  });

  it('re-asserts 0600 on an existing database with looser mode', async () => {
    await index();
    chmodSync(join(storeDir, 'knowledge.db'), 0o644);
    writeFileSync(join(tmp.path, 'docs/new.md'), 'new words');
    await index();
    expect(statSync(join(storeDir, 'knowledge.db')).mode & 0o777).toBe(0o600);
  });
});

describe('a bulk first build', () => {
  it('writes a side file readers cannot see, renames it into place on close, and then writes in place', async () => {
    const writer = openWriter(storeDir, { bulk: true });
    const reader = new KnowledgeReader(storeDir);
    try {
      expect(writer.bulk).toBe(true);
      await indexCorpus(writer.db, { roots: ['docs'], cwd: tmp.path, excludeDirs: [storeDir], bulk: writer.bulk });
      expect(existsSync(join(storeDir, BUILD_FILE))).toBe(true);
      // until the build is closed, the store reads as never built
      expect(reader.handle()).toBeUndefined();
    } finally {
      writer.close();
    }
    expect(existsSync(join(storeDir, BUILD_FILE))).toBe(false);
    expect(statSync(join(storeDir, DB_FILE)).mode & 0o777).toBe(0o600);
    const db = reader.handle();
    expect(db?.pragma('journal_mode', { simple: true })).toBe('wal');
    expect((await search(reader, 'retention', { topK: 5 })).hits[0]?.path).toBe('docs/install.md');
    // both full-text tables, filled in one pass each at the end, agree with the chunks
    reader.close();
    const again = openWriter(storeDir, { bulk: true });
    try {
      expect(again.bulk).toBe(false);
      expect(checkIntegrity(again).every((i) => i.state !== 'fail')).toBe(true);
      expect(vocabulary(reader, 'retention', 5)).toEqual([{ term: 'retention', chunks: 1, occurrences: 1 }]);
      // a store that holds an index is written in place, never rebuilt aside
      tmp.write('docs/new.md', '# New\n\nA new page.\n');
      const res = await indexCorpus(again.db, { roots: ['docs'], cwd: tmp.path, excludeDirs: [storeDir], bulk: again.bulk });
      expect(res.added).toBe(1);
      expect((await search(reader, 'new page', { topK: 5 })).hits[0]?.path).toBe('docs/new.md');
      expect(existsSync(join(storeDir, BUILD_FILE))).toBe(false);
    } finally {
      again.close();
      reader.close();
    }
  });

  it('starts over from a side file a crashed build left behind', async () => {
    mkdirSync(storeDir, { recursive: true });
    writeFileSync(join(storeDir, BUILD_FILE), 'half a database from a build that died');
    expect(new KnowledgeReader(storeDir).handle()).toBeUndefined();
    const w = openWriter(storeDir, { bulk: true });
    try {
      const res = await indexCorpus(w.db, { roots: ['docs'], cwd: tmp.path, excludeDirs: [storeDir] });
      expect(res.added).toBe(2);
    } finally {
      w.close();
    }
    const reader = new KnowledgeReader(storeDir);
    expect((await search(reader, 'nightly', { topK: 5 })).hits[0]?.path).toBe('docs/ops/backup.md');
    reader.close();
  });
});
