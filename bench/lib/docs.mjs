// The documentation files under a directory that the knowledge benchmarks index: names matching
// `ext`, at most 512 KiB each, dot entries and symlinks left out, in a stable order, as paths
// relative to the directory; at most `limit` of them.
import { lstatSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

export function listDocs(dir, { ext, limit = Number.POSITIVE_INFINITY }) {
  const out = [];
  const walk = (abs) => {
    for (const name of readdirSync(abs).sort()) {
      if (out.length >= limit) return;
      if (name.startsWith('.')) continue;
      const child = join(abs, name);
      const st = lstatSync(child);
      if (st.isDirectory()) walk(child);
      else if (st.isFile() && ext.test(name) && st.size <= 512 * 1024) out.push(relative(dir, child));
    }
  };
  walk(dir);
  return out;
}
