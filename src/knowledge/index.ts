/**
 * Knowledge: the operator's corpus in one SQLite file, searched lexically (FTS5 BM25) and, when
 * embeddings are configured, by vectors fused with reciprocal rank fusion. Enumeration answers set
 * membership across chunks; status values never let an absence read as a result. The library
 * returns values; the `fisk knowledge` command decides what to print.
 */
export { KnowledgeError, KNOWLEDGE_ERROR_CODES, isKnowledgeError } from './errors.js';
export type { KnowledgeErrorCode } from './errors.js';
export { openWriter, KnowledgeReader, BUILD_FILE } from './store.js';
export type { WriterOptions, WriterStore } from './store.js';
export { resolveStoreDir, DB_FILE, LOCK_FILE } from './store-files.js';
export { FORMAT_VERSION } from './schema.js';
export type { VectorIdentity, VectorSettings } from './identity.js';
export { chunkMarkdown, DEFAULT_CHUNK_CHARS, HEADING_SEPARATOR } from './chunker.js';
export type { Chunk, ChunkedDocument } from './chunker.js';
export { EmbeddingsClient, EmbeddingsError, EMBED_FAILURES } from './embeddings.js';
export type { EmbeddingsOptions, EmbedFailure, ProbeResult } from './embeddings.js';
export { indexCorpus, PRUNE_SCOPES } from './indexer.js';
export type { IndexOptions, IndexProgress, IndexResult, PruneScope, VectorTier } from './indexer.js';
export { MAX_FILE_BYTES, SKIP_REASONS, DEFAULT_EXTENSIONS, isDocumentName } from './walk.js';
export type { SkipReason, SkippedFile } from './walk.js';
export { freeTextQuery, MAX_QUERY_TERMS } from './query.js';
export type { FreeTextQuery } from './query.js';
export {
  search,
  fuse,
  fuseWeighted,
  fuseWithLexicalHead,
  SEARCH_STATUSES,
  CANDIDATES,
  RRF_K,
  FUSE_K,
  VECTOR_WEIGHT,
  LEXICAL_HEAD,
} from './search.js';
export { rankDocuments, STOP_WORDS, isStopWord, isChangeLog } from './rank.js';
export type { RankedDocument } from './rank.js';
export type { SearchHit, SearchOptions, SearchResult, SearchStatus, SearchVector } from './search.js';
export { tierLine, tierText, configuredTier, DEGRADE_STEPS } from './tier.js';
export type { DegradeStep, Tier } from './tier.js';
export { enumerate, parseEnumQuery, ENUMERATE_STATUSES, TERM_SCOPES } from './enumerate.js';
export type { EnumerateResult, EnumerateStatus, EnumTerm, MatchedDocument, TermReport, TermScope } from './enumerate.js';
export { formatCitation, parseCitation, citationMapper, headingAnchor } from './citation.js';
export type { Citation, CitationMapper, CitationRuleInput } from './citation.js';
export { chunkAt, sectionAt, documentChunks } from './read.js';
export type { StoredChunk } from './read.js';
export {
  storeStats,
  listSources,
  removeSources,
  checkIntegrity,
  rebuildIndexes,
  resetStore,
  vocabulary,
  CHECK_STATES,
} from './maintenance.js';
export type { CheckState, IntegrityItem, Removal, ResetResult, Source, StoreStats, VocabEntry } from './maintenance.js';
export { runDoctor } from './doctor.js';
export type { DoctorCheck, DoctorReport } from './doctor.js';
export { startWatch } from './watch.js';
export type { WatchEvents, WatchOptions, Watcher } from './watch.js';
export { knowledgeSetup, verifyStore } from './setup.js';
export type { KnowledgeSetup, KnowledgeSettings } from './setup.js';
export {
  knowledgeTools,
  knowledgeSystemNote,
  exposureWarning,
  KNOWLEDGE_TOOL_NAMES,
  KNOWLEDGE_MCP_EXPOSABLE,
  CHARS_PER_TOKEN,
} from './tools.js';
export type { KnowledgeToolName, KnowledgeToolsOptions } from './tools.js';
export { fence, cleanText, DATA_TAG } from './fence.js';
export { prepareRunKnowledge, knowledgeToolsForListing } from './run-knowledge.js';
export type { RunKnowledge, RunKnowledgeContext } from './run-knowledge.js';
export { evaluateQuestions, parseQuestions, isAnswer, rankOfFirstAnswer, scoreRanks, EVAL_DEPTH } from './evaluate.js';
export type { EvalOutcome, EvalQuestion, EvalReport, EvalScore, EvaluateOptions } from './evaluate.js';
