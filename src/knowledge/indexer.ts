import type { Database as Db, Statement } from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { chunkMarkdown, DEFAULT_CHUNK_CHARS } from './chunker.js';
import type { Chunk } from './chunker.js';
import type { EmbeddingsClient } from './embeddings.js';
import { KnowledgeError } from './errors.js';
import { identityDifference, readIdentity, writeIdentity } from './identity.js';
import type { VectorIdentity, VectorSettings } from './identity.js';
import { chunkIdOf, chunkIdsCarryDocument, createVectorSchema, dropVectorSchema, INSERT_FTS_SQL } from './schema.js';
import { fillGap, markIncomplete } from './fulltext.js';
import type { FullTextTable } from './fulltext.js';
import { walkRoots } from './walk.js';
import type { SkippedFile, WalkedFile } from './walk.js';
import { counted } from '../util/count.js';

/** Which stored documents a pass may remove when their file is gone. */
export const PRUNE_SCOPES = ['none', 'under_roots', 'all'] as const;
export type PruneScope = (typeof PRUNE_SCOPES)[number];

/** The vector tier an index pass uses: a client and the configured identity fields. */
export interface VectorTier {
  readonly client: EmbeddingsClient;
  readonly settings: VectorSettings;
}

/** Progress of a pass, reported after each file. */
export interface IndexProgress {
  readonly filesDone: number;
  readonly filesTotal: number;
  readonly chunks: number;
  readonly bytes: number;
}

/** What an index pass needs. */
export interface IndexOptions {
  readonly roots: readonly string[];
  readonly cwd: string;
  /** Directories never walked: the store's own, a sibling memory directory. */
  readonly excludeDirs: readonly string[];
  /** File-name endings to index (lower case, with the dot); documentation text by default. */
  readonly extensions?: readonly string[];
  /** Re-process files whose hash is unchanged (and re-embed them). */
  readonly reindex?: boolean;
  /** Count what would change and write nothing. */
  readonly dryRun?: boolean;
  readonly prune?: PruneScope;
  readonly vector?: VectorTier | undefined;
  readonly maxChunkChars?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: IndexProgress) => void;
  /** Notes worth showing an operator (a first full embedding build). */
  readonly onNote?: (note: string) => void;
  /**
   * The store is a bulk build's side file (`WriterStore.bulk`), which no reader sees before the
   * pass ends: both full-text tables are then built in one pass each at the end.
   */
  readonly bulk?: boolean;
}

/** What a pass did (or, for a dry run, would do). */
export interface IndexResult {
  readonly added: number;
  readonly updated: number;
  /** Files whose content hash matched and were left as they were. */
  readonly unchanged: number;
  readonly removed: number;
  readonly files: number;
  readonly chunks: number;
  readonly embeddings: number;
  readonly skipped: readonly SkippedFile[];
  readonly canceled: boolean;
  readonly dryRun: boolean;
  /** Why reconciliation did not run although it was asked for, if so. */
  readonly pruneSkipped?: string;
}

interface StoredDoc {
  readonly id: number;
  readonly hash: string;
  readonly chunks: number;
}

