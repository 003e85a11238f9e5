import { lstatSync, readdirSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { DEFAULT_KNOWLEDGE_EXTENSIONS } from '../config/index.js';

/** Files larger than this are skipped: they are rarely prose, and one would crowd out the rest. */
export const MAX_FILE_BYTES = 512 * 1024;

/** Why the walk left something out. Closed, so a report can count by reason. */
export const SKIP_REASONS = ['symlink', 'too_large', 'not_utf8', 'name_not_utf8', 'not_documentation', 'unreadable', 'missing'] as const;
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

/** The stored key of an entry named `name` in the directory whose key is `dirKey`. */
function childKey(dirKey: string, name: string): string {
  return dirKey === '' ? name : dirKey.endsWith('/') ? `${dirKey}${name}` : `${dirKey}/${name}`;
}

/** Whether `path` is `dir` itself or lies under it. */
export function isUnder(path: string, dir: string): boolean {
  if (path === dir) return true;
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/** The file-name endings indexed when none are configured. */
export const DEFAULT_EXTENSIONS: readonly string[] = DEFAULT_KNOWLEDGE_EXTENSIONS;

/**
 * Whether a file name is documentation text the index takes: not a dotfile, and ending in one of
 * the extensions (lower case, with their dot; compared case-insensitively).
 */
export function isDocumentName(name: string, extensions: readonly string[]): boolean {
  if (name.startsWith('.')) return false;
  const lower = name.toLowerCase();
  return extensions.some((e) => lower.endsWith(e) && lower.length > e.length);
}

const utf8Name = new TextDecoder('utf-8', { fatal: true });

/** A file name that is not UTF-8, shown with each byte that is not printable ASCII as `\xNN`. */
export function escapeName(raw: Buffer): string {
  let out = '';
  for (const b of raw) out += b >= 0x20 && b < 0x7f && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`;
  return out;
}

/**
 * Walks the roots depth-first in name order. Takes only documentation files (by extension), and
 * skips dotfiles and dot directories, the excluded directories (the store's own, the agent's memory
 * and session directories), symlinks (a link could lead out of the corpus or into a loop), names
 * that are not UTF-8 (reported as such) and files over 512 KiB. A root that is a file is taken
 * when it passes the same name rules, and reported as skipped otherwise.
 */
export function walkRoots(
  roots: readonly string[],
  cwd: string,
  excludeDirs: readonly string[],
  extensions: readonly string[] = DEFAULT_EXTENSIONS,
): WalkResult {
  const files: WalkedFile[] = [];
  const skipped: SkippedFile[] = [];
  const rootKeys: string[] = [];
  const seen = new Set<string>();
  const excluded = excludeDirs.map((d) => resolve(cwd, d));

  // `key` is the entry's stored key, built up name by name rather than recomputed from its path
  const visit = (abs: string, key: string, st: Stats): void => {
    if (st.isSymbolicLink()) {
      skipped.push({ path: key, reason: 'symlink' });
      return;
    }
    if (st.isDirectory()) {
      // a path under a directory starts with it, so the prefix test spares most of the path arithmetic
      if (excluded.some((d) => abs.startsWith(d) && isUnder(abs, d))) return;
      let raw: Buffer[];
      try {
        raw = readdirSync(abs, { encoding: 'buffer' });
      } catch {
        skipped.push({ path: key, reason: 'unreadable' });
        return;
      }
      const names: string[] = [];
      for (const rawName of raw) {
        try {
          names.push(utf8Name.decode(rawName));
        } catch {
          // a name the system would only give back mangled: say so rather than "unreadable"
          if (rawName[0] !== 0x2e) skipped.push({ path: childKey(key, escapeName(rawName)), reason: 'name_not_utf8' });
        }
      }
      names.sort();
      for (const name of names) {
        // `abs` is already normalized and a listed name holds no separator: joining needs no normalizing
        const child = abs.endsWith(sep) ? `${abs}${name}` : `${abs}${sep}${name}`;
        let cst: Stats;
        try {
          cst = lstatSync(child);
        } catch {
          skipped.push({ path: childKey(key, name), reason: 'unreadable' });
          continue;
        }
        if (name.startsWith('.')) continue;
        if (!cst.isDirectory() && !isDocumentName(name, extensions)) continue;
        visit(child, childKey(key, name), cst);
      }
      return;
    }
    if (!st.isFile()) return;
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
    if (!st.isDirectory() && !st.isSymbolicLink() && !isDocumentName(basename(abs), extensions)) {
      skipped.push({ path: storedKey(abs, cwd, relRoot), reason: 'not_documentation' });
      continue;
    }
    visit(abs, storedKey(abs, cwd, relRoot), st);
  }
  return { files, skipped, rootKeys };
}
