/** Importing tools from MCP servers (`mcp_clients`): strict sessions for runs, lenient discovery for listings. */
export { openMcpSessions, REBUILD_TIMEOUT_MS } from './sessions.js';
export type {
  McpServerEvent,
  McpServerListener,
  McpSessionSet,
  McpToolsChange,
  McpToolsListener,
  McpWarning,
  OpenMcpOptions,
} from './sessions.js';
export { discoverMcpTools } from './discover.js';
export type { McpDiscovery, McpDiscoveryWarning } from './discover.js';
export type { ConnectOptions, ClientIdentity } from './connect.js';
export { DEFAULT_CLIENT_IDENTITY, MAX_LIST_PAGES } from './connect.js';
export { outcomeOf } from './content.js';
export type { McpCallAnswer, McpOutcome } from './content.js';
export { checkDescriptor, MAX_SCHEMA_DEPTH } from './descriptor.js';
export type { DescriptorVerdict, McpDescriptor } from './descriptor.js';
export { childEnvironment } from './env.js';
export { headerSafeFetch, MAX_REDIRECTS } from '../../util/header-safe-fetch.js';
export { redactorFor, printableEndpoint, MIN_SECRET_LENGTH } from './redact.js';
export type { Redactor } from './redact.js';
export { McpClientError, MCP_CLIENT_ERROR_CODES } from './errors.js';
export type { McpClientErrorCode } from './errors.js';
export { loginMcpServer, openLoopbackAuthorizer } from './oauth/login.js';
export type { LoginResult, LoginUi, LoopbackAuthorizer } from './oauth/login.js';
export type { OAuthAuthorizer } from './oauth/oauth-fetch.js';
export { loginCommand } from './oauth/login-required.js';
export { LOGIN_TIMEOUT_MS } from './connect.js';
