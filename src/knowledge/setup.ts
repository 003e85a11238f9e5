import type { EmbeddingsConfig } from '../config/index.js';
import { EmbeddingsClient } from './embeddings.js';
import { KnowledgeError } from './errors.js';
import { readIdentity, requireCompatibleIdentity } from './identity.js';
import type { VectorSettings } from './identity.js';
import type { KnowledgeReader } from './store.js';
import { resolveStoreDir } from './store-files.js';

/** The few configured values knowledge needs: `harness.knowledge.directory` and `.embeddings`. */
export interface KnowledgeSettings {
  readonly directory: string;
  readonly embeddings: EmbeddingsConfig | undefined;
}

/** Resolved runtime pieces: where the store lives and the vector tier, when configured. */
export interface KnowledgeSetup {
  readonly storeDir: string;
  readonly vector: { readonly client: EmbeddingsClient; readonly settings: VectorSettings } | undefined;
}

/**
 * Resolves the store directory (relative to an absolute store base, else `cwd`) and builds the
 * embeddings client. The bearer token is read from the variable `api_key_env` names; a named but
 * unset variable is refused rather than sending an unauthenticated request.
 */
export function knowledgeSetup(
  settings: KnowledgeSettings,
  where: { readonly cwd: string; readonly storeBase?: string | undefined; readonly env: Readonly<Record<string, string | undefined>> },
): KnowledgeSetup {
  const storeDir = resolveStoreDir(settings.directory, where.cwd, where.storeBase);
  const e = settings.embeddings;
  if (e === undefined) return { storeDir, vector: undefined };
  let apiKey: string | undefined;
  if (e.apiKeyEnv !== undefined) {
    apiKey = where.env[e.apiKeyEnv];
    if (apiKey === undefined || apiKey === '') {
      throw new KnowledgeError(
        'missing_key',
        `harness.knowledge.embeddings.api_key_env names ${e.apiKeyEnv}, which is not set; export it or remove api_key_env`,
      );
    }
  }
  const client = new EmbeddingsClient({ baseUrl: e.baseUrl, model: e.model, apiKey, timeoutMs: e.timeout.ms });
  return { storeDir, vector: { client, settings: { model: e.model, queryPrefix: e.queryPrefix, documentPrefix: e.documentPrefix } } };
}

/**
 * The startup check for a run: applies the format gate and, when the index is built, refuses one
 * whose pinned vector identity does not match the configuration, so a stale index stops the run
 * before the model is contacted rather than failing its first search.
 */
export function verifyStore(reader: KnowledgeReader, vector: KnowledgeSetup['vector']): void {
  const db = reader.handle();
  if (db === undefined) return;
  requireCompatibleIdentity(readIdentity(db), vector?.settings, reader.path);
}
