// The documentation files under a directory that the knowledge benchmarks index: names matching
// `ext`, at most 512 KiB each, dot entries and symlinks left out, in a stable order, as paths
// relative to the directory; at most `limit` of them. Over node_modules, the packages in
// `LATER_PACKAGES` are left out: development tools installed after the benchmarks' corpus and
// questions were fixed, so adding a tool to the repository does not change what is measured.
import { lstatSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

export const LATER_PACKAGES = Object.freeze([
  '@fisk-ai',
  '@microsoft/api-extractor',
  '@microsoft/api-extractor-model',
  '@microsoft/tsdoc',
  '@microsoft/tsdoc-config',
  '@rushstack',
  '@types/argparse',
  'ajv-draft-04',
  'argparse',
  'fs-extra',
  'import-lazy',
  'jju',
  'jsonfile',
  'prettier',
  'source-map',
  'sprintf-js',
  'string-argv',
  'universalify',
]);

export function listDocs(dir, { ext, limit = Number.POSITIVE_INFINITY, skip = dir.endsWith('node_modules') ? LATER_PACKAGES : [] }) {
  const out = [];
  const left = new Set(skip.map((p) => join(dir, p)));
  const walk = (abs) => {
    for (const name of readdirSync(abs).sort()) {
      if (out.length >= limit) return;
      if (name.startsWith('.')) continue;
      const child = join(abs, name);
      if (left.has(child)) continue;
      const st = lstatSync(child);
      if (st.isDirectory()) walk(child);
      else if (st.isFile() && ext.test(name) && st.size <= 512 * 1024) out.push(relative(dir, child));
    }
  };
  walk(dir);
  return out;
}
