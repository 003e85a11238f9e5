/**
 * The prepared configuration: agent.yaml after defaults, normalization and duration parsing.
 * Every consumer reads this shape; nobody reads the raw file.
 */

/** A duration as written beside its parsed value in milliseconds. */
export interface Duration {
  readonly text: string;
  readonly ms: number;
}

/** A normalized include or exclude filter. */
export interface Filter {
  /** Regular expressions over tool names (unanchored). */
  readonly tools: readonly string[];
  /** Tags; `""` matches an untagged tool. */
  readonly tags: readonly string[];
}

/** Three states: absent says nothing to the provider, on asks for thinking, off asks for it off. */
export type ThinkingSetting = 'unset' | 'on' | 'off';

export const PII_MODES = ['off', 'redact', 'reject'] as const;
export type PiiMode = (typeof PII_MODES)[number];

export const CONFIRM_OVER_MCP = ['auto', 'always', 'never'] as const;
export type ConfirmOverMcp = (typeof CONFIRM_OVER_MCP)[number];

/** Which of an MCP server's tools wait for the operator's approval (`mcp_clients[].confirm`). */
export const MCP_CONFIRM_MODES = ['auto', 'always', 'never'] as const;
export type McpConfirmMode = (typeof MCP_CONFIRM_MODES)[number];
/**
 * `auto`: every tool unless the server annotates it `readOnlyHint: true`; `always`, `never`; or
 * `patterns`: the tools whose server-side name matches one of the regular expressions.
 */
export type McpConfirm = { readonly mode: McpConfirmMode } | { readonly mode: 'patterns'; readonly patterns: readonly string[] };

/**
 * `http` is streamable HTTP, falling back to the legacy SSE transport when the server refuses it;
 * `streamable-http` and `sse` each use one transport only.
 */
export const MCP_TRANSPORTS = ['stdio', 'http', 'streamable-http', 'sse'] as const;
export type McpTransport = (typeof MCP_TRANSPORTS)[number];

/**
 * How an OAuth-protected MCP server is authorized: a person logs in, the client authenticates
 * alone, or an identity provider's ID token is exchanged for an ID-JAG the server's authorization
 * server takes as a JWT bearer grant (enterprise-managed cross-app access).
 */
export const MCP_OAUTH_GRANTS = ['authorization_code', 'client_credentials', 'cross_app_access'] as const;
export type McpOAuthGrant = (typeof MCP_OAUTH_GRANTS)[number];

/** OAuth 2.1 settings of an http MCP server (`mcp_clients[].oauth`). */
export interface McpOAuthConfig {
  readonly grant: McpOAuthGrant;
  /** A client registered in advance; unset means dynamic client registration. */
  readonly clientId: string | undefined;
  /** The name of the environment variable holding the client secret, never the secret itself. */
  readonly clientSecretEnv: string | undefined;
  readonly scopes: readonly string[];
  /** The loopback port of the login redirect; 0 picks a free one (kept for the next login when it can be). */
  readonly redirectPort: number;
  /** An https URL of a client ID metadata document this client is known by, for servers that accept one. */
  readonly clientMetadataUrl: string | undefined;
  /** Set when the client authenticates with a signed JWT (`private_key_jwt`) instead of a secret. */
  readonly privateKey: McpOAuthPrivateKeyConfig | undefined;
  /** The identity provider of the `cross_app_access` grant; undefined for every other grant. */
  readonly idp: McpOAuthIdpConfig | undefined;
}

/** JWT algorithms a client assertion can be signed with. */
export const JWT_SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
export type JwtSigningAlgorithm = (typeof JWT_SIGNING_ALGORITHMS)[number];

/** Where the private key of `private_key_jwt` client authentication is, and how it signs. */
export interface McpOAuthPrivateKeyConfig {
  /** Exactly one of `env` (a variable's name) and `file` (an absolute path) is set. */
  readonly env: string | undefined;
  readonly file: string | undefined;
  /** Undefined picks the algorithm from the key: RS256, ES256/384/512 by curve, or EdDSA. */
  readonly algorithm: JwtSigningAlgorithm | undefined;
  /** The `kid` header, when the authorization server knows several keys of this client. */
  readonly keyId: string | undefined;
}