interface Prepared {
  readonly file: WalkedFile;
  readonly hash: string;
  readonly title: string;
  readonly chunks: readonly Chunk[];
  readonly existing: StoredDoc | undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decode(buf: Buffer): string | undefined {
  try {
    const text = utf8.decode(buf);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch {
    return undefined;
  }
}

function loadStored(db: Db | undefined): Map<string, StoredDoc> {
  const out = new Map<string, StoredDoc>();
  if (db === undefined) return out;
  const rows = db
    .prepare(
      'SELECT d.id AS id, d.path AS path, d.hash AS hash, (SELECT count(*) FROM chunks c WHERE c.document_id = d.id) AS n FROM documents d',
    )
    .all() as { id: number; path: string; hash: string; n: number }[];
  for (const r of rows) out.set(r.path, { id: r.id, hash: r.hash, chunks: r.n });
  return out;
}

function underKey(key: string, root: string): boolean {
  return root === '' || key === root || key.startsWith(root.endsWith('/') ? root : `${root}/`);
}

/** Fills `{title}` in a document prefix with the chunk's breadcrumb, or `none` without one. */
export function documentInput(prefix: string, chunk: Chunk): string {
  return `${prefix.replaceAll('{title}', chunk.headingPath === '' ? 'none' : chunk.headingPath)}${chunk.content}`;
}

/**
 * Decides the vector tier before anything is written: probes the live model and reconciles it with
 * the pinned identity. An unreachable server fails here, leaving the index whole. Returns the
 * identity to pin and whether the vector table must be recreated.
 */
async function planVectors(
  db: Db | undefined,
  vector: VectorTier | undefined,
  reindex: boolean,
  signal: AbortSignal,
  docCount: number,
): Promise<{ identity: VectorIdentity | undefined; recreate: boolean; clear: boolean }> {
  const pinned = db === undefined ? undefined : readIdentity(db);
  if (vector === undefined) {
    if (pinned !== undefined && !reindex) {
      throw new KnowledgeError(
        'vector_mismatch',
        `the knowledge index holds vectors from model ${JSON.stringify(pinned.model)}, but harness.knowledge.embeddings is not configured; restore the embeddings block, or run 'fisk knowledge index --reindex' to rebuild it lexical-only`,
      );
    }
    return { identity: undefined, recreate: false, clear: pinned !== undefined };
  }
  const probe = await vector.client.probe(signal);
  const identity: VectorIdentity = { ...vector.settings, dimension: probe.dimension, normalized: probe.normalized };
  if (pinned === undefined) {
    if (docCount > 0 && !reindex) {
      throw new KnowledgeError(
        'vector_mismatch',
        "the knowledge index was built without embeddings; run 'fisk knowledge index --reindex' to embed every document",
      );
    }
    return { identity, recreate: true, clear: false };
  }
  const diff =
    identityDifference(pinned, vector.settings) ??
    (pinned.dimension !== identity.dimension ? `dimension ${pinned.dimension} (the model now answers ${identity.dimension})` : undefined) ??
    (pinned.normalized !== identity.normalized ? 'normalization' : undefined);
  if (diff === undefined) return { identity, recreate: false, clear: false };
  if (!reindex) {
    throw new KnowledgeError(
      'vector_mismatch',
      `the knowledge index was embedded with a different ${diff}; run 'fisk knowledge index --reindex' to re-embed it`,
    );
  }
  return { identity, recreate: true, clear: false };
}

/** How long a pass runs before it lets signal handlers and timers in. */
const YIELD_MS = 50;

/** Chunks queued before a batch commits: large enough to amortize FTS5's per-commit flush. */
const BATCH_CHUNKS = 2000;
/** Bytes of chunk text queued before a batch commits, bounding memory and transaction length. */
const BATCH_BYTES = 4 * 1024 * 1024;

/**
 * Replaces documents. Each document's old chunks are deleted and its new ones inserted inside one
 * transaction, so no reader ever sees half a document; several documents share a transaction,
 * because every commit makes FTS5 write a new index segment and committing per file made a full
 * build four times slower. A batch is built completely before its transaction opens and commits
 * synchronously, so a write transaction never spans an embeddings call or a file read.
 */
class Writer {
  readonly #insertDoc: Statement;
  readonly #updateDoc: Statement;
  readonly #deleteChunks: Statement;
  readonly #insertChunk: Statement;
  readonly #insertFts: Statement;
  readonly #insertExact: Statement;
  readonly #insertVec: Statement | undefined;
  readonly #deleteDoc: Statement;
  readonly #commit: (batch: readonly { p: Prepared; vecs: readonly Float32Array[] | undefined }[]) => void;
  #pending: { p: Prepared; vecs: readonly Float32Array[] | undefined }[] = [];
  #pendingChunks = 0;
  #pendingBytes = 0;

  readonly #deferExact: boolean;
  readonly #deferStemmed: boolean;
  /** Whether chunk ids are numbered by document (format 3) rather than in order (format 2). */
  readonly #chunkIds: boolean;

  /**
   * `deferExact`: leave the exact-word table to one pass over all chunks at the end (a first
   * build, where that is cheaper than a second insert per chunk). `deferStemmed`: the stemmed
   * table too (a bulk build, whose file no reader sees before the end).
   */
  constructor(db: Db, vectors: boolean, deferExact: boolean, deferStemmed: boolean) {
    this.#deferExact = deferExact;
    this.#deferStemmed = deferExact && deferStemmed;
    this.#insertDoc = db.prepare('INSERT INTO documents(path, title, mtime, size, hash, indexed_at) VALUES (?, ?, ?, ?, ?, ?)');
    this.#updateDoc = db.prepare('UPDATE documents SET title = ?, mtime = ?, size = ?, hash = ?, indexed_at = ? WHERE id = ?');
    this.#deleteChunks = db.prepare('DELETE FROM chunks WHERE document_id = ?');
    // an index in format 2 keeps numbering its chunks in order; format 3 numbers them by document
    this.#chunkIds = chunkIdsCarryDocument(db);
    this.#insertChunk = this.#chunkIds
      ? db.prepare('INSERT INTO chunks(id, document_id, ordinal, heading_path, content) VALUES (?, ?, ?, ?, ?)')
      : db.prepare('INSERT INTO chunks(document_id, ordinal, heading_path, content) VALUES (?, ?, ?, ?)');
    this.#insertFts = db.prepare(INSERT_FTS_SQL[0]);
    this.#insertExact = db.prepare(INSERT_FTS_SQL[1]);
    this.#insertVec = vectors ? db.prepare('INSERT INTO chunks_vec(chunk_id, embedding) VALUES (?, ?)') : undefined;
    this.#deleteDoc = db.prepare('DELETE FROM documents WHERE id = ?');
    this.#commit = db.transaction((batch: readonly { p: Prepared; vecs: readonly Float32Array[] | undefined }[]) => {
      const now = Math.floor(Date.now() / 1000);
      for (const { p, vecs } of batch) this.#replaceOne(p, vecs, now);
    });
  }

