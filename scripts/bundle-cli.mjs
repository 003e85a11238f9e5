#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/main.js) with its dependencies into dist/bin/: the `fisk`
// program the package installs. Node starts one file and a few chunks instead of resolving and
// compiling some hundreds of modules. Code loaded by dynamic import() stays in chunks of its own,
// so a command still loads only what it uses. Packages that load native code or files at run time
// stay outside the bundle and are required from node_modules as usual.
//
// The bundle is CommonJS (dist/bin/fisk.cjs and chunks/*.cjs): Node 20 loads a CommonJS module
// with far less work than an ES module, whose loader resolves, reads, links and evaluates each one
// through several asynchronous steps; over the forty-odd chunks a command loads, that was about a
// fifth of `fisk info`; the package names dist/bin/fisk.cjs itself as its program, since an ES
// module in front of it would start the ES module loader all the same.
// Ink cannot be in it: its layout engine starts with a top-level await, which CommonJS cannot
// hold. Ink is bundled on its own as an ES module (chunks/vendor-ink.mjs) that the full-screen view
// imports, and React stays in node_modules so that Ink and the view share one copy of it.
// The bundle's entry is dist/bin/main.cjs; dist/bin/fisk.cjs is a launcher (fisk-launcher.mjs) that
// starts it with V8's code cache, which this script makes last by running two commands once.
// Run after `tsc -p tsconfig.build.json`; `npm run build` does both.
import { readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';
import { LAUNCHER } from './fisk-launcher.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'bin');
// written beside and swapped in whole, so a `fisk` starting meanwhile finds the old bundle or the new
const staging = join(root, 'dist', `bin.${process.pid}.tmp`);

/** Required at run time, never bundled: native addons and what finds its files beside itself. */
const EXTERNAL = [
  'better-sqlite3', // a native addon, found through `bindings`
  'sqlite-vec', // hands SQLite the path of a shared library in its own package
  'fs-ext', // a native addon
  'react-devtools-core', // an optional import of Ink's, only with DEV=true; not a dependency
];

/** Shared by the bundle and Ink's module, so both hold the same React: required from node_modules. */
const SHARED = ['react'];
/** Ink's module, beside the chunks that import it. */
const INK_MODULE = 'vendor-ink.mjs';

const isExternal = (names) => (id) => names.some((name) => id === name || id.startsWith(`${name}/`));

rmSync(staging, { recursive: true, force: true });
const warnings = [];
const onLog = (level, log) => {
  warnings.push(`${level}: ${log.message}`);
};
await build({
  input: { 'vendor-ink': join(root, 'scripts', 'ink-entry.mjs') },
  platform: 'node',
  external: isExternal([...EXTERNAL, ...SHARED]),
  logLevel: 'warn',
  onLog,
  output: {
    dir: join(staging, 'chunks'),
    format: 'esm',
    entryFileNames: '[name].mjs',
    chunkFileNames: 'vendor-ink-[name]-[hash].mjs',
  },
});
await build({
  input: { main: join(root, 'dist', 'cli', 'main.js') },
  platform: 'node',
  external: isExternal([...EXTERNAL, ...SHARED, 'ink']),
  // yaml's ES module build (the same code as its CommonJS one), so only what is used is bundled
  resolve: { alias: { yaml: join(root, 'node_modules', 'yaml', 'browser', 'index.js') } },
  logLevel: 'warn',
  onLog,
  output: {
    dir: staging,
    format: 'cjs',
    // documentation comments are for reading the sources, not for running them: left out, the
    // program is a fifth smaller and parses faster; licence notices stay
    comments: { legal: true, annotation: true, jsdoc: false },
    entryFileNames: '[name].cjs',
    chunkFileNames: 'chunks/[name]-[hash].cjs',
    // the full-screen view's chunk imports Ink's module, which sits beside it
    paths: { ink: `./${INK_MODULE}` },
    // `fisk info` and `fisk run` read the configuration file and start the application before
    // they load the configuration schema: the YAML reader and the credential lists are chunks of
    // their own, so that early step does not load the schema's chunk (and zod) with them
    codeSplitting: {
      groups: [
        { name: 'yaml', test: /[\\/]node_modules[\\/]yaml[\\/]/ },
        { name: 'credentials', test: /[\\/]dist[\\/]config[\\/]credentials\.js$/ },
      ],
    },
  },
});
// a path relative to the chunks is right only in a chunk: refuse a bundle that imports Ink from elsewhere
const importsInk = (file) => readFileSync(file, 'utf8').includes(`./${INK_MODULE}`);
if (importsInk(join(staging, 'main.cjs'))) warnings.push(`error: dist/bin/main.cjs imports ./${INK_MODULE}, which is in dist/bin/chunks`);
if (!readdirSync(join(staging, 'chunks')).some((name) => name.endsWith('.cjs') && importsInk(join(staging, 'chunks', name)))) {
  warnings.push(`error: no chunk imports ./${INK_MODULE}: the full-screen view would load Ink from somewhere else`);
}
if (warnings.length > 0) {
  // an unresolved import would fail only when its code runs; refuse the build instead
  process.stderr.write(`bundle-cli: the bundle is not clean:\n${warnings.join('\n')}\n`);
  rmSync(staging, { recursive: true, force: true });
  process.exit(1);
}
// the program itself: a launcher that starts main.cjs with the code cache (see the launcher)
writeFileSync(join(staging, 'fisk.cjs'), LAUNCHER, { mode: 0o755 });
const old = `${out}.${process.pid}.old`;
try {
  renameSync(out, old);
} catch {
  // no bundle yet
}
renameSync(staging, out);
rmSync(old, { recursive: true, force: true });

// V8's code cache for the chunks a few common commands load, made by running them once; without
// it the program still runs, compiling its chunks at every start as before
try {
  await writeCodeCache(out);
} catch (err) {
  rmSync(join(out, 'cache'), { recursive: true, force: true });
  process.stderr.write(
    `bundle-cli: no code cache was made (fisk will compile its chunks at start): ${err instanceof Error ? err.message : String(err)}\n`,
  );
}

/** Runs `fisk --help` and a one-turn `fisk run` (against a local fake model) with the cache written. */
async function writeCodeCache(bin) {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { anthropicText } = await import(join(root, 'dist', 'agenttest', 'anthropic-wire.js'));
  const { startFakeModelServer } = await import(join(root, 'dist', 'agenttest', 'fake-model-server.js'));
  const scratch = mkdtempSync(join(tmpdir(), 'fisk-code-cache-'));
  const server = await startFakeModelServer({ record: false, fallback: () => anthropicText('done') });
  try {
    writeFileSync(join(scratch, 'agent.yaml'), 'identity: cache\nsystem_prompt: You answer.\nllm:\n  model: claude-fake-1\n');
    const env = { PATH: process.env.PATH, HOME: scratch, NO_COLOR: '1', FISK_CODE_CACHE_WRITE: '1' };
    const fisk = join(bin, 'fisk.cjs');
    const { execFile } = await import('node:child_process');
    const run = (args) =>
      new Promise((res, rej) => execFile(process.execPath, [fisk, ...args], { cwd: scratch, env }, (err) => (err ? rej(err) : res())));
    await run(['--help']);
    await run(['run', '--no-tui', '--base-url', server.url, '--api-key', 'k', 'hi']);
  } finally {
    await server.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}
