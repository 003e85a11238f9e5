/**
 * A journal on a full disk, played by a child process under a file-size limit (`prlimit
 * --fsize`): the write that crosses the limit stores part of its line and reports fewer bytes,
 * and the next one fails. Whatever the store said it appended must be whole on disk, and the
 * record that did not fit must be refused, so a run stops there instead of going on.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileSessionStore } from './store.js';

const root = resolve(import.meta.dirname, '..', '..', '..');
const built = join(root, 'dist', 'runstate', 'index.js');
let dir: string;

beforeAll(() => {
  if (!existsSync(built)) spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  dir = mkdtempSync(join(tmpdir(), 'fisk-full-disk-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const script = `
import { fileSessionStore, startRun, appendNext, toolResultBody } from ${JSON.stringify(built)};
const store = fileSessionStore(process.argv[1]);
const journal = await startRun(store, { runId: 'full', fingerprint: { provider: 'anthropic', model: 'm1' }, prompt: 'p' });
let stored = 1;
for (let i = 0; i < 50; i++) {
  try {
    await appendNext(journal, toolResultBody({ type: 'tool_result', toolUseId: 'call_' + i, content: 'x'.repeat(3000) }));
    stored++;
  } catch (err) {
    console.log(JSON.stringify({ stored, refused: err.message }));
    process.exit(0);
  }
}
console.log(JSON.stringify({ stored, refused: null }));
`;

// batches of three records: the batch that does not fit is refused whole, and the journal is then broken
const batchScript = `
import { fileSessionStore, startRun, appendAllNext, toolResultBody } from ${JSON.stringify(built)};
const store = fileSessionStore(process.argv[1]);
const journal = await startRun(store, { runId: 'full', fingerprint: { provider: 'anthropic', model: 'm1' }, prompt: 'p' });
const batch = (i) => [0, 1, 2].map((k) => toolResultBody({ type: 'tool_result', toolUseId: 'call_' + i + '_' + k, content: 'x'.repeat(1500) }));
let stored = 1;
for (let i = 0; i < 50; i++) {
  try {
    await appendAllNext(journal, batch(i));
    stored += 3;
  } catch (err) {
    const after = await journal.appendAll([{ seq: stored + 1, ...toolResultBody({ type: 'tool_result', toolUseId: 'later', content: 'y' }) }]).then(
      () => null,
      (again) => again.message,
    );
    console.log(JSON.stringify({ stored, lastSeq: journal.lastSeq(), refused: err.message, after }));
    process.exit(0);
  }
}
console.log(JSON.stringify({ stored, refused: null }));
`;

describe('a file journal on a full disk', () => {
  it('refuses the record that did not fit, and every record it accepted reads back whole', async () => {
    const child = spawnSync('prlimit', ['--fsize=20000', process.execPath, '--input-type=module', '-e', script, dir], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(0);
    const said = JSON.parse(child.stdout.trim()) as { stored: number; refused: string | null };
    expect(said.refused).toMatch(/cannot write run "full" in .*(stored \d+ of \d+ bytes|EFBIG|file too large)/i);
    // the torn tail is dropped on read: exactly the records the store accepted remain
    const records = await fileSessionStore(dir).load('full');
    expect(records).toHaveLength(said.stored);
    expect(said.stored).toBeGreaterThan(1);
  });

  it('refuses a batch that did not fit and breaks the journal; a reopen keeps only whole records', async () => {
    const runs = join(dir, 'batches');
    const child = spawnSync('prlimit', ['--fsize=20000', process.execPath, '--input-type=module', '-e', batchScript, runs], {
      encoding: 'utf8',
    });
    expect(child.status, child.stderr).toBe(0);
    const said = JSON.parse(child.stdout.trim()) as { stored: number; lastSeq: number; refused: string | null; after: string | null };
    expect(said.refused).toMatch(/cannot write run "full" in .*(stored \d+ of \d+ bytes|EFBIG|file too large)/i);
    expect(said.lastSeq).toBe(said.stored);
    expect(said.after).toMatch(/failed a write; reopen the run/);
    // a prefix of the refused batch may be whole on disk; the torn line after it is dropped on read
    const store = fileSessionStore(runs);
    const records = await store.load('full');
    expect(records.length).toBeGreaterThanOrEqual(said.stored);
    expect(records.length).toBeLessThan(said.stored + 3);
    expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i + 1));
    const journal = await store.open('full');
    expect(journal.lastSeq()).toBe(records.length);
    await journal.close();
  });
});
