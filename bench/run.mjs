#!/usr/bin/env node
// Runs every benchmark under bench/<name>/bench.mjs against the built library and prints one JSON
// document: { "<name>": <that benchmark's JSON>, ... }. `npm run bench -- knowledge` runs one.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const only = new Set(process.argv.slice(2));

execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });

const results = {};
for (const name of readdirSync(here).sort()) {
  const file = join(here, name, 'bench.mjs');
  if (!existsSync(file)) continue;
  if (only.size > 0 && !only.has(name)) continue;
  process.stderr.write(`bench: ${name}\n`);
  const out = execFileSync(process.execPath, ['--expose-gc', file], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 });
  const text = out.toString().trim();
  try {
    results[name] = JSON.parse(text.split('\n').pop() ?? 'null');
  } catch {
    results[name] = { error: 'benchmark did not print JSON on its last line', output: text.slice(-2000) };
  }
}
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
