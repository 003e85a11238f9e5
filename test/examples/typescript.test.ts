/**
 * The TypeScript a reader copies must compile: every ```ts block in README.md and docs/tools.md is
 * type-checked as a complete program, and examples/embed is compiled and run against the fake
 * Messages API. Both import the package by its name, as a user's program does, so they are
 * written under the checkout (`.tmp/`), where the name resolves to the built package.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../src/agenttest/fake-model-server.js';
import { ensureBuilt, ROOT } from '../cli/support.js';

const WORK = join(ROOT, '.tmp', `typescript-${process.pid}`);
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const COMPILER = [
  '--ignoreConfig',
  '--module',
  'nodenext',
  '--moduleResolution',
  'nodenext',
  '--target',
  'es2022',
  '--strict',
  '--skipLibCheck',
  '--types',
  'node',
];

/** Every ```ts block of a markdown file, with the line it starts on. */
export function tsBlocks(markdown: string): { line: number; code: string }[] {
  const out: { line: number; code: string }[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== '```ts') continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end]?.trim() !== '```') end++;
    out.push({ line: start + 1, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return out;
}

function tsc(args: readonly string[]): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, [TSC, ...COMPILER, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

beforeAll(() => {
  ensureBuilt();
  mkdirSync(WORK, { recursive: true });
}, 240_000);
afterAll(() => rmSync(WORK, { recursive: true, force: true }));

describe('TypeScript snippets in the docs', () => {
  // the pages whose snippets are whole programs; the others show fragments of a larger program
  const pages = ['README.md', 'docs/tools.md'];
  const snippets = pages.flatMap((page) => tsBlocks(readFileSync(join(ROOT, page), 'utf8')).map((b) => ({ page, ...b })));

  it('finds the library snippets', () => {
    expect(snippets.map((s) => s.page)).toEqual(expect.arrayContaining(['README.md', 'docs/tools.md']));
  });

  it('type-checks each one as a complete program', () => {
    const dir = join(WORK, 'snippets');
    mkdirSync(dir, { recursive: true });
    const files = snippets.map((s, i) => {
      const file = join(dir, `${s.page.replaceAll(/[/.]/g, '_')}_${s.line}_${i}.ts`);
      // `export {}` makes each file a module, so top-level await is allowed as in a user's program
      writeFileSync(file, `${s.code}\nexport {};\n`);
      return file;
    });
    const r = tsc(['--noEmit', ...files]);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  });

  it('refuses a snippet that does not compile, so the check can fail', () => {
    const file = join(WORK, 'broken.ts');
    writeFileSync(file, "import { toolkit } from 'fisk-ai';\ntoolkit.functool.newFuncTool({ name: 1 });\nexport {};\n");
    const r = tsc(['--noEmit', file]);
    expect(r.output).toMatch(/broken\.ts.*error TS2/);
    expect(r.status).not.toBe(0);
  });
});

describe('examples/embed', () => {
  let fake: FakeModelServer;
  beforeAll(async () => {
    fake = await startFakeModelServer();
  });
  afterAll(async () => {
    await fake.close();
  });

  it('compiles, runs an agent with its custom tool, and prints the answer', async () => {
    // the compile command examples/README.md gives a reader, run as written from the checkout's root,
    // with only its output directory moved into this test's own
    const readme = readFileSync(join(ROOT, 'examples/README.md'), 'utf8');
    const command = readme.split('\n').find((line) => line.startsWith('npx tsc '));
    expect(command, 'examples/README.md gives the compile command').toBeDefined();
    const args = (command ?? '').split(/\s+/).slice(2);
    const outAt = args.indexOf('--outDir');
    expect(outAt).toBeGreaterThan(-1);
    const out = join(WORK, 'embed');
    args[outAt + 1] = out;
    const result = spawnSync(process.execPath, [TSC, ...args], { cwd: ROOT, encoding: 'utf8' });
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.status).toBe(0);
    fake.reply(
      anthropicToolUse([{ id: 'toolu_1', name: 'lookup_order', input: { id: 'A-17' } }]),
      anthropicText('Order A-17 shipped on Monday.'),
    );
    // asynchronous: the fake server answers from this same process
    const child = spawn(process.execPath, [join(out, 'embed.js'), 'Where is order A-17?'], {
      env: { PATH: process.env['PATH'], ANTHROPIC_BASE_URL: fake.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe('Order A-17 shipped on Monday.\n');
    const second = JSON.stringify(fake.requests[1]?.body);
    expect(second).toContain('shipped on Monday');
    const first = fake.requests[0]?.body as { tools: { name: string }[] };
    expect(first.tools.map((t) => t.name)).toEqual(['lookup_order']);
  }, 120_000);
});
