import { lstatSync, readdirSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Files larger than this are skipped: they are rarely prose, and one would crowd out the rest. */
export const MAX_FILE_BYTES = 512 * 1024;

/** Why the walk left something out. Closed, so a report can count by reason. */
export const SKIP_REASONS = ['symlink', 'too_large', 'not_utf8', 'unreadable', 'missing'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** A file the walk will index. */
export interface WalkedFile {
  readonly abs: string;
  /** The stored path: forward slashes, relative to cwd for a relative root, absolute otherwise. */
  readonly key: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/** Something the walk left out, with the reason. */
export interface SkippedFile {
  readonly path: string;
  readonly reason: SkipReason;
}

/** What a walk found. */
export interface WalkResult {
  readonly files: readonly WalkedFile[];
  readonly skipped: readonly SkippedFile[];
  /** The roots' own stored keys, for scoping orphan reconciliation. */
  readonly rootKeys: readonly string[];
}

/** Turns a path into the stored key for a root that was written relative or absolute. */
export function storedKey(abs: string, cwd: string, relativeRoot: boolean): string {
  const p = relativeRoot ? relative(cwd, abs) : abs;
  return sep === '/' ? p : p.split(sep).join('/');
}

/** Whether `path` is `dir` itself or lies under it. */
export function isUnder(path: string, dir: string): boolean {
  if (path === dir) return true;
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * Walks the roots depth-first in name order. Skips dot directories, the excluded directories (the
 * store's own, a sibling memory directory), symlinks (a link could lead out of the corpus or into
 * a loop) and files over 512 KiB. A root that is a file is taken as is.
 */
export function walkRoots(roots: readonly string[], cwd: string, excludeDirs: readonly string[]): WalkResult {
  const files: WalkedFile[] = [];
  const skipped: SkippedFile[] = [];
  const rootKeys: string[] = [];
  const seen = new Set<string>();
  const excluded = excludeDirs.map((d) => resolve(cwd, d));

  const visit = (abs: string, relRoot: boolean, st: Stats): void => {
    if (st.isSymbolicLink()) {
      skipped.push({ path: storedKey(abs, cwd, relRoot), reason: 'symlink' });
      return;
    }
    if (st.isDirectory()) {
      if (excluded.some((d) => isUnder(abs, d))) return;
      let names: string[];
      try {
        names = readdirSync(abs).sort();
      } catch {
        skipped.push({ path: storedKey(abs, cwd, relRoot), reason: 'unreadable' });
        return;
      }
      for (const name of names) {
        const child = join(abs, name);
        let cst: Stats;
        try {
          cst = lstatSync(child);
        } catch {
          skipped.push({ path: storedKey(child, cwd, relRoot), reason: 'unreadable' });
          continue;
        }
        if (name.startsWith('.') && cst.isDirectory()) continue;
        visit(child, relRoot, cst);
      }
      return;
    }
    if (!st.isFile()) return;
    const key = storedKey(abs, cwd, relRoot);
    if (seen.has(key)) return;
    seen.add(key);
    if (st.size > MAX_FILE_BYTES) {
      skipped.push({ path: key, reason: 'too_large' });
      return;
    }
    files.push({ abs, key, size: st.size, mtimeMs: st.mtimeMs });
  };

  for (const root of roots) {
    const relRoot = !isAbsolute(root);
    const abs = resolve(cwd, root);
    rootKeys.push(storedKey(abs, cwd, relRoot));
    let st: Stats;
    try {
      st = lstatSync(abs);
    } catch {
      skipped.push({ path: root, reason: 'missing' });
      continue;
    }
    visit(abs, relRoot, st);
  }
  return { files, skipped, rootKeys };
}
