// Bundles bare-sdk-min.mjs into one CommonJS file in the directory given as the argument, beside a
// launcher (launch.cjs) that compiles it with V8's code cache, written by its first run as the
// build writes fisk's, so the floor starts the way fisk's program does.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const dir = process.argv[2];
await build({
  input: { bare: join(dirname(fileURLToPath(import.meta.url)), 'bare-sdk-min.mjs') },
  platform: 'node',
  logLevel: 'warn',
  output: {
    dir,
    format: 'cjs',
    entryFileNames: '[name].cjs',
    comments: { legal: true, annotation: true, jsdoc: false },
    codeSplitting: false,
  },
});
const LAUNCHER = `'use strict';
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');
const vm = require('node:vm');
const file = join(__dirname, 'bare.cjs');
const cache = file + '.v8';
const cachedData = existsSync(cache) ? readFileSync(cache) : undefined;
const script = new vm.Script(Module.wrap(readFileSync(file, 'utf8')), { filename: file, cachedData });
const mod = { exports: {} };
script.runInThisContext()(mod.exports, require, mod, file, __dirname);
if (cachedData === undefined || script.cachedDataRejected) process.once('exit', () => writeFileSync(cache, script.createCachedData()));
`;
writeFileSync(join(dir, 'launch.cjs'), LAUNCHER);
