/**
 * Tools as the package offers them to embedders: the `Tool` contract, tools written as functions
 * (`functool`), and the selection that makes a run's one tool set, with the tool search attached
 * when the provider has none. Code inside the tree imports `index.ts`.
 */
export {
  ToolkitError,
  resolveRunTools,
  selectTools,
  deferralPolicy,
  PublishedToolSetSource,
  attachToolSearch,
  deferredNotLoaded,
  loadedFromHistory,
} from './index.js';
export * as functool from './functool/public.js';
// the contracts and data shapes, as types
export type {
  Tool,
  Kind,
  Presentation,
  ExecRecord,
  CompletedOutcome,
  DelegatedUsage,
  DeferredOutcome,
  Outcome,
  CommandResult,
  ApprovalDecision,
  ReasonedDecline,
  ApprovalAnswer,
  ApprovalRequest,
  Prompter,
  ExecDeps,
  Hint,
  Behavior,
  ConfirmGate,
  ToolCapabilities,
  ToolSet,
  ToolSetSource,
} from './tool.js';
export type { KINDS, PRESENTATIONS } from './tool.js';
export type {
  ToolkitErrorCode,
  SourceName,
  FilterReason,
  FilteredTool,
  ToolSource,
  ToolWarning,
  ToolWarningCode,
  DeferralPolicy,
  DeferralDecision,
  DeferralVia,
  ToolSetPublisher,
  ToolEntry,
  Selection,
  SelectionInput,
  RunTools,
  RunToolsInput,
} from './index.js';
export type { FrozenToolSet } from './tool-set.js';
export type { InvokeWrapper, RefusalReason } from './invoke/types.js';
export type { LoadApplicationOptions } from './load-options.js';
export type { LoadedApplication } from './load.js';
export type { SandboxReport } from './sandbox/report.js';
export type { SandboxPolicy, SandboxSettings } from './sandbox/policy.js';
export type { PendingIntrospection } from './fisk/introspect.js';
// the closed vocabularies the types above are drawn from, as types only
export type { TOOLKIT_ERROR_CODES, DEFERRAL_VIA, FILTER_REASONS, SOURCE_ORDER, TOOL_WARNING_CODES } from './index.js';
export type { ApplicationModel, ArgModel, CommandModel, FlagModel } from './fisk/model.js';
export type { CommandToolSpec, FiskCommandTool, TagFact, TagFacts } from './fisk/command-tool.js';
export type { GlobalFlagReport } from './fisk/global-flags.js';
export type { CommandShape } from './fisk/argv.js';
export type { IntrospectionParams } from './fisk/introspect.js';
export type { AnsweredResult, InvokeCall, InvokeResult, REFUSAL_REASONS } from './invoke/types.js';
