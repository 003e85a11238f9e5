/**
 * The session stores as the package offers them to embedders: the `SessionStore` contract and its
 * backend registry, the file, memory and JetStream stores, the one append rule a backend keeps,
 * and the fold that reads a stored run back. Code inside the tree imports `index.ts` (or the
 * JetStream modules directly), so a process that keeps its sessions in files never loads the NATS
 * client.
 */
export {
  RunStateError,
  checkAppend,
  fold,
  loadRun,
  registerSessionBackend,
  sessionBackendNames,
  openSessionStore,
  openConfiguredSessionStore,
  fileSessionStore,
  memorySessionStore,
} from './index.js';
export { jetstreamSessionStore } from './jetstream/store.js';
// the contracts and data shapes, as types
export type {
  RecordKind,
  ProtocolId,
  OptionalKind,
  TerminalReason,
  FingerprintThinking,
  ApprovalDecisionValue,
  GateOutcome,
  GatePayload,
  WireToolResult,
  WireToolImage,
  WireBlock,
  WireMessage,
  Fingerprint,
  MetaPayload,
  AssistantPayload,
  UserPayload,
  ToolResultPayload,
  DelegatedPayload,
  DeferralPayload,
  GrantPayload,
  ApprovalPayload,
  ClaimPayload,
  TerminalPayload,
  MemoryScopePayload,
  PayloadOf,
  RecordOfKind,
  SessionRecord,
  UnknownRecord,
  StoredRecord,
  RecordBody,
} from './records.js';
export type { RECORD_KINDS, OPTIONAL_KINDS, TERMINAL_REASONS, FINGERPRINT_THINKING, APPROVAL_DECISIONS, GATE_OUTCOMES } from './records.js';
export type {
  RunStateErrorCode,
  AppendCheck,
  AppendOutcome,
  Journal,
  RunSummary,
  SessionStore,
  FoldedRun,
  PendingBatch,
  PendingCall,
  RestoredGrant,
  RunCounters,
  SessionBackend,
  SessionBackendDeps,
  SessionBackendNeed,
  SessionPathDeps,
} from './index.js';
export type { DelegatedCounters } from './fold.js';
export type { FingerprintChange, FingerprintClass, FingerprintField } from './fingerprint.js';
// the closed vocabularies the types above are drawn from, as types only
export type { RUN_STATE_ERROR_CODES, SESSION_BACKEND_NEEDS } from './index.js';
export type { FINGERPRINT_CLASSES, FINGERPRINT_FIELDS } from './fingerprint.js';
