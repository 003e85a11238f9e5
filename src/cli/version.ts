import { readFileSync } from 'node:fs';

/** The package version, read from package.json next to the build. */
export function packageVersion(): string {
  for (const rel of ['../../package.json', '../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'fisk-ai' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // try the next location: the source tree and the build sit at different depths
    }
  }
  return 'devel';
}
