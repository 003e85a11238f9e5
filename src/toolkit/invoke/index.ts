/** The one tool-invocation pipeline every surface calls. */
export { invokeTool } from './invoke.js';
export { DENY_PROMPTER } from './deny-prompter.js';
export { NEVER_ABORTED, runTool } from './run-tool.js';
export type { RunToolResult } from './run-tool.js';
export { CONFIRM_TAG, denialOutput, gateOf } from './gate.js';
export type { GateInfo } from './gate.js';
export {
  deferralNotCarriedMessage,
  refusalOf,
  SERVED_DENIAL_ADVICE,
  servedDenialReason,
  shuttingDownMessage,
  describeParameters,
  invalidArgumentsMessage,
  timeoutMessage,
  toolFailedMessage,
  ungateableMessage,
  unknownToolMessage,
  unknownToolWarning,
} from './messages.js';
export { REFUSAL_REASONS } from './types.js';
export type { ServedDenial } from './messages.js';
export type {
  AnsweredResult,
  ApprovalQuestion,
  ApprovalVerdict,
  Approver,
  InvokeCall,
  InvokeContext,
  InvokeEvent,
  InvokeHooks,
  InvokeResult,
  InvokeWrapper,
  PostToolDecision,
  PreToolDecision,
  RefusalReason,
} from './types.js';
