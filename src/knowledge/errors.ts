/**
 * Knowledge failures that cross a boundary carry a code from one closed set, so callers (the CLI,
 * the tools, the doctor) decide by class and never by message text.
 */
import { FiskError } from '../errors/fisk-error.js';
import type { ErrorCategory } from '../errors/fisk-error.js';
export const KNOWLEDGE_ERROR_CODES = [
  'locked', // another writer holds the store's lock
  'symlink', // a symlink sits where the store keeps a file
  'format_too_new', // the file was written by a newer format
  'format_too_old', // the file was written by an older format or has a different shape
  'vector_mismatch', // the pinned embedding identity differs from the configured one
  'dimension_mismatch', // the live model answers with a different dimension than the index holds
  'embeddings', // the embeddings server failed or answered malformed data
  'missing_key', // the variable api_key_env names is not set
  'no_fts5', // this SQLite build has no FTS5
  'bad_query', // a query the language refuses (OR, NEAR, a trailing *)
  'bad_citation', // a citation that is not `<path>#<ordinal>`
  'bad_questions', // an evaluation's questions file that is not `question<TAB>path|path` lines
  'not_built', // an operation that needs a built index found none
  'io', // a file or directory could not be read or written
  'fulltext_incomplete', // a first build stopped before its full-text tables were filled
  'damaged', // SQLite cannot read the file: not a database, or a page it holds is corrupt
] as const;
export type KnowledgeErrorCode = (typeof KNOWLEDGE_ERROR_CODES)[number];

/** The one error class of the knowledge module. The message names what to change. */
export class KnowledgeError extends FiskError<KnowledgeErrorCode> {
  constructor(code: KnowledgeErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'KnowledgeError';
  }

  /** An embedding identity that disagrees with the file is the operator's to change; a refused query is the caller's. */
  get category(): ErrorCategory {
    switch (this.code) {
      case 'vector_mismatch':
      case 'dimension_mismatch':
      case 'missing_key':
        return 'configuration';
      case 'bad_query':
      case 'bad_citation':
      case 'bad_questions':
        return 'usage';
      default:
        return 'runtime';
    }
  }
}

/** Whether SQLite refused a file as damaged: not a database at all, or a page it cannot make sense of. */
export function isDamagedDatabase(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' && (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'));
}

/**
 * `err` as the knowledge error a person can act on when SQLite found the index at `path` damaged;
 * any other error as it is. The index is derived from files, so the remedy is to build it again.
 */
export function damagedIndex(path: string, err: unknown): unknown {
  if (!isDamagedDatabase(err)) return err;
  const why = err instanceof Error ? err.message : String(err);
  return new KnowledgeError(
    'damaged',
    `the knowledge index ${path} is damaged (${why}); it is made from your files, so build it again: fisk knowledge reset --force, then fisk knowledge index`,
    { cause: err },
  );
}

/** Whether an unknown value is a KnowledgeError with the given code. */
export function isKnowledgeError(err: unknown, code?: KnowledgeErrorCode): err is KnowledgeError {
  return err instanceof KnowledgeError && (code === undefined || err.code === code);
}
