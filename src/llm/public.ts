/**
 * The model layer as the package offers it to embedders: the `Provider` contract an embedder
 * implements or calls, the registry that builds one by name, the HTTP debug log and trace a caller
 * installs on any provider, and the error every provider throws. Code inside the tree imports
 * `index.ts`.
 */
export {
  newProvider,
  newProviderFromConfig,
  register,
  providerNames,
  providerCredentialEnvNames,
  LlmError,
  openHttpDebugLog,
  openTraceFile,
} from './index.js';
// the contracts and data shapes, as types
export type {
  Role,
  TextBlock,
  ThinkingBlock,
  ToolUseBlock,
  ToolImageType,
  ToolImage,
  ToolResultBlock,
  ProviderBlock,
  ContentBlock,
  ContentBlockType,
  Message,
  SystemBlock,
  ThinkingMode,
  Usage,
  KnownStopReason,
  StopReason,
  ToolDef,
} from './types.js';
export type { TOOL_IMAGE_TYPES, CONTENT_BLOCK_TYPES, KNOWN_STOP_REASONS } from './types.js';
export type {
  Caps,
  Provider,
  Request,
  Response,
  StreamObserver,
  LlmErrorCode,
  LlmErrorOptions,
  ProviderFactory,
  ProviderOptions,
  ProviderExtras,
  ProviderFacts,
  ProviderRegistration,
  FetchLike,
  FetchMiddleware,
  HttpDebugLog,
  TraceFile,
  TraceHttpEvent,
  TraceMiddlewareOptions,
} from './index.js';
// the closed vocabularies the types above are drawn from, as types only
export type { LLM_ERROR_CODES } from './index.js';
