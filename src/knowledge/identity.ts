import type { Database, Statement } from 'better-sqlite3';
import { KnowledgeError } from './errors.js';

/**
 * What the vectors in an index were made with. Any difference between the pinned identity and the
 * configured one makes stored vectors incomparable with new ones, so it is pinned and compared.
 */
export interface VectorIdentity {
  readonly model: string;
  readonly dimension: number;
  /** Whether the server's own vectors arrived unit-length (fisk normalizes either way). */
  readonly normalized: boolean;
  readonly queryPrefix: string;
  readonly documentPrefix: string;
}

/** The configured side of the identity, before the live dimension is known. */
export interface VectorSettings {
  readonly model: string;
  readonly queryPrefix: string;
  readonly documentPrefix: string;
}

const KEYS = ['model', 'dimension', 'normalized', 'query_prefix', 'document_prefix'] as const;

// compiled once per connection: every search reads the identity
const reading = new WeakMap<Database, Statement>();

/** Reads the pinned identity; `undefined` for a lexical-only index. */
export function readIdentity(db: Database): VectorIdentity | undefined {
  let st = reading.get(db);
  if (st === undefined) {
    st = db.prepare(`SELECT key, value FROM knowledge_meta`);
    reading.set(db, st);
  }
  const rows = st.all() as { key: string; value: string }[];
  const m = new Map(rows.map((r) => [r.key, r.value]));
  const model = m.get('model');
  if (model === undefined || model === '') return undefined;
  return {
    model,
    dimension: Number(m.get('dimension') ?? '0'),
    normalized: m.get('normalized') === 'true',
    queryPrefix: m.get('query_prefix') ?? '',
    documentPrefix: m.get('document_prefix') ?? '',
  };
}

/** Pins an identity, or clears it for a lexical-only index, on the caller's transaction. */
export function writeIdentity(db: Database, identity: VectorIdentity | undefined): void {
  const del = db.prepare('DELETE FROM knowledge_meta WHERE key = ?');
  for (const k of KEYS) del.run(k);
  if (identity === undefined) return;
  const put = db.prepare('INSERT INTO knowledge_meta(key, value) VALUES (?, ?)');
  put.run('model', identity.model);
  put.run('dimension', String(identity.dimension));
  put.run('normalized', identity.normalized ? 'true' : 'false');
  put.run('query_prefix', identity.queryPrefix);
  put.run('document_prefix', identity.documentPrefix);
}

/** The first configured field that differs from the pinned identity, or `undefined` when none does. */
export function identityDifference(pinned: VectorIdentity, want: VectorSettings): string | undefined {
  if (pinned.model !== want.model) return `model ${JSON.stringify(pinned.model)} (configured ${JSON.stringify(want.model)})`;
  if (pinned.queryPrefix !== want.queryPrefix) return 'query_prefix';
  if (pinned.documentPrefix !== want.documentPrefix) return 'document_prefix';
  return undefined;
}

/**
 * The read-side reconciliation: with embeddings configured, an index built without vectors or with
 * another model or prefix cannot answer a hybrid query correctly, so it is refused up front.
 */
export function requireCompatibleIdentity(pinned: VectorIdentity | undefined, want: VectorSettings | undefined, path: string): void {
  if (want === undefined) return;
  if (pinned === undefined) {
    throw new KnowledgeError(
      'vector_mismatch',
      `the knowledge index ${path} was built without embeddings, but harness.knowledge.embeddings is configured; run 'fisk knowledge index --reindex' to embed it`,
    );
  }
  const diff = identityDifference(pinned, want);
  if (diff !== undefined) {
    throw new KnowledgeError(
      'vector_mismatch',
      `the knowledge index ${path} was embedded with a different ${diff}; run 'fisk knowledge index --reindex', or restore harness.knowledge.embeddings to match`,
    );
  }
}
