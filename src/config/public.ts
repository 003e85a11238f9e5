/**
 * The configuration as the package offers it to embedders: the one funnel from agent.yaml to a
 * prepared `Config`, its error, and the types of the prepared shape. Code inside the tree imports
 * `index.ts`.
 */
export { parseConfigForMode, ConfigError } from './index.js';
export type { ConfigInput, ConfigErrorCode, ConfigIssue, Mode } from './index.js';
// the contracts and data shapes, as types
export type {
  Duration,
  Filter,
  ThinkingSetting,
  PiiMode,
  ConfirmOverMcp,
  McpConfirmMode,
  McpConfirm,
  McpTransport,
  McpOAuthGrant,
  McpOAuthConfig,
  JwtSigningAlgorithm,
  McpOAuthPrivateKeyConfig,
  McpOAuthIdpConfig,
  IdentitySource,
  BackendChoice,
  BudgetConfig,
  LlmConfig,
  MemoryConfig,
  EmbeddingsConfig,
  CitationRule,
  KnowledgeConfig,
  SandboxLimits,
  SandboxGrant,
  SandboxConfig,
  McpSandboxConfig,
  HarnessConfig,
  DelegateTransport,
  RemoteAgentConfig,
  RemoteToolsConfig,
  McpClientConfig,
  ExposeMcpConfig,
  ExposeA2aConfig,
  ExposeJobsConfig,
  SlackApprovers,
  ExposeSlackConfig,
  ExposeHealthConfig,
  ExposeA2aHttpConfig,
  ExposeConfig,
  TelemetryConfig,
  Config,
} from './types.js';
export type {
  PII_MODES,
  CONFIRM_OVER_MCP,
  MCP_CONFIRM_MODES,
  MCP_TRANSPORTS,
  MCP_OAUTH_GRANTS,
  JWT_SIGNING_ALGORITHMS,
  DELEGATE_TRANSPORTS,
} from './types.js';
// the closed vocabularies the types above are drawn from, as types only
export type { CONFIG_ERROR_CODES, MODES } from './index.js';
