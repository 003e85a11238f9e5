/**
 * The built program the end-to-end tests drive, made at most once per test run: the first test
 * file that finds `dist/` older than the sources it ships builds it, and every other file (in
 * every worker) waits for that build instead of starting its own or spawning a half-written
 * bundle. A change to a test file alone (`*.test.ts`, which the build leaves out) builds nothing.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The program the package installs as `fisk`: the bundle `npm run build` writes. */
export const MAIN = join(ROOT, 'dist/bin/fisk.cjs');

/** How long a build may take on a loaded machine before a waiting file gives up on it. */
const BUILD_LIMIT_MS = 10 * 60_000;

/** The newest modification time of the shipped sources under `path` (tests are not shipped). */
function newestSource(path: string): number {
  const entry = statSync(path);
  if (!entry.isDirectory()) return path.endsWith('.test.ts') ? 0 : entry.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestSource(join(path, name))));
}

/** Whether the bundle (and `also`, when given) is at least as new as the sources under `sources`. */
function fresh(sources: readonly string[], also: readonly string[]): boolean {
  if (!existsSync(MAIN) || also.some((file) => !existsSync(join(ROOT, file)))) return false;
  const newest = Math.max(...sources.map((path) => newestSource(join(ROOT, path))));
  return statSync(MAIN).mtimeMs >= newest;
}

/** A lock per checkout, shared by every worker of every run: a directory, made or not in one step. */
const LOCK = join(tmpdir(), `fisk-test-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}`);

function takeLock(): boolean {
  try {
    mkdirSync(LOCK);
    writeFileSync(join(LOCK, 'pid'), String(process.pid));
    return true;
  } catch {
    return false;
  }
}

/** A lock whose builder died (its pid is gone) is no lock. */
function lockAbandoned(): boolean {
  try {
    // a lock just made may not hold its pid yet: that reads as ENOENT, which is not ESRCH
    process.kill(Number(readFileSync(join(LOCK, 'pid'), 'utf8')), 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function build(): void {
  // the workspace package first: fisk-ai's build reads its declarations
  for (const project of ['packages/app/tsconfig.build.json', 'tsconfig.build.json']) {
    try {
      execFileSync('npx', ['tsc', '-p', project], { cwd: ROOT, stdio: 'pipe' });
    } catch {
      // type errors elsewhere in the tree still emit JavaScript; a missing entry point is the real failure
    }
  }
  execFileSync(process.execPath, ['scripts/bundle-cli.mjs'], { cwd: ROOT, stdio: 'pipe' });
  if (!existsSync(MAIN)) throw new Error('dist/bin/fisk.cjs is missing; run npm run build');
}

/** Sleeps the worker without a timer: the callers are synchronous `beforeAll` steps. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Builds `dist/` (the app package's first) and the bundled program when they are missing or older than the shipped sources
 * under `sources` (paths from the repository root), or when a file in `also` is missing; waits
 * for a build another test file started.
 */
export function ensureBuilt(sources: readonly string[] = ['src', 'packages/app/src'], also: readonly string[] = []): void {
  // synchronous, as its callers are: a bounded wait on the other file's build, not a poll for a test's condition
  const deadline = Date.now() + BUILD_LIMIT_MS;
  while (!fresh(sources, also)) {
    if (takeLock()) {
      try {
        if (!fresh(sources, also)) build();
      } finally {
        rmSync(LOCK, { recursive: true, force: true });
      }
      return;
    }
    if (lockAbandoned()) rmSync(LOCK, { recursive: true, force: true });
    if (Date.now() > deadline)
      throw new Error(`gave up after ${BUILD_LIMIT_MS} ms waiting for another test file's build of dist/ (lock ${LOCK})`);
    pause(200);
  }
}
