/** Serving a run's tools over MCP (streamable HTTP), with elicitation as the approval gate. */
export { startMcpServer, endpointUrl, SHUTDOWN_BUDGET_MS } from './http-server.js';
export type { McpServerOptions, RunningMcpServer } from './http-server.js';
export { selectServedTools } from './served-tools.js';
export type { ServedSelection, ServedSelectionInput } from './served-tools.js';
export { serveCall, timeoutText } from './call-tool.js';
export type { CallEvent, CallPeer, CallPolicy } from './call-tool.js';
export { gateAction, isApproval, approvalForm, denialReason, ELICITATION_TIMEOUT_MS, GATE_ACTIONS, APPROVAL_FIELD } from './approval.js';
export type { ApprovalForm, GateAction } from './approval.js';
export { toolAnnotations, readableTitle } from './annotations.js';
export type { ServedAnnotations } from './annotations.js';
export { outcomeResult, denialResult, textResult } from './result.js';
export type { ServedResult } from './result.js';
export { listTools, sessionServer } from './session-server.js';
export type { ServerIdentity } from './session-server.js';
export { Semaphore } from './semaphore.js';
export { DENY_PROMPTER } from './deny-prompter.js';
export { McpServeError, MCP_SERVE_ERROR_CODES } from './errors.js';
export type { McpServeErrorCode } from './errors.js';