/** The identity provider that exchanges this agent's ID token for an ID-JAG (`oauth.idp`). */
export interface McpOAuthIdpConfig {
  readonly tokenEndpoint: string;
  /** This agent's client at the identity provider. */
  readonly clientId: string | undefined;
  /** The name of the variable holding that client's secret. */
  readonly clientSecretEnv: string | undefined;
  /** Exactly one of `idTokenEnv` (a variable's name) and `idTokenFile` (an absolute path, read at each exchange) is set. */
  readonly idTokenEnv: string | undefined;
  readonly idTokenFile: string | undefined;
}

/** Where an identity came from: written by the operator, taken from the application, or the fallback. */
export type IdentitySource = 'explicit' | 'application' | 'default';

/** A backend choice with its options block kept as canonical JSON for the backend to decode. */
export interface BackendChoice {
  readonly backend: string;
  /** Canonical JSON text of the options block (`{}` when absent). */
  readonly options: string;
}

export interface BudgetConfig {
  /** Cumulative tokens processed across all four tiers. */
  readonly maxTokens: number;
  /** Per-response output cap after defaults (8192, or 16384 with thinking on). */
  readonly maxOutputTokens: number;
  readonly maxIterations: number;
  readonly callTimeout: Duration;
  /** `undefined` when the operator asked for no tool timeout (`0`). */
  readonly toolTimeout: Duration | undefined;
}

export interface LlmConfig {
  readonly provider: string;
  readonly model: string;
  readonly baseUrl: string | undefined;
  readonly budget: BudgetConfig;
  readonly thinking: ThinkingSetting;
  readonly reasoningEffort: string | undefined;
  readonly noPromptCache: boolean;
  readonly noToolSearch: boolean;
}

export interface MemoryConfig extends BackendChoice {
  readonly enabled: boolean;
  readonly noIndex: boolean;
  readonly readOnly: boolean;
  /** Whether the operator named a backend (an injected store must then match it). */
  readonly backendNamed: boolean;
}

export interface EmbeddingsConfig {
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKeyEnv: string | undefined;
  readonly timeout: Duration;
  readonly queryPrefix: string;
  readonly documentPrefix: string;
}

export interface CitationRule {
  readonly pattern: string;
  readonly replace: string;
}

export interface KnowledgeConfig {
  readonly enabled: boolean;
  readonly paths: readonly string[];
  /** File-name endings indexed (lower case, with the dot). */
  readonly extensions: readonly string[];
  /** The store directory as configured (relative paths resolve against the store base or cwd). */
  readonly directory: string;
  readonly topK: number;
  readonly maxInjectedTokens: number;
  readonly expandToSection: boolean;
  readonly readTool: boolean;
  readonly citations: readonly CitationRule[];
  /** Present exactly when the vector tier is configured. */
  readonly embeddings: EmbeddingsConfig | undefined;
}

/** `harness.sandbox.limits`: what `prlimit` caps for every sandboxed child; undefined leaves a limit as inherited. */
export interface SandboxLimits {
  /** Address space in bytes (`--as`). */
  readonly addressSpace: number | undefined;
  /** CPU time in seconds (`--cpu`). */
  readonly cpuSeconds: number | undefined;
  /** Open file descriptors (`--nofile`). */
  readonly openFiles: number | undefined;
}

/** One `harness.sandbox.tools` entry: tools matched by name get more, never less. */
export interface SandboxGrant {
  /** Regular expressions over tool names (unanchored, as `include.tools`). */
  readonly tools: readonly string[];
  readonly network: boolean;
  /** Absolute paths, added to the writable ones. */
  readonly writable: readonly string[];
}

/**
 * `harness.sandbox`. Paths are absolute (relative ones resolved against agent.yaml's directory)
 * except those starting `~/`, which resolve against the child's HOME when the runtime opens.
 */
export interface SandboxConfig {
  readonly enabled: boolean;
  readonly network: boolean;
  /** Undefined: the call's work directory only. */
  readonly writable: readonly string[] | undefined;
  /** Undefined: the default set (`DEFAULT_SANDBOX_HIDE`). fisk's own stores are hidden either way. */
  readonly hide: readonly string[] | undefined;
  readonly limits: SandboxLimits;
  readonly tools: readonly SandboxGrant[];
}

