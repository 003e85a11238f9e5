import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { tempDir } from './support.js';
import type { TempDir } from './support.js';

const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'dist', 'bin', 'fisk.cjs');

let tmp: TempDir;

const WORDS = ['storage', 'lattice', 'harbour', 'meridian', 'quorum', 'ember', 'basalt', 'cobalt', 'tundra', 'saffron', 'vertex', 'willow'];

beforeAll(() => {
  if (!existsSync(cli)) spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
}, 180_000);
beforeEach(() => {
  tmp = tempDir();
  tmp.write('agent.yaml', 'identity: docs\nharness:\n  knowledge:\n    enabled: true\n    paths: [docs]\n');
  // enough text that filling the full-text tables at the end takes many steps
  for (let f = 0; f < 1500; f++) {
    const sections: string[] = [`# File ${f}`];
    for (let s = 0; s < 8; s++) {
      const words: string[] = [];
      for (let w = 0; w < 220; w++) words.push(`${WORDS[(f * 7 + s * 3 + w) % WORDS.length]}${(f + w) % 97}`);
      sections.push(`## Section ${s}\n\n${words.join(' ')}.`);
    }
    tmp.write(`docs/f${String(f).padStart(4, '0')}.md`, `${sections.join('\n\n')}\n`);
  }
});
afterEach(() => tmp.cleanup());

function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [cli, 'knowledge', ...args], {
      cwd: tmp.path,
      env: { PATH: process.env['PATH'], HOME: tmp.path, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) => done({ code, out, err }));
  });
}

describe('Ctrl-C while a first build fills its full-text tables', () => {
  it('stops with 130, leaves a searchable index, and the next index completes the full text', async () => {
    const child = spawn(process.execPath, [cli, 'knowledge', 'index'], {
      cwd: tmp.path,
      env: { PATH: process.env['PATH'], HOME: tmp.path, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let interrupted = false;
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      // the note that opens the last phase: interrupt it there
      if (!interrupted && err.includes('building the full-text index:')) {
        interrupted = true;
        child.kill('SIGINT');
      }
    });
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
      child.once('exit', (c, s) => r({ code: c, signal: s })),
    );
    expect(interrupted).toBe(true);
    expect(signal).toBeNull();
    expect(code).toBe(EXIT.aborted);
    expect(err).toContain('index interrupted after 1500 files');
    expect(err).toContain('the full-text index is incomplete');
    expect(out).not.toContain('indexed: added=');

    // the interrupted build is in place and readable, and says what is missing
    const stats = await run(['stats']);
    expect(stats.code).toBe(EXIT.ok);
    expect(stats.out).toMatch(/Documents\s+1500\n/);
    expect(stats.out).toContain("Full-text   incomplete (a first build was interrupted; run 'fisk knowledge index' to complete it)");
    const doctor = await run(['doctor']);
    expect(doctor.out).toMatch(/full-text\s+\[FAIL\]\s+incomplete/);
    const early = await run(['check']);
    expect(early.code).not.toBe(EXIT.ok);
    expect(early.out).toMatch(/chunks_fts\s+\[FAIL\]\s+incomplete/);
    const search = await run(['search', 'storage1']);
    expect(search.code).toBe(EXIT.ok);

    // the next pass finishes the full text first, then finds every file unchanged
    const again = await run(['index']);
    expect(again.code).toBe(EXIT.ok);
    expect(again.err).toContain('completing the full-text index:');
    expect(again.out).toContain('indexed: added=0 updated=0 skipped=1500 removed=0 (1500 files');
    const check = await run(['check']);
    expect(check.code).toBe(EXIT.ok);
    expect(check.out).toMatch(/chunks_fts\s+\[ ok \]/);
    expect(check.out).toMatch(/chunks_exact\s+\[ ok \]/);
    const done = await run(['stats']);
    expect(done.out).not.toContain('Full-text');
    const found = await run(['search', 'file 1499 section 7', '--json']);
    expect(found.code).toBe(EXIT.ok);
    expect(found.out).toContain('docs/f1499.md');
    // a removal after completion keeps both tables in step
    const rm = await run(['rm', 'docs/f0000.md']);
    expect(rm.code).toBe(EXIT.ok);
    expect((await run(['check'])).code).toBe(EXIT.ok);
  }, 240_000);
});
