/** From a configuration to a running agent: the runtime, the tool sets, runs as handles. */
export { openRuntime, requireRunRuntime, RUNTIME_MODES, credentialUnion, storeBaseFromEnv } from './runtime.js';
export type {
  JournaledRuntime,
  JournaledRuntimeDeps,
  LendRuntime,
  ListingRuntime,
  McpRuntime,
  RunRuntime,
  Runtime,
  RuntimeBase,
  RuntimeDeps,
  RuntimeKnowledge,
  RuntimeMode,
  RuntimeNote,
  RuntimeOf,
} from './runtime.js';
export { startRuntimeIntrospection } from './application.js';
export { assembleTools, deferralPolicy, reselectTools, TOOL_PURPOSES } from './tools.js';
export type { AssembledTools, AssembleOptions, ToolPurpose } from './tools.js';
export { startRun, takesFollowUp, DEFAULT_PROMPT, RESUME_REMINDER } from './run.js';
export type { BudgetOverride, FollowUpOptions, RunHandle, RunInput, RunStart, StartRunOptions } from './run.js';
export { twoStageInterrupt } from './interrupt.js';
export type { InterruptStep } from './interrupt.js';
export { EventHub } from './event-hub.js';
export { HandlePrompter } from './handle-prompter.js';
export type { QuestionAnswer } from './question-answer.js';
export { HostError, HOST_ERROR_CODES } from './errors.js';
export type { HostErrorCode } from './errors.js';
export { ConnectionPool } from './connections.js';
export { selectA2aTools } from './served.js';
export { HostTelemetry, RunTelemetry, NO_TELEMETRY_FLAG, telemetrySettingsFor, telemetryInfo } from './telemetry.js';
export type { HostTelemetryOptions, RunTelemetryOptions } from './telemetry.js';
export type { ImportedTools, ImportedToolsListener } from './imports.js';
export { runToolSource } from './run-tools.js';
export type { RunToolSource } from './run-tools.js';
