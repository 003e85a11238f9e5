/**
 * Durable runs: the journal records, the one append rule, the pure fold that rebuilds a run from
 * its records, the configuration fingerprint that gates a resume, and the session stores (file,
 * JetStream, memory) chosen by `harness.sessions`.
 */
export * from './records.js';
export { RunStateError, RUN_STATE_ERROR_CODES, isRunStateError } from './errors.js';
export type { RunStateErrorCode } from './errors.js';
export { checkAppend, gapError } from './check-append.js';
export type { AppendCheck } from './check-append.js';
export { checkRunId, newRunId, RUN_ID_PATTERN, RUN_ID_MAX_LENGTH } from './run-id.js';
export { appendAllNext, appendNext } from './store.js';
export type { AppendOutcome, Journal, RunSummary, SessionStore } from './store.js';
export { checkRecord, decodeRecord, encodeRecord, schemaFor } from './validate.js';
export { encodeMessage, decodeMessage, encodeBlock, decodeBlock, encodeToolResult, decodeToolResult } from './message-codec.js';
export {
  metaBody,
  assistantBody,
  userBody,
  toolResultBody,
  deferralBody,
  grantBody,
  approvalBody,
  claimBody,
  terminalBody,
  memoryScopeBody,
} from './builders.js';
export type { Body } from './builders.js';
export { memorySessionStore } from './memory-store.js';
export { statusOf, summarize } from './summary.js';
export { fold } from './fold.js';
export type { FoldedRun, PendingBatch, PendingCall, RestoredGrant, RunCounters } from './fold.js';
export {
  computeFingerprint,
  diffFingerprints,
  resumeGate,
  systemHash,
  toolsHash,
  FINGERPRINT_CLASSES,
  FINGERPRINT_FIELDS,
} from './fingerprint.js';
export type { FingerprintChange, FingerprintClass, FingerprintField, FingerprintInput, ResumeDecision } from './fingerprint.js';
export { sandboxStamp, sandboxWeakening } from './sandbox-stamp.js';
export type { SandboxStampInput, StampedSandbox } from './sandbox-stamp.js';
export { checkAnswer, checkDecision } from './answer.js';
export { answerApproval, answerDeferred, claimRun, claimant, loadRun, startRun } from './run-ops.js';
export {
  registerSessionBackend,
  sessionBackendNames,
  sessionBackendNeeds,
  openSessionStore,
  openConfiguredSessionStore,
  defaultRunsDir,
  SESSION_BACKEND_NEEDS,
} from './registry.js';
export type { SessionBackend, SessionBackendDeps, SessionBackendNeed, SessionPathDeps } from './registry.js';
export { fileSessionStore } from './file/store.js';
