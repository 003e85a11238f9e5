import type { Database as Db } from 'better-sqlite3';
import type { EmbedFailure } from './embeddings.js';
import { readIdentity } from './identity.js';
import type { VectorSettings } from './identity.js';

/** The step of a hybrid search that failed, when it fell back to the lexical tier. */
export const DEGRADE_STEPS = ['embed_query', 'vector_search'] as const;
export type DegradeStep = (typeof DEGRADE_STEPS)[number];

/** Which retrieval tier answered. Every surface prints it through `tierLine`. */
export type Tier =
  | { readonly kind: 'lexical' }
  | { readonly kind: 'hybrid'; readonly model: string; /** Unknown until the index pins it. */ readonly dimension: number | undefined }
  | {
      readonly kind: 'degraded';
      readonly model: string;
      readonly step: DegradeStep;
      readonly failure: EmbedFailure;
      readonly detail: string;
    };

function stepWords(step: DegradeStep): string {
  switch (step) {
    case 'embed_query':
      return 'embedding the query';
    case 'vector_search':
      return 'the vector search';
    default: {
      const never: never = step;
      return never;
    }
  }
}

function failureWords(failure: EmbedFailure): string {
  switch (failure) {
    case 'deadline':
      return 'timed out';
    case 'canceled':
      return 'was canceled';
    case 'failed':
      return 'failed';
    default: {
      const never: never = failure;
      return never;
    }
  }
}

/** The one canonical tier line, the same on the CLI and in logs: `tier: ` and the {@link tierText}. */
export function tierLine(tier: Tier): string {
  return `tier: ${tierText(tier)}`;
}

/** Which tier answered, in words, for a `tier` field (JSON output, tool results) whose name already says it. */
export function tierText(tier: Tier): string {
  switch (tier.kind) {
    case 'lexical':
      return 'lexical (FTS5 BM25)';
    case 'hybrid':
      return `hybrid (FTS5 + vectors, RRF) - model=${tier.model} dimension=${tier.dimension ?? 'unknown (not built yet)'}`;
    case 'degraded':
      return `lexical (degraded from hybrid: ${stepWords(tier.step)} ${failureWords(tier.failure)}: ${tier.detail}) - model=${tier.model}`;
    default: {
      const never: never = tier;
      return never;
    }
  }
}

/** The tier a configuration promises before a query runs (for status lines on empty answers). */
export function configuredTier(db: Db | undefined, vector: { readonly settings: Pick<VectorSettings, 'model'> } | undefined): Tier {
  if (vector === undefined) return { kind: 'lexical' };
  const pinned = db === undefined ? undefined : readIdentity(db);
  return { kind: 'hybrid', model: vector.settings.model, dimension: pinned?.dimension };
}
