/** From a configuration to a running agent: the runtime, the tool sets, runs as handles. */
export { openRuntime, RUNTIME_MODES, credentialUnion, storeBaseFromEnv } from './runtime.js';
export type { Runtime, RuntimeDeps, RuntimeKnowledge, RuntimeMode, RuntimeNote } from './runtime.js';
export { assembleTools, deferralPolicy, reselectTools, TOOL_PURPOSES } from './tools.js';
export type { AssembledTools, AssembleOptions, ToolPurpose } from './tools.js';
export { startRun, DEFAULT_PROMPT, RESUME_REMINDER } from './run.js';
export type { BudgetOverride, RunHandle, RunInput, RunStart, StartRunOptions } from './run.js';
export { twoStageInterrupt } from './interrupt.js';
export type { InterruptStep } from './interrupt.js';
export { EventHub } from './event-hub.js';
export { HandlePrompter } from './handle-prompter.js';
export type { QuestionAnswer } from './handle-prompter.js';
export { HostError, HOST_ERROR_CODES } from './errors.js';
export type { HostErrorCode } from './errors.js';
export { ConnectionPool } from './connections.js';
export { selectA2aTools } from './served.js';
export type { ImportedTools, ImportedToolsListener } from './imports.js';
export { runToolSource } from './run-tools.js';
export type { RunToolSource } from './run-tools.js';
