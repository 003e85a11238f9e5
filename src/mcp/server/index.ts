/** Serving a run's tools over MCP (streamable HTTP), with elicitation as the approval gate. */
export {
  startMcpServer,
  admissionPolicy,
  endpointUrl,
  SHUTDOWN_BUDGET_MS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_MS,
  ENDPOINT_PATH,
} from './http-server.js';
export type { McpServerOptions, RunningMcpServer } from './http-server.js';
export { admissionRefusal } from './admission.js';
export type { AdmissionPolicy, Refusal } from './admission.js';
export { selectServedTools } from './served-tools.js';
export type { ServedSelection, ServedSelectionInput } from './served-tools.js';
export { serveCall } from './call-tool.js';
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
export { DENY_PROMPTER } from '../../toolkit/invoke/deny-prompter.js';
export { McpServeError, MCP_SERVE_ERROR_CODES } from './errors.js';
export type { McpServeErrorCode } from './errors.js';
export { confirmNote, mcpNotes, NOTE_LEVELS } from './notes.js';
export type { McpNote, NoteLevel } from './notes.js';
export { ungatedCall, ungatedReason, UNGATED_REASONS } from './ungated.js';
export type { UngatedCall, UngatedReason } from './ungated.js';
