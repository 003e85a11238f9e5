/** docs/architecture.md describes the tree as it is: every folder under src/ is in the layer table, and none that is missing. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
const table = doc.split('\n').filter((l) => /^\| (root|shared renderers|middle|libraries|leaves|ground)\b/.test(l));

/** Each row's folders: `top/` and, in "(+ `sub/`, `sub/deeper/`)" groups, the sub-folders of the one before. */
function listed(): string[] {
  const out: string[] = [];
  for (const row of table) {
    const folders = row.split('|')[2] ?? '';
    let top = '';
    for (const m of folders.matchAll(/(\(\+ )?`([a-z0-9-]+(?:\/[a-z0-9-]+)*)\/`/g)) {
      const name = m[2] ?? '';
      const nested = m.index !== undefined && /\(\+ [^)]*$/.test(folders.slice(0, m.index + (m[1]?.length ?? 0)));
      if (nested || m[1] !== undefined) out.push(`${top}/${name}`);
      else {
        top = name;
        out.push(name);
      }
    }
  }
  return out;
}

function folders(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => [prefix + e.name, ...folders(join(dir, e.name), `${prefix}${e.name}/`)]);
}

describe('docs/architecture.md', () => {
  it('lists every folder under src/ in the layer table, and only folders that exist', () => {
    expect(table).toHaveLength(6);
    const named = listed();
    expect(named.filter((f) => !existsSync(join(ROOT, 'src', f)))).toEqual([]);
    expect(folders(join(ROOT, 'src')).filter((f) => !named.includes(f))).toEqual([]);
  });
});
