/** Importing other agents' tools over a2a, for runs (strict) and `fisk info` (lenient). */
export {
  importRemoteTools,
  outcomeFromReply,
  remoteCallTimeout,
  remoteFailureText,
  REMOTE_CALL_MARGIN_MS,
  REMOTE_WARNING_CODES,
} from './import.js';
export type { ImportMode, ImportOptions, ImportResult, RemoteToolWarning, RemoteWarningCode } from './import.js';
export { nameRemoteTools } from './naming.js';
export type { Candidate, Named } from './naming.js';
export { RemoteToolsError, REMOTE_TOOLS_ERROR_CODES } from './errors.js';
export type { RemoteToolsErrorCode } from './errors.js';
export { openDelegates } from './delegates.js';
export type { DelegatesContext, OpenedDelegates } from './delegates.js';
export { chainRefusal, DELEGATE_DATA_TAG, DELEGATE_TAG, delegationTool, fenceResult } from './delegation.js';
export type { DelegatePeer, DelegationRequest, DelegationResult } from './delegation.js';
export {
  A2aHttpPeer,
  cardUrl,
  describeCard,
  readAgentCard,
  HOPS_METADATA_KEY,
  HOPS_HEADER as A2A_HOPS_HEADER,
  USAGE_METADATA_KEY,
} from './a2a-http-peer.js';
export { NatsPeer, describeNatsCard } from './nats-peer.js';