/** `mcp_clients[]` sandbox keys: whether a stdio server runs sandboxed, and what it is given. */
export interface McpSandboxConfig {
  /** Defaults to `harness.sandbox.enabled`. */
  readonly enabled: boolean;
  readonly network: boolean;
  /** Undefined: the working directory only. */
  readonly writable: readonly string[] | undefined;
}

export interface HarnessConfig {
  readonly humanInTheLoop: boolean;
  readonly confirmTags: readonly string[];
  readonly noTui: boolean;
  readonly noBell: boolean;
  readonly noProgress: boolean;
  readonly pii: { readonly mode: PiiMode };
  readonly memory: MemoryConfig;
  readonly sessions: BackendChoice;
  readonly knowledge: KnowledgeConfig;
  readonly sandbox: SandboxConfig;
}

/** How a delegation reaches its peer: fisk's own protocol over NATS, or the A2A standard over HTTP. */
export const DELEGATE_TRANSPORTS = ['nats', 'a2a-http'] as const;
export type DelegateTransport = (typeof DELEGATE_TRANSPORTS)[number];

/** One `remote_agents` entry: a peer a whole task is handed to, through the tool `delegate_<alias>`. */
export interface RemoteAgentConfig {
  /** The peer's identity over NATS, or the name an A2A HTTP peer is known by here. */
  readonly name: string;
  /** The tool is `delegate_<alias>`; defaults to the name. */
  readonly alias: string;
  readonly transport: DelegateTransport;
  /** The A2A agent card URL (or the base URL its well-known card is under); only for `a2a-http`. */
  readonly url: string | undefined;
  /** Request headers for an A2A HTTP peer, values possibly holding `${VAR}` references (unexpanded). */
  readonly headers: Readonly<Record<string, string>>;
  /** Put every delegation to this peer behind the confirm gate. */
  readonly confirm: boolean;
  /** How long one delegation may take, questions included. */
  readonly timeout: Duration;
  /** Count the peer's reported tokens against `llm.budget.max_tokens`. */
  readonly countBudget: boolean;
}

export interface RemoteToolsConfig {
  readonly name: string;
  /** The prefix used only when a bare name clashes; defaults to the name. */
  readonly alias: string;
  readonly include: Filter;
  readonly exclude: Filter;
}

export interface McpClientConfig {
  readonly name: string;
  readonly transport: McpTransport;
  readonly command: string | undefined;
  /** Taken literally: no `${VAR}` expansion. */
  readonly args: readonly string[];
  /** Values may hold `${VAR}` references, expanded by `resolveMcpClient`. */
  readonly env: Readonly<Record<string, string>>;
  readonly url: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  /** Present exactly when the entry has an `oauth` block. */
  readonly oauth: McpOAuthConfig | undefined;
  readonly startupTimeout: Duration;
  /** The budget of one answer's text in bytes, held as head and tail (`max_output`). */
  readonly maxOutput: number;
  /** Names the server's tools `<prefix>_<tool>`; undefined keeps the server's own names. */
  readonly prefix: string | undefined;
  /** Which tools need the operator's approval; `auto` by default. */
  readonly confirm: McpConfirm;
  readonly include: Filter;
  readonly exclude: Filter;
  /** How a stdio server is sandboxed (`sandbox`, `network`, `writable`). */
  readonly sandbox: McpSandboxConfig;
}

export interface ExposeMcpConfig {
  /** 0 when unset: the command then uses its flag, environment or 8080. */
  readonly port: number;
  /** Empty when unset: the command then uses 127.0.0.1. */
  readonly address: string;
  readonly instructions: string;
  readonly confirmOverMcp: ConfirmOverMcp;
  readonly builtins: readonly string[];
  readonly maxConcurrentTools: number;
  readonly toolTimeout: Duration;
  /**
   * The name of the environment variable holding the token every HTTP request must carry as
   * `Authorization: Bearer`; absent when unset. Required to serve off loopback.
   */
  readonly authTokenEnv: string | undefined;
}

export interface ExposeA2aConfig {
  readonly serveTools: boolean;
  readonly prompts: boolean;
  readonly workers: number;
  readonly elicitation: boolean;
  readonly idleTimeout: Duration;
  readonly maxConcurrentTools: number;
  readonly toolTimeout: Duration;
}

