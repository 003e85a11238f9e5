import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { runCli } from '../../src/cli/program.js';
import { captureIo } from '../../src/cli/test-io.js';
import { startFakeEmbeddings, tempDir } from './support.js';
import type { FakeEmbeddings, TempDir } from './support.js';

const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'dist', 'bin', 'fisk.cjs');

let tmp: TempDir;
let fake: FakeEmbeddings;

beforeAll(() => {
  if (!existsSync(cli)) spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
}, 180_000);
beforeEach(async () => {
  tmp = tempDir();
  fake = await startFakeEmbeddings(8);
  tmp.write(
    'agent.yaml',
    `identity: docs\nharness:\n  knowledge:\n    enabled: true\n    paths: [docs]\n    embeddings:\n      base_url: ${fake.baseUrl}\n      model: toy\n`,
  );
  // one chunk per file: the pass embeds 64 chunks a request
  for (let i = 0; i < 200; i++) tmp.write(`docs/f${String(i).padStart(3, '0')}.md`, `# File ${i}\n\nText number ${i} about storage.\n`);
});
afterEach(async () => {
  await fake.close();
  tmp.cleanup();
});

async function fisk(args: string[]) {
  const io = captureIo({}, tmp.path);
  const code = await runCli(['knowledge', ...args], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('Ctrl-C during fisk knowledge index', () => {
  it('stops between files, keeps what was indexed consistent, and exits 130', async () => {
    // the probe and the first batch are answered; the second batch hangs until the interrupt
    let requests = 0;
    let hung: () => void = () => undefined;
    const reachedSecondBatch = new Promise<void>((r) => {
      hung = r;
    });
    fake.behaviour = () => {
      requests++;
      if (requests < 3) return 'ok';
      hung();
      return 'hang';
    };
    const child = spawn(process.execPath, [cli, 'knowledge', 'index'], {
      cwd: tmp.path,
      env: { PATH: process.env['PATH'], HOME: tmp.path },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
      child.once('exit', (code, signal) => r({ code, signal })),
    );
    await reachedSecondBatch;
    child.kill('SIGINT');
    const { code, signal } = await exited;
    expect(signal).toBeNull();
    expect(code).toBe(EXIT.aborted);
    expect(err).toContain('index interrupted after');
    expect(out).not.toContain('indexed: added=');

    // the first batch is in, whole, and the index checks out
    fake.behaviour = () => 'ok';
    const stats = await fisk(['stats']);
    expect(stats.out).toMatch(/Documents\s+64\n/);
    expect(stats.out).toMatch(/Vectors\s+64\n/);
    // the exact-word table of a first build is filled at the end, which the interrupt skipped
    expect(stats.out).toContain('Full-text   incomplete');
    const early = await fisk(['check']);
    expect(early.out).toMatch(/chunks_exact\s+\[FAIL\]\s+incomplete/);
    // a re-run completes the full text, skips what is there and indexes the rest
    const again = await fisk(['index']);
    expect(again.code).toBe(EXIT.ok);
    expect(again.out).toContain('indexed: added=136 updated=0 skipped=64 removed=0 (200 files, 200 chunks, 136 embeddings)');
    const check = await fisk(['check']);
    expect(check.code).toBe(EXIT.ok);
  }, 60_000);
});
