/** The tool contract, its declared capabilities, and how a run's one tool set is chosen. */
export * from './tool.js';
export { ToolkitError, TOOLKIT_ERROR_CODES } from './errors.js';
export type { ToolkitErrorCode } from './errors.js';
export { TOOL_NAME_PATTERN, isValidToolName } from './names.js';
export { parseToolInput, requiredNames, missingRequired, validateRequired } from './required.js';
export {
  RESERVED_TAGS,
  BEHAVIOR_TAGS,
  KNOWN_AI_TAGS,
  isDenied,
  allowsDefer,
  confirmGateFor,
  unknownAiTags,
  behaviorConflicts,
  resolveBehavior,
  modelDescription,
} from './tags.js';
export type { BehaviorTag } from './tags.js';
export { SOURCE_ORDER, FILTER_REASONS, TOOL_WARNING_CODES, describeSource } from './source.js';
export type { SourceName, FilterReason, FilteredTool, ToolSource, ToolWarning, ToolWarningCode } from './source.js';
export { compileFilters, filterVerdict, applyFilters } from './filter.js';
export type { CompiledFilters, Filterable } from './filter.js';
export { DEFER_THRESHOLD, DEFERRAL_VIA, decideDeferral, deferralPolicy } from './deferral.js';
export type { DeferralPolicy, DeferralDecision, DeferralVia } from './deferral.js';
export {
  TOOL_SEARCH_NAME,
  TOOL_SEARCH_DEFAULT_LIMIT,
  TOOL_SEARCH_MAX_LIMIT,
  TOOL_REACH_MODES,
  SearchableToolSet,
  attachToolSearch,
  deferredNotLoaded,
  notLoadedMessage,
  loadedToolNames,
  loadedFromHistory,
  fingerprintDefinitions,
  describeToolReach,
} from './tool-search.js';
export type { ToolSetPublisher, ToolReach, ToolReachMode } from './tool-search.js';
export { Bm25Index, tokenize } from './bm25.js';
export type { Bm25Document, Bm25Hit, WeightedText } from './bm25.js';
export { FrozenToolSet, PublishedToolSetSource, EMPTY_TOOL_SET } from './tool-set.js';
export type { ToolEntry } from './tool-set.js';
export { selectTools } from './selection.js';
export type { Selection, SelectionInput } from './selection.js';
export * as functool from './functool/index.js';
export * as fisk from './fisk/index.js';
export { loadApplicationTools, applicationLoadOptions, startApplicationIntrospection } from './load.js';
export type { LoadApplicationOptions, LoadedApplication } from './load.js';
export { resolveRunTools } from './run-tools.js';
export type { RunTools, RunToolsInput } from './run-tools.js';
