// Bundles bare-sdk-min.mjs into one CommonJS file, main.cjs, in the directory given as the
// argument, beside fisk's own launcher (fisk.cjs, the text the build writes as dist/bin/fisk.cjs),
// so the floor starts exactly the way fisk's program does. The code cache is written by a first
// run with FISK_CODE_CACHE_WRITE=1, as the build writes fisk's.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';
import { LAUNCHER } from '../../scripts/fisk-launcher.mjs';

const dir = process.argv[2];
if (dir === undefined) throw new Error('usage: node bench/run/bundle-bare-sdk-min.mjs <directory to write the bundle in>');
await build({
  input: { main: join(dirname(fileURLToPath(import.meta.url)), 'bare-sdk-min.mjs') },
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
// the launcher uses the cache only where its directory exists (the build makes it the same way)
mkdirSync(join(dir, 'cache'), { recursive: true });
writeFileSync(join(dir, 'fisk.cjs'), LAUNCHER);