  // deleting the old chunks fires the triggers that clear their FTS and vector rows, so a
  // shrinking file leaves no ghosts
  #replaceOne(p: Prepared, vecs: readonly Float32Array[] | undefined, now: number): void {
    const mtime = Math.floor(p.file.mtimeMs / 1000);
    let id: number;
    if (p.existing !== undefined) {
      id = p.existing.id;
      this.#deleteChunks.run(id);
      this.#updateDoc.run(p.title, mtime, p.file.size, p.hash, now, id);
    } else {
      id = Number(this.#insertDoc.run(p.file.key, p.title, mtime, p.file.size, p.hash, now).lastInsertRowid);
    }
    p.chunks.forEach((c, i) => {
      // the id says which document and where in it: a search reads no chunk row to learn either
      const chunkId = this.#chunkIds
        ? Number(this.#insertChunk.run(chunkIdOf(id, i), id, i, c.headingPath, c.content).lastInsertRowid)
        : Number(this.#insertChunk.run(id, i, c.headingPath, c.content).lastInsertRowid);
      if (!this.#deferStemmed) this.#insertFts.run(chunkId, c.content, c.headingPath);
      if (!this.#deferExact) this.#insertExact.run(chunkId, c.content, c.headingPath);
      const v = vecs?.[i];
      if (this.#insertVec !== undefined && v !== undefined)
        this.#insertVec.run(BigInt(chunkId), Buffer.from(v.buffer, v.byteOffset, v.byteLength));
    });
  }

  /** Queues a document; commits the batch once it is large enough. */
  replace(p: Prepared, vecs: readonly Float32Array[] | undefined): void {
    this.#pending.push({ p, vecs });
    this.#pendingChunks += p.chunks.length;
    for (const c of p.chunks) this.#pendingBytes += c.content.length;
    if (this.#pendingChunks >= BATCH_CHUNKS || this.#pendingBytes >= BATCH_BYTES) this.flush();
  }

  /** Commits every queued document. */
  flush(): void {
    if (this.#pending.length === 0) return;
    const batch = this.#pending;
    this.#pending = [];
    this.#pendingChunks = 0;
    this.#pendingBytes = 0;
    this.#commit(batch);
  }

  /** The full-text tables this writer leaves to the end. */
  deferred(): FullTextTable[] {
    const out: FullTextTable[] = [];
    if (this.#deferStemmed) out.push('chunks_fts');
    if (this.#deferExact) out.push('chunks_exact');
    return out;
  }

  remove(id: number): void {
    this.#deleteDoc.run(id);
  }
}

function fillNote(chunks: number, verb: 'building' | 'completing'): string {
  return `${verb} the full-text index: ${counted(chunks, 'chunk')}`;
}

/**
 * Indexes the roots into an open store (`db` is the writer's connection, or a reader's or
 * `undefined` for a dry run). Unchanged files are skipped by SHA-256 unless `reindex`; each changed
 * document is embedded outside any transaction and then replaced in one short transaction, so a
 * cancellation between files leaves the index consistent. Orphans are removed only when asked and
 * only when the walk saw at least one file, so a failing walk cannot empty the index.
 */
export async function indexCorpus(db: Db | undefined, opts: IndexOptions): Promise<IndexResult> {
  const signal = opts.signal ?? new AbortController().signal;
  const dryRun = opts.dryRun === true;
  const reindex = opts.reindex === true;
  const maxChars = opts.maxChunkChars ?? DEFAULT_CHUNK_CHARS;
  if (!dryRun && db === undefined) throw new KnowledgeError('not_built', 'indexing needs an open writer store');
  // an interrupted first build left full-text tables unfilled: finish them before any chunk changes
  if (!dryRun && db !== undefined && !(await fillGap(db, signal, (n) => opts.onNote?.(fillNote(n, 'completing'))))) {
    return { added: 0, updated: 0, unchanged: 0, removed: 0, files: 0, chunks: 0, embeddings: 0, skipped: [], canceled: true, dryRun };
  }
  const stored = loadStored(db);
  const plan = dryRun
    ? { identity: undefined, recreate: false, clear: false }
    : await planVectors(db, opts.vector, reindex, signal, stored.size);
  const walk = walkRoots(opts.roots, opts.cwd, opts.excludeDirs, opts.extensions);
  const skipped: SkippedFile[] = [...walk.skipped];
  const withVectors = !dryRun && plan.identity !== undefined;

  if (!dryRun && db !== undefined && (plan.recreate || plan.clear)) {
    db.transaction(() => {
      dropVectorSchema(db);
      if (plan.identity !== undefined) createVectorSchema(db, plan.identity.dimension);
      writeIdentity(db, plan.identity);
    })();
  } else if (!dryRun && db !== undefined && plan.identity !== undefined) {
    db.transaction(() => writeIdentity(db, plan.identity))();
  }
  const forceAll = reindex || plan.recreate;
  // a first build into an empty store fills the exact-word table in one pass at the end
  const deferExact = !dryRun && db !== undefined && stored.size === 0;
  const writer = !dryRun && db !== undefined ? new Writer(db, withVectors, deferExact, opts.bulk === true) : undefined;
  const deferred = writer?.deferred() ?? [];
  if (db !== undefined && deferred.length > 0) db.transaction(() => markIncomplete(db, deferred))();

  let added = 0;
  let updated = 0;
  let unchanged = 0;
  let chunks = 0;
  let embeddings = 0;
  let bytes = 0;
  let done = 0;
  let canceled = false;
  const seen = new Set<string>();
  const pending: Prepared[] = [];
  let pendingChunks = 0;

  const prepare = (file: WalkedFile): Prepared | undefined => {
    let buf: Buffer;
    try {
      buf = readFileSync(file.abs);
    } catch {
      skipped.push({ path: file.key, reason: 'unreadable' });
      return undefined;
    }
    bytes += buf.length;
    const hash = createHash('sha256').update(buf).digest('hex');
    const existing = stored.get(file.key);
    seen.add(file.key);
    if (existing !== undefined && existing.hash === hash && !forceAll) {
      unchanged++;
      chunks += existing.chunks;
      return undefined;
    }
    const text = decode(buf);
    if (text === undefined) {
      // a file that turned binary is no longer a source; leave reconciliation to remove it
      seen.delete(file.key);
      skipped.push({ path: file.key, reason: 'not_utf8' });
      return undefined;
    }
    const doc = chunkMarkdown(text, maxChars);
    const title = doc.title !== '' ? doc.title : basename(file.key, extname(file.key));
    return { file, hash, title, chunks: doc.chunks, existing };
  };

  const commit = (p: Prepared, vecs: readonly Float32Array[] | undefined): void => {
    if (p.existing === undefined) added++;
    else updated++;
    chunks += p.chunks.length;
    if (writer !== undefined) writer.replace(p, vecs);
  };

  const drain = async (): Promise<void> => {
    if (pending.length === 0) return;
    const batch = pending.splice(0, pending.length);
    pendingChunks = 0;
    if (!withVectors || opts.vector === undefined || plan.identity === undefined) {
      for (const p of batch) commit(p, undefined);
      return;
    }
    const prefix = plan.identity.documentPrefix;
    const inputs = batch.flatMap((p) => p.chunks.map((c) => documentInput(prefix, c)));
    const vectors = await opts.vector.client.embed(inputs, signal);
    let at = 0;
    for (const p of batch) {
      const vecs = vectors.slice(at, at + p.chunks.length);
      at += p.chunks.length;
      embeddings += vecs.length;
      commit(p, vecs);
    }
  };

  if (withVectors && (forceAll || stored.size === 0) && !dryRun) {
    let chunkCount = 0;
    for (const walked of walk.files) {
      try {
        const text = decode(readFileSync(walked.abs));
        if (text !== undefined) chunkCount += chunkMarkdown(text, maxChars).chunks.length;
      } catch {
        // counted as skipped in the pass itself
      }
    }
    opts.onNote?.(
      `first full build: about to embed ${counted(chunkCount, 'chunk')} across ${counted(walk.files.length, 'file')}; run with --dry-run to preview`,
    );
  }

  // a lexical pass never waits on I/O, so it gives the event loop a turn now and then: that is
  // when a Ctrl-C handler can run and abort the signal checked between files
  let turnAt = Date.now();
  try {
    for (const file of walk.files) {
      if (Date.now() - turnAt >= YIELD_MS) {
        await nextTurn();
        turnAt = Date.now();
      }
      if (signal.aborted) {
        canceled = true;
        break;
      }
      const prepared = prepare(file);
      if (prepared !== undefined) {
        if (withVectors) {
          pending.push(prepared);
          pendingChunks += prepared.chunks.length;
          if (pendingChunks >= 64) {
            try {
              await drain();
            } catch (err) {
              // Ctrl-C during an embeddings call: a cancellation, not a failure
              if (!signal.aborted) throw err;
              canceled = true;
              break;
            }
          }
        } else {
          commit(prepared, undefined);
        }
      }
      done++;
      opts.onProgress?.({ filesDone: done, filesTotal: walk.files.length, chunks, bytes });
    }
    if (!canceled) {
      try {
        await drain();
      } catch (err) {
        if (!signal.aborted) throw err;
        canceled = true;
      }
    }
  } finally {
    // queued documents are complete: commit them even when the pass stops early
    writer?.flush();
  }
  // the deferred tables are filled in short steps a Ctrl-C can stop; a stopped fill is resumed by
  // the next writer, and until then the marker keeps every deleting path away
  if (!canceled && db !== undefined && deferred.length > 0 && !(await fillGap(db, signal, (n) => opts.onNote?.(fillNote(n, 'building')))))
    canceled = true;

  let removed = 0;
  let pruneSkipped: string | undefined;
  const scope = opts.prune ?? 'none';
  if (scope !== 'none' && !canceled) {
    if (walk.files.length === 0) {
      pruneSkipped = 'the walk found no files, so nothing was removed (an unreadable root must not empty the index)';
    } else {
      const orphans = [...stored].filter(([key]) => !seen.has(key) && (scope === 'all' || walk.rootKeys.some((r) => underKey(key, r))));
      removed = orphans.length;
      if (writer !== undefined && db !== undefined && orphans.length > 0)
        db.transaction(() => orphans.forEach(([, doc]) => writer.remove(doc.id)))();
    }
  }
  const result: IndexResult = {
    added,
    updated,
    unchanged,
    removed,
    files: added + updated + unchanged,
    chunks,
    embeddings,
    skipped,
    canceled,
    dryRun,
  };
  return pruneSkipped === undefined ? result : { ...result, pruneSkipped };
}
