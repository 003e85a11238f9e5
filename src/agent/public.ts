/**
 * The agent loop as the package offers it to embedders: `runAgent`, its events, hooks and
 * outcome, and the journals that make a run durable. Code inside the tree imports `index.ts`.
 */
export { runAgent, AgentError, MemoryJournal, runFingerprint, startCheckpoint, resumeCheckpoint } from './index.js';
export type {
  RunOptions,
  RunOutcome,
  DeferredCall,
  OutcomeCommon,
  CompletedOutcome,
  SuspendedOutcome,
  StoppedOutcome,
  FailedOutcome,
  RunStatus,
  RunPhase,
  AgentErrorCode,
  RunError,
  AgentEvent,
  AgentEventType,
  ApprovalEvent,
  ApprovalOutcome,
  CrashEvent,
  EventSink,
  ExecInfo,
  QuestionEvent,
  QuestionKind,
  StatusEvent,
  TextEvent,
  TextFragmentEvent,
  ThinkingEvent,
  ToolCallEvent,
  ToolResultEvent,
  ProgressEvent,
  UsageInfo,
  WarningEvent,
  Hooks,
  HookToolCall,
  HookToolResult,
  PostToolDecision,
  PreToolDecision,
  PromptDecision,
  JournalEntry,
  RunJournal,
  AssistantEntry,
  ToolResultEntry,
  ToolDeferredEntry,
  GrantEntry,
  TerminalEntry,
  RunCounters,
  Checkpoint,
  ResumedCheckpoint,
} from './index.js';
export type { Maybe } from './hooks.js';
export type { GateNote } from './journal.js';
export type { PendingToolBatch } from './run-agent.js';
export type { ReplayedPrompt } from './replay.js';
export type { RunSettings } from './settings.js';
// the closed vocabularies the types above are drawn from, as types only
export type { AGENT_ERROR_CODES, AGENT_EVENT_TYPES, APPROVAL_OUTCOMES, QUESTION_KINDS, RUN_PHASES, RUN_STATUSES } from './index.js';
