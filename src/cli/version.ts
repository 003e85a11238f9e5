import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's package.json fields this file reads. */
interface PackageJson {
  readonly name?: unknown;
  readonly version?: unknown;
}

/**
 * The directory of the fisk-ai package this code runs from: the nearest directory above this
 * module holding fisk-ai's package.json. The compiled modules (dist/cli/...), the bundled program
 * (dist/bin/...) and the sources sit at different depths under it. Undefined when there is none.
 */
export function packageRoot(from: string = fileURLToPath(import.meta.url)): string | undefined {
  for (let dir = dirname(from); ;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
      if (pkg.name === 'fisk-ai') return dir;
    } catch {
      // no package.json here (or not JSON): look one directory up
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** The package version, read from fisk-ai's package.json. */
export function packageVersion(): string {
  const root = packageRoot();
  if (root === undefined) return 'devel';
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;
  return typeof pkg.version === 'string' ? pkg.version : 'devel';
}
