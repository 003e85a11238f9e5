import { watch } from 'chokidar';
import type { FSWatcher } from 'chokidar';
import { lstatSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { indexCorpus } from './indexer.js';
import type { IndexOptions, IndexResult } from './indexer.js';
import { removeSources } from './maintenance.js';
import type { WriterStore } from './store.js';
import { DEFAULT_EXTENSIONS, isDocumentName, isUnder, storedKey } from './walk.js';

/** What a watcher reports to whoever presents it. */
export interface WatchEvents {
  /** A pass is starting for these stored paths (changed or deleted). */
  onBatch?(paths: readonly string[]): void;
  onResult?(result: IndexResult, removed: number): void;
  onWarning?(message: string): void;
  /** A pass failed; the watcher keeps going and retries on the next change. */
  onError?(err: unknown): void;
}

/** What a watch needs: the roots and exclusions of an index pass, and the debounce time. */
export interface WatchOptions extends Pick<IndexOptions, 'roots' | 'cwd' | 'excludeDirs' | 'extensions' | 'vector' | 'maxChunkChars'> {
  /** Quiet time after the last change before a pass starts. */
  readonly debounceMs: number;
  readonly events?: WatchEvents;
}

/** A running watch; `done` settles once `stop` has closed the watcher and the last pass ended. */
export interface Watcher {
  /** Directories being watched. */
  watchedDirectories(): number;
  stop(): Promise<void>;
  readonly done: Promise<void>;
}

const LIMIT_CODES = new Set(['ENOSPC', 'EMFILE']);

/**
 * Watches the roots and re-indexes changed files into a writer store (whose lock the caller holds
 * for the watcher's lifetime). Indexing runs on its own loop so a long pass never stops event
 * draining; changes arriving during a pass set a dirty flag that yields exactly one follow-up
 * pass. Events under excluded directories (the store's own, whose WAL the pass itself writes) are
 * ignored. A deletion is applied only if the path is still gone when the pass runs, so an
 * editor's atomic save (remove, then rename into place) never drops a live file.
 */
export async function startWatch(store: WriterStore, opts: WatchOptions): Promise<Watcher> {
  const cwd = opts.cwd;
  const excluded = opts.excludeDirs.map((d) => resolve(cwd, d));
  const roots = opts.roots.map((r) => ({ abs: resolve(cwd, r), relative: !isAbsolute(r) }));
  const events = opts.events ?? {};
  const extensions = opts.extensions ?? DEFAULT_EXTENSIONS;
  const changed = new Set<string>();
  const deleted = new Set<string>();
  let dirty = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  let warnedLimit = false;
  const ac = new AbortController();

  const rootOf = (abs: string) => roots.find((r) => isUnder(abs, r.abs));
  const ignored = (p: string): boolean => {
    const abs = resolve(cwd, p);
    if (excluded.some((d) => isUnder(abs, d))) return true;
    const root = rootOf(abs);
    if (root === undefined || abs === root.abs) return false;
    // the walk's own rules: no dot entries, and only documentation files by extension
    const parts = relative(root.abs, abs).split(sep);
    if (parts.some((s) => s.startsWith('.'))) return true;
    return !isDir(abs) && !isDocumentName(basename(abs), extensions);
  };
  const keyOf = (abs: string): string => storedKey(abs, cwd, rootOf(abs)?.relative ?? !isAbsolute(abs));

  const schedule = (): void => {
    dirty = true;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      wake?.();
    }, opts.debounceMs);
  };

  const watcher: FSWatcher = watch(
    roots.map((r) => r.abs),
    { ignoreInitial: true, followSymlinks: false, ignored, persistent: true },
  );
  watcher.on('all', (event, path) => {
    const abs = resolve(cwd, path);
    switch (event) {
      case 'add':
      case 'change':
        changed.add(abs);
        deleted.delete(abs);
        schedule();
        return;
      case 'unlink':
      case 'unlinkDir':
        deleted.add(abs);
        changed.delete(abs);
        schedule();
        return;
      default:
        // addDir carries no content; the files inside arrive as their own add events
        return;
    }
  });
  watcher.on('error', (err: unknown) => {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== undefined && LIMIT_CODES.has(code)) {
      if (warnedLimit) return;
      warnedLimit = true;
      events.onWarning?.(
        `the system ran out of file watches (${code}); some directories are not watched. Raise the kernel limit, e.g. sysctl fs.inotify.max_user_watches=524288 (and fs.inotify.max_user_instances), then restart the watch`,
      );
      return;
    }
    events.onWarning?.(`watch error: ${(err as Error).message}`);
  });
  await new Promise<void>((resolveReady) => watcher.once('ready', () => resolveReady()));

  const pass = async (): Promise<void> => {
    const files = [...changed];
    const gone = [...deleted];
    changed.clear();
    deleted.clear();
    // stat-guard: a path deleted and re-created (an atomic save) is still a live file
    const stillGone = gone.filter((p) => !exists(p));
    const present = [...files, ...gone.filter((p) => exists(p))].filter((p) => exists(p));
    const keys = [...new Set([...present, ...stillGone].map(keyOf))].sort();
    if (keys.length === 0) return;
    events.onBatch?.(keys);
    const result = await indexCorpus(store.db, {
      roots: present.map((p) => (rootOf(p)?.relative === true ? relative(cwd, p) : p)),
      cwd,
      excludeDirs: opts.excludeDirs,
      extensions,
      vector: opts.vector,
      ...(opts.maxChunkChars === undefined ? {} : { maxChunkChars: opts.maxChunkChars }),
      signal: ac.signal,
    });
    // a stopped pass may leave an unfinished full-text fill, which no removal may meet
    const removed = result.canceled ? 0 : removeSources(store, stillGone.map(keyOf)).reduce((n, r) => n + r.removed, 0);
    events.onResult?.(result, removed);
  };

  const loop = async (): Promise<void> => {
    while (!stopped) {
      if (!dirty || timer !== undefined) {
        await new Promise<void>((r) => {
          wake = r;
        });
        wake = undefined;
        continue;
      }
      dirty = false;
      try {
        await pass();
      } catch (err) {
        if (!stopped) events.onError?.(err);
      }
    }
  };
  const done = loop();

  return {
    watchedDirectories: () => Object.keys(watcher.getWatched()).length,
    async stop(): Promise<void> {
      stopped = true;
      ac.abort();
      if (timer !== undefined) clearTimeout(timer);
      wake?.();
      await watcher.close();
      await done;
    },
    done,
  };
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function isDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}