export interface ExposeJobsConfig {
  readonly stream: string;
  readonly consumer: string;
  readonly workers: number;
  /** How many attempts a job gets before it is stored `dead`. */
  readonly maxDeliver: number;
  /** How long one attempt of a job may run; `undefined` for no limit. */
  readonly timeout: Duration | undefined;
  /** A job older than this when pulled is stored `dead`; `undefined` for no limit. */
  readonly maxAge: Duration | undefined;
}

/**
 * Who may answer an approval in a Slack thread: only the person whose message started the turn
 * (`requester`), anybody in the channel (`channel`), or the listed user ids.
 */
export type SlackApprovers =
  { readonly kind: 'requester' } | { readonly kind: 'channel' } | { readonly kind: 'users'; readonly users: readonly string[] };

export interface ExposeSlackConfig {
  readonly channels: readonly string[];
  readonly workers: number;
  /** The Web API base (`expose.agent.slack.api_url`); undefined for Slack's own. */
  readonly apiUrl: string | undefined;
  readonly approvers: SlackApprovers;
}

/** `expose.agent.health`: where `fisk serve` answers `/healthz` and `/readyz`. */
export interface ExposeHealthConfig {
  readonly address: string;
  readonly port: number;
}

/** `expose.agent.a2a_http`: the A2A standard over HTTP, served by `fisk serve`. */
export interface ExposeA2aHttpConfig {
  readonly address: string;
  readonly port: number;
  /** The URL the agent card advertises; undefined for the listening address itself. */
  readonly publicUrl: string | undefined;
  /** The environment variable holding the bearer token callers present; undefined for none. */
  readonly authTokenEnv: string | undefined;
  readonly workers: number;
  /** How long a question put to the caller waits for the answer before the run stops. */
  readonly questionTimeout: Duration;
}

export interface ExposeConfig {
  /** Present exactly when `expose.agent.mcp` is in the file: presence is the MCP switch. */
  readonly mcp: ExposeMcpConfig | undefined;
  readonly a2a: ExposeA2aConfig;
  readonly tools: { readonly include: Filter; readonly exclude: Filter };
  readonly jobs: ExposeJobsConfig | undefined;
  readonly slack: ExposeSlackConfig | undefined;
  /** Present exactly when `expose.agent.health` is in the file. */
  readonly health: ExposeHealthConfig | undefined;
  /** Present exactly when `expose.agent.a2a_http` is in the file. */
  readonly a2aHttp: ExposeA2aHttpConfig | undefined;
}

export interface TelemetryConfig {
  readonly enabled: boolean;
  readonly endpoint: string | undefined;
  readonly protocol: string | undefined;
  readonly serviceName: string | undefined;
  /** Three states: absent is `undefined` (the library default of 1.0 applies); an explicit 0 stays 0. */
  readonly sampleRatio: number | undefined;
  readonly captureContent: boolean;
  readonly noMetrics: boolean;
}

/** agent.yaml, prepared. */
export interface Config {
  /** Where the configuration came from, for messages (`agent.yaml`). */
  readonly source: string;
  /**
   * The absolute directory holding the file. Relative paths in it (the application, knowledge paths
   * and store directories) resolve here, never against the working directory, so an agent behaves
   * the same from any directory.
   */
  readonly baseDir: string;
  readonly identity: string;
  readonly identitySource: IdentitySource;
  readonly iconUrl: string | undefined;
  readonly applicationPath: string | undefined;
  readonly systemPrompt: string;
  readonly include: Filter;
  readonly exclude: Filter;
  readonly globalFlags: readonly string[];
  readonly natsContext: string | undefined;
  readonly llm: LlmConfig;
  readonly harness: HarnessConfig;
  readonly remoteAgents: readonly RemoteAgentConfig[];
  readonly remoteTools: readonly RemoteToolsConfig[];
  readonly mcpClients: readonly McpClientConfig[];
  readonly expose: ExposeConfig;
  readonly tasks: BackendChoice;
  readonly telemetry: TelemetryConfig;
  /** Every dotted key path the file set, so a report can say which values came from it. */
  readonly present: ReadonlySet<string>;
}
