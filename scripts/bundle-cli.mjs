#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/main.js) with its dependencies into dist/bin/: the `fisk`
// program the package installs. Node starts one file and a few chunks instead of resolving and
// compiling some hundreds of modules. Code loaded by dynamic import() stays in chunks of its own,
// so a command still loads only what it uses. Packages that load native code or files at run time
// stay outside the bundle and are required from node_modules as usual.
// Run after `tsc -p tsconfig.build.json`; `npm run build` does both.
import { renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

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

rmSync(staging, { recursive: true, force: true });
const warnings = [];
await build({
  input: { fisk: join(root, 'dist', 'cli', 'main.js') },
  platform: 'node',
  external: (id) => EXTERNAL.some((name) => id === name || id.startsWith(`${name}/`)),
  // yaml's ES module build (the same code as its CommonJS one), so only what is used is bundled
  resolve: { alias: { yaml: join(root, 'node_modules', 'yaml', 'browser', 'index.js') } },
  logLevel: 'warn',
  onLog(level, log) {
    warnings.push(`${level}: ${log.message}`);
  },
  output: {
    dir: staging,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
  },
});
if (warnings.length > 0) {
  // an unresolved import would fail only when its code runs; refuse the build instead
  process.stderr.write(`bundle-cli: the bundle is not clean:\n${warnings.join('\n')}\n`);
  rmSync(staging, { recursive: true, force: true });
  process.exit(1);
}
const old = `${out}.${process.pid}.old`;
try {
  renameSync(out, old);
} catch {
  // no bundle yet
}
renameSync(staging, out);
rmSync(old, { recursive: true, force: true });
