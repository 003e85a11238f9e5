import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/knowledge/support.js';
import type { TempDir } from '../../test/knowledge/support.js';
import { isKnowledgeError } from './errors.js';
import { fillGap, INCOMPLETE_KEY, readGap } from './fulltext.js';
import { indexCorpus } from './indexer.js';
import { checkIntegrity, rebuildIndexes, removeSources } from './maintenance.js';
import { openWriter } from './store.js';
import type { WriterStore } from './store.js';

let tmp: TempDir;
let storeDir: string;

beforeEach(() => {
  tmp = tempDir();
  storeDir = join(tmp.path, 'store');
  for (let i = 0; i < 1500; i++)
    tmp.write(`docs/f${String(i).padStart(3, '0')}.md`, `# File ${i}\n\nword${i} about storage.\n\n## More\n\nsecond part ${i}.\n`);
});
afterEach(() => tmp.cleanup());

/** A first build whose full-text fill is stopped as soon as it starts. */
async function stoppedBuild(w: WriterStore): Promise<void> {
  const ac = new AbortController();
  const res = await indexCorpus(w.db, {
    roots: ['docs'],
    cwd: tmp.path,
    excludeDirs: [storeDir],
    signal: ac.signal,
    bulk: true,
    onNote: (n) => {
      if (n.startsWith('building the full-text index')) ac.abort();
    },
  });
  expect(res.canceled).toBe(true);
}

function healthy(w: WriterStore): boolean {
  return checkIntegrity(w).every((i) => i.state !== 'fail');
}

describe('an unfinished full-text fill', () => {
  it('is marked, refuses removals, and resumes where it stopped', async () => {
    const writer = openWriter(storeDir, { bulk: true });
    try {
      await stoppedBuild(writer);
      const gap = readGap(writer.db);
      expect(gap?.tables).toEqual(['chunks_fts', 'chunks_exact']);
      expect(
        checkIntegrity(writer)
          .filter((i) => i.state === 'fail')
          .map((i) => i.detail),
      ).toEqual([expect.stringContaining('incomplete'), expect.stringContaining('incomplete')]);
      // a delete trigger must never meet an FTS row that was never inserted
      let refused: unknown;
      try {
        removeSources(writer, ['docs/f000.md']);
      } catch (err) {
        refused = err;
      }
      expect(isKnowledgeError(refused, 'fulltext_incomplete')).toBe(true);
      // the first step runs before the fill yields; stopped there, the marker holds its end
      const ac = new AbortController();
      const first = fillGap(writer.db, ac.signal);
      ac.abort();
      expect(await first).toBe(false);
      // the first step fills the first 2,000 chunks (ids leave gaps, a range for each document)
      const after = readGap(writer.db)?.after ?? -1;
      expect((writer.db.prepare('SELECT count(*) AS n FROM chunks WHERE id <= ?').get(after) as { n: number }).n).toBe(2000);
      expect(await fillGap(writer.db, new AbortController().signal)).toBe(true);
      expect(readGap(writer.db)).toBeUndefined();
      expect(healthy(writer)).toBe(true);
      expect(removeSources(writer, ['docs/f000.md'])[0]?.removed).toBe(1);
      expect(healthy(writer)).toBe(true);
    } finally {
      writer.close();
    }
  });

  it('starts again from nothing when the marker cannot be read', async () => {
    const w = openWriter(storeDir, { bulk: true });
    try {
      await stoppedBuild(w);
      await fillGap(w.db, AbortSignal.abort());
      w.db.prepare('UPDATE knowledge_meta SET value = ? WHERE key = ?').run('not json', INCOMPLETE_KEY);
      expect(await fillGap(w.db, new AbortController().signal)).toBe(true);
      expect(healthy(w)).toBe(true);
    } finally {
      w.close();
    }
  });

  it('is completed by rebuild, and by the next index before it changes anything', async () => {
    let w = openWriter(storeDir, { bulk: true });
    await stoppedBuild(w);
    w.close();
    tmp.write('docs/f001.md', '# Changed\n\nnew words.\n');
    w = openWriter(storeDir);
    try {
      const notes: string[] = [];
      const res = await indexCorpus(w.db, { roots: ['docs'], cwd: tmp.path, excludeDirs: [storeDir], onNote: (n) => notes.push(n) });
      expect(notes.some((n) => n.startsWith('completing the full-text index'))).toBe(true);
      expect(res).toMatchObject({ updated: 1, unchanged: 1499, canceled: false });
      expect(healthy(w)).toBe(true);
    } finally {
      w.close();
    }
    tmp.cleanup();
    tmp = tempDir();
    storeDir = join(tmp.path, 'store');
    tmp.write('docs/a.md', '# A\n\nalpha.\n');
    w = openWriter(storeDir, { bulk: true });
    try {
      await stoppedBuild(w);
      rebuildIndexes(w);
      expect(readGap(w.db)).toBeUndefined();
      expect(healthy(w)).toBe(true);
    } finally {
      w.close();
    }
  });
});
