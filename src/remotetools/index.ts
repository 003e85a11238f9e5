/** Importing other agents' tools over a2a, for runs (strict) and `fisk info` (lenient). */
export { importRemoteTools, outcomeFromReply, remoteCallTimeout, remoteFailureText, REMOTE_CALL_MARGIN_MS, REMOTE_WARNING_CODES } from './import.js';
export type { ImportMode, ImportOptions, ImportResult, RemoteToolWarning, RemoteWarningCode } from './import.js';
export { nameRemoteTools } from './naming.js';
export type { Candidate, Named } from './naming.js';
export { RemoteToolsError, REMOTE_TOOLS_ERROR_CODES } from './errors.js';
export type { RemoteToolsErrorCode } from './errors.js';
