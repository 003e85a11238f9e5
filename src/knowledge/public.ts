/**
 * Knowledge as the package offers it to embedders: a reader over a built store, search and
 * enumeration over it, and the error they throw. Building the store is `fisk knowledge index`.
 * Code inside the tree imports `index.ts`.
 */
export { KnowledgeError, KnowledgeReader, search, enumerate } from './index.js';
export type {
  KnowledgeErrorCode,
  SearchHit,
  SearchOptions,
  SearchResult,
  SearchStatus,
  SearchVector,
  EnumerateResult,
  EnumerateStatus,
  EnumTerm,
  MatchedDocument,
  TermReport,
  TermScope,
} from './index.js';
export type { EmbeddingsClient, EmbeddingsOptions, EmbedFailure, ProbeResult } from './embeddings.js';
export type { Tier } from './tier.js';
export type { VectorIdentity, VectorSettings } from './identity.js';
export type { RunKnowledge, RunKnowledgeContext } from './run-knowledge.js';
// the closed vocabularies the types above are drawn from, as types only
export type { KNOWLEDGE_ERROR_CODES, ENUMERATE_STATUSES, SEARCH_STATUSES, TERM_SCOPES } from './index.js';
export type { DegradeStep, DEGRADE_STEPS } from './tier.js';
export type { EMBED_FAILURES } from './embeddings.js';
