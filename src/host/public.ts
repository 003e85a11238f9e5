/**
 * The host as the package offers it to embedders: from a prepared configuration to a runtime,
 * its tool sets, and runs as handles. Code inside the tree imports `index.ts`.
 */
export { openRuntime, assembleTools, startRun, HostError } from './index.js';
export type {
  Runtime,
  RuntimeBase,
  RunRuntime,
  JournaledRuntime,
  McpRuntime,
  LendRuntime,
  ListingRuntime,
  RuntimeOf,
  JournaledRuntimeDeps,
  RuntimeDeps,
  RuntimeKnowledge,
  RuntimeMode,
  RuntimeNote,
  AssembledTools,
  AssembleOptions,
  ToolPurpose,
  BudgetOverride,
  FollowUpOptions,
  RunHandle,
  RunInput,
  RunStart,
  StartRunOptions,
  QuestionAnswer,
  HostErrorCode,
} from './index.js';
export type { ConnectionPool } from './connections.js';
export type { ImportedTools, ImportedToolsListener } from './imports.js';
export type { NatsConn } from '../conns/nats-connect.js';
// the closed vocabularies the types above are drawn from, as types only
export type { HOST_ERROR_CODES, RUNTIME_MODES, TOOL_PURPOSES } from './index.js';
export type { NatsContext } from '../conns/nats-context.js';
export type { McpServerEvent, McpToolsChange } from '../mcp/client/sessions.js';
