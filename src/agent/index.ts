/**
 * The agent loop as a headless library: `runAgent` takes a prepared configuration, a provider, a
 * tool set source and the borrowed resources of one run, emits everything a surface shows as
 * events, and returns a closed outcome. Nothing here prints, prompts a terminal or reads flags.
 */
export { runAgent, TRUNCATED_CALL } from './run-agent.js';
export type { RunOptions } from './run-agent.js';
export { answerOf, deferredOf, errorOf, messageOf } from './outcome.js';
export type {
  RunOutcome,
  DeferredCall,
  OutcomeCommon,
  CompletedOutcome,
  SuspendedOutcome,
  StoppedOutcome,
  FailedOutcome,
} from './outcome.js';
export { settingsFromConfig } from './settings.js';
export type { RunSettings } from './settings.js';
export { RUN_STATUSES, RUN_PHASES } from './status.js';
export type { RunStatus, RunPhase } from './status.js';
export { AgentError, AGENT_ERROR_CODES, CRASH_MESSAGE } from './errors.js';
export type { AgentErrorCode, RunError } from './errors.js';
export { AGENT_EVENT_TYPES, APPROVAL_OUTCOMES, QUESTION_KINDS, DISCARD_EVENTS, EventLog } from './events.js';
export type {
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
} from './events.js';
export type { Hooks, HookToolCall, HookToolResult, PostToolDecision, PreToolDecision, PromptDecision } from './hooks.js';
export { MemoryJournal } from './journal.js';
export type { JournalEntry, RunJournal, AssistantEntry, ToolResultEntry, ToolDeferredEntry, GrantEntry, TerminalEntry } from './journal.js';
export { deriveCounters, NO_COUNTERS, tokensProcessed, zeroByKind } from './counters.js';
export type { RunCounters } from './counters.js';
export {
  ConfirmGate,
  gateOf,
  denialOutput,
  CONFIRM_TAG,
  DECLINED_REASON,
  DECLINED_WITH_REASON,
  NO_OPERATOR_REASON,
} from './confirm-gate.js';
export type { GateInfo, GateVerdict } from './confirm-gate.js';
export { humanTools, HUMAN_TOOL_NAMES, HUMAN_NOTE } from './human-tools.js';
export type { HumanToolName } from './human-tools.js';
export { stripControl, oneLine, formatCall, inputObject } from './sanitize.js';
export { timeoutMessage } from './tool-call.js';
export { withPiiGuard, PII_WITHHELD, PII_PROMPT_REJECTED } from './pii/guard.js';
export type { PiiNotice } from './pii/guard.js';
export { buildScanner } from './pii/scanner.js';
export type { PiiScanner, Redaction } from './pii/scanner.js';
export { PII_KINDS, markerFor, luhnValid, ibanValid } from './pii/detectors.js';
export type { PiiKind, Finding } from './pii/detectors.js';
export { systemBlocks } from './system-prompt.js';
export { sessionJournal } from './runstate-journal.js';
export { replayConversation, replayEvents, splitEnvelope, walkReplay } from './replay.js';
export type { ReplayedPrompt } from './replay.js';
export { runFingerprint, startCheckpoint, resumeCheckpoint } from './checkpoint.js';
export type { Checkpoint, ResumedCheckpoint } from './checkpoint.js';
