import { basename, dirname, resolve } from 'node:path';
import { ConfigError } from './errors.js';
import { prepareKnowledgeExtensions } from './knowledge-extensions.js';
import { canonicalJson, normalizeEnum, normalizeFilter, normalizeList, parseDuration } from './normalize.js';
import { prepareRemoteAgents } from './remote-agents.js';
import { checkServiceUrl } from './service-url.js';
import { parseByteSize } from './byte-size.js';
import { prepareMcpSandbox, prepareSandbox } from './sandbox.js';
import { prepareA2aHttp } from './a2a-http.js';
import { prepareMcpOAuth } from './mcp-oauth.js';
import type { RawConfig } from './schema.js';
import { workerCount } from './workers.js';
import { CONFIRM_OVER_MCP, MCP_CONFIRM_MODES, MCP_TRANSPORTS, PII_MODES } from './types.js';
import type {
  BackendChoice,
  Config,
  Duration,
  ExposeA2aConfig,
  ExposeHealthConfig,
  ExposeMcpConfig,
  IdentitySource,
  KnowledgeConfig,
  LlmConfig,
  McpClientConfig,
  McpConfirm,
  McpTransport,
  PiiMode,
  SlackApprovers,
  ThinkingSetting,
} from './types.js';

/** The identity used when neither the file nor the application names one. */
export const DEFAULT_IDENTITY = 'fisk';

/**
 * The built-in tools that may ever be served over MCP. Mirrored from the knowledge tools' own
 * exposure declarations (config cannot import them); a test pins the two lists together.
 */
export const MCP_EXPOSABLE_BUILTINS = ['knowledge_search', 'knowledge_enumerate'] as const;

export const DEFAULTS = {
  provider: 'anthropic',
  maxTokens: 500_000,
  maxOutputTokens: 8192,
  maxOutputTokensThinking: 16_384,
  maxIterations: 50,
  callTimeout: '120s',
  toolTimeout: '5m',
  jobsMaxDeliver: 5,
  piiMode: 'redact' as PiiMode,
  backend: 'file',
  knowledgeTopK: 5,
  knowledgeTopKMax: 20,
  knowledgeMaxInjectedTokens: 6000,
  embeddingsTimeout: '30s',
  mcpStartupTimeout: '30s',
  // the same head-and-tail budget as a command's output
  mcpMaxOutput: 64 * 1024,
  servedConcurrency: 2,
  servedConcurrencyMax: 1024,
  servedToolTimeout: '30s',
  a2aIdleTimeout: '5m',
} as const;

/**
 * Stage two: derive the identity, normalize lists and enumerations, parse durations and apply
 * defaults. Checks that hold whatever the command land here; checks a command needs are in
 * `validateForMode`.
 */
export function prepare(raw: RawConfig, source: string, present: ReadonlySet<string>, baseDir: string = dirname(resolve(source))): Config {
  const { identity, identitySource } = deriveIdentity(raw);
  const llm = prepareLlm(raw);
  const knowledge = prepareKnowledge(raw, identity);
  const expose = raw.expose?.agent;

  const piiMode = normalizeEnum(raw.harness?.pii?.mode, DEFAULTS.piiMode);
  if (!isOneOf(PII_MODES, piiMode)) {
    throw ConfigError.of('value', 'harness.pii.mode', `"${piiMode}" is not a PII mode; use off, redact or reject`);
  }

  const memory = raw.harness?.memory;
  const sandbox = prepareSandbox(raw.harness?.sandbox, baseDir);
  const mcpPresent = expose !== undefined && 'mcp' in expose && expose.mcp !== undefined;

  return {
    source,
    baseDir,
    identity,
    identitySource,
    iconUrl: trimmed(raw.icon_url),
    applicationPath: trimmed(raw.application_path),
    systemPrompt: raw.system_prompt ?? '',
    include: normalizeFilter(raw.include, 'include'),
    exclude: normalizeFilter(raw.exclude, 'exclude'),
    globalFlags: normalizeList((raw.global_flags ?? []).map((f) => f.trim().replace(/^-+/, ''))),
    natsContext: trimmed(raw.nats_context),
    llm,
    harness: {
      humanInTheLoop: raw.harness?.human_in_the_loop?.enabled ?? false,
      confirmTags: normalizeList(raw.harness?.confirm_tags),
      noTui: raw.harness?.no_tui ?? false,
      noBell: raw.harness?.no_bell ?? false,
      noProgress: raw.harness?.no_progress ?? false,
      pii: { mode: piiMode },
      memory: {
        enabled: memory?.enabled ?? false,
        backend: normalizeEnum(memory?.backend, DEFAULTS.backend),
        backendNamed: (memory?.backend ?? '').trim() !== '',
        noIndex: memory?.no_index ?? false,
        readOnly: memory?.read_only ?? false,
        options: canonicalJson(memory?.options ?? {}),
      },
      sessions: backendChoice(raw.harness?.sessions),
      knowledge,
      sandbox,
    },
    remoteAgents: prepareRemoteAgents(raw.remote_agents ?? []),
    remoteTools: (raw.remote_tools ?? []).map((host, i) => {
      const name = (host.name ?? '').trim();
      const alias = (host.alias ?? '').trim();
      return {
        name,
        alias: alias === '' ? name : alias,
        include: normalizeFilter(host.include, `remote_tools[${i}].include`),
        exclude: normalizeFilter(host.exclude, `remote_tools[${i}].exclude`),
      };
    }),
    mcpClients: (raw.mcp_clients ?? []).map((c, i) => prepareMcpClient(c, i, sandbox.enabled, baseDir)),
    expose: {
      mcp: mcpPresent ? prepareExposeMcp(raw, knowledge.enabled) : undefined,
      a2a: prepareA2a(raw),
      tools: {
        include: normalizeFilter(expose?.tools?.include, 'expose.agent.tools.include'),
        exclude: normalizeFilter(expose?.tools?.exclude, 'expose.agent.tools.exclude'),
      },
      jobs:
        expose?.jobs === undefined
          ? undefined
          : {
              stream: (expose.jobs.stream ?? '').trim(),
              consumer: (expose.jobs.consumer ?? '').trim(),
              workers: workerCount(expose.jobs.workers, 'expose.agent.jobs.workers'),
              maxDeliver: positiveCount(expose.jobs.max_deliver, 'expose.agent.jobs.max_deliver', DEFAULTS.jobsMaxDeliver),
              timeout: optionalLimit(expose.jobs.timeout, 'expose.agent.jobs.timeout'),
              maxAge: optionalLimit(expose.jobs.max_age, 'expose.agent.jobs.max_age'),
            },
      slack:
        expose?.slack === undefined
          ? undefined
          : {
              channels: normalizeList(expose.slack.channels),
              workers: workerCount(expose.slack.workers, 'expose.agent.slack.workers'),
              apiUrl: slackApiUrl(expose.slack.api_url, 'expose.agent.slack.api_url'),
              approvers: slackApprovers(expose.slack.approvers),
            },
      health: expose?.health === undefined ? undefined : prepareHealth(expose.health),
      a2aHttp: expose?.a2a_http === undefined ? undefined : prepareA2aHttp(expose.a2a_http),
    },
    tasks: backendChoice(raw.tasks),
    telemetry: prepareTelemetry(raw),
    present,
  };
}

/**
 * The Slack Web API base: https unless it is this machine (the bot token travels to it), ending
 * in `/` because the client appends method names to it. Undefined when unset.
 */
export function slackApiUrl(value: string | undefined, key: string): string | undefined {
  const text = (value ?? '').trim();
  if (text === '') return undefined;
  const url = checkServiceUrl(text, key);
  const href = url.href;
  return href.endsWith('/') ? href : `${href}/`;
}

/** A Slack user id as Slack writes it: U or W and capitals and digits, never a display name. */
const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;

function slackApprovers(value: string | readonly string[] | undefined): SlackApprovers {
  const key = 'expose.agent.slack.approvers';
  if (value === undefined) return { kind: 'requester' };
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (trimmed === '' || trimmed === 'requester') return { kind: 'requester' };
    if (trimmed === 'channel') return { kind: 'channel' };
    if (SLACK_USER_ID.test(trimmed))
      throw ConfigError.of('value', key, `"${trimmed}" looks like one user id; write a list ([${trimmed}]), or use requester or channel`);
    throw ConfigError.of(
      'value',
      key,
      `"${trimmed}" is not an approvers setting; use requester (only the person who asked), channel (anybody in the channel) or a list of Slack user ids`,
    );
  }
  const users = normalizeList(value);
  if (users.length === 0)
    throw ConfigError.of(
      'value',
      key,
      'is an empty list, so nobody could approve a call; list Slack user ids, or use requester or channel',
    );
  const bad = users.find((u) => !SLACK_USER_ID.test(u));
  if (bad !== undefined)
    throw ConfigError.of(
      'value',
      key,
      `"${bad}" is not a Slack user id (like U0123ABCD; find it in the person's profile under "Copy member ID"), not a name`,
    );
  return { kind: 'users', users };
}

function deriveIdentity(raw: RawConfig): { identity: string; identitySource: IdentitySource } {
  const explicit = (raw.identity ?? '').trim();
  if (explicit !== '') return { identity: explicit, identitySource: 'explicit' };
  const app = (raw.application_path ?? '').trim();
  if (app !== '') return { identity: basename(app), identitySource: 'application' };
  return { identity: DEFAULT_IDENTITY, identitySource: 'default' };
}

function prepareLlm(raw: RawConfig): LlmConfig {
  const budget = raw.llm?.budget;
  const thinking: ThinkingSetting = raw.llm?.thinking === undefined ? 'unset' : raw.llm.thinking.enabled ? 'on' : 'off';
  const maxOutput = nonNegative(budget?.max_output_tokens, 'llm.budget.max_output_tokens');
  const callTimeout = parseDuration(budget?.call_timeout, 'llm.budget.call_timeout', DEFAULTS.callTimeout);
  if (callTimeout.ms <= 0) {
    throw ConfigError.of(
      'value',
      'llm.budget.call_timeout',
      `must be positive, got "${callTimeout.text}"; remove the key for the ${DEFAULTS.callTimeout} default`,
    );
  }
  const toolTimeout = parseDuration(budget?.tool_timeout, 'llm.budget.tool_timeout', DEFAULTS.toolTimeout);
  if (toolTimeout.ms < 0) {
    throw ConfigError.of('value', 'llm.budget.tool_timeout', `must not be negative, got "${toolTimeout.text}"; use 0 for no timeout`);
  }
  return {
    provider: normalizeEnum(raw.llm?.provider, DEFAULTS.provider),
    model: (raw.llm?.model ?? '').trim(),
    baseUrl: trimmed(raw.llm?.base_url),
    budget: {
      maxTokens: nonNegative(budget?.max_tokens, 'llm.budget.max_tokens') || DEFAULTS.maxTokens,
      maxOutputTokens: maxOutput || (thinking === 'on' ? DEFAULTS.maxOutputTokensThinking : DEFAULTS.maxOutputTokens),
      maxIterations: nonNegative(budget?.max_iterations, 'llm.budget.max_iterations') || DEFAULTS.maxIterations,
      callTimeout,
      toolTimeout: toolTimeout.ms === 0 ? undefined : toolTimeout,
    },
    thinking,
    reasoningEffort: trimmed(raw.llm?.reasoning_effort),
    noPromptCache: raw.llm?.no_prompt_cache ?? false,
    noToolSearch: raw.llm?.no_tool_search ?? false,
  };
}

function prepareKnowledge(raw: RawConfig, identity: string): KnowledgeConfig {
  const knowledge = raw.harness?.knowledge;
  const topK = knowledge?.top_k ?? 0;
  const maxInjected = knowledge?.max_injected_tokens ?? 0;
  const citations = (knowledge?.citations ?? []).map((citation, i) => {
    try {
      new RegExp(citation.pattern, 'u');
    } catch (err) {
      throw ConfigError.of(
        'value',
        `harness.knowledge.citations[${i}].pattern`,
        `${JSON.stringify(citation.pattern)} is not a valid regular expression (${(err as Error).message})`,
      );
    }
    return { pattern: citation.pattern, replace: citation.replace };
  });
  let embeddings: KnowledgeConfig['embeddings'];
  if (knowledge?.embeddings !== undefined) {
    const embeddingSettings = knowledge.embeddings;
    const baseUrl = (embeddingSettings.base_url ?? '').trim().replace(/\/+$/, '');
    const model = (embeddingSettings.model ?? '').trim();
    if (baseUrl === '') {
      throw ConfigError.of(
        'missing',
        'harness.knowledge.embeddings.base_url',
        'is required when the embeddings block is present (an OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1); remove the block for lexical search only',
      );
    }
    if (model === '') {
      throw ConfigError.of(
        'missing',
        'harness.knowledge.embeddings.model',
        'is required when the embeddings block is present (the embedding model name the server knows)',
      );
    }
    checkServiceUrl(baseUrl, 'harness.knowledge.embeddings.base_url');
    const timeout = parseDuration(embeddingSettings.timeout, 'harness.knowledge.embeddings.timeout', DEFAULTS.embeddingsTimeout);
    if (timeout.ms <= 0) {
      throw ConfigError.of('value', 'harness.knowledge.embeddings.timeout', `must be positive, got "${timeout.text}"`);
    }
    embeddings = {
      baseUrl,
      model,
      apiKeyEnv: trimmed(embeddingSettings.api_key_env),
      timeout,
      queryPrefix: embeddingSettings.query_prefix ?? '',
      documentPrefix: embeddingSettings.document_prefix ?? '',
    };
  }
  return {
    enabled: knowledge?.enabled ?? false,
    paths: normalizeList(knowledge?.paths),
    extensions: prepareKnowledgeExtensions(knowledge?.extensions),
    directory: trimmed(knowledge?.directory) ?? `knowledge/${identity}`,
    topK: topK <= 0 ? DEFAULTS.knowledgeTopK : Math.min(topK, DEFAULTS.knowledgeTopKMax),
    maxInjectedTokens: maxInjected <= 0 ? DEFAULTS.knowledgeMaxInjectedTokens : maxInjected,
    expandToSection: knowledge?.expand_to_section ?? false,
    readTool: knowledge?.read_tool ?? false,
    citations,
    embeddings,
  };
}

/** The bounds of `mcp_clients[].max_output`: 1 KiB, so a result says something, to 16 MiB. */
const MCP_MAX_OUTPUT_MIN = 1024;
const MCP_MAX_OUTPUT_MAX = 16 * 1024 * 1024;

/** `confirm` as written: one of the modes, or a list of patterns over the server's tool names. */
function prepareMcpConfirm(raw: string | readonly string[] | undefined, key: string): McpConfirm {
  if (raw === undefined || typeof raw === 'string') {
    const mode = normalizeEnum(raw, 'auto');
    if (!isOneOf(MCP_CONFIRM_MODES, mode)) {
      throw ConfigError.of(
        'value',
        key,
        `"${mode}" is not accepted; use auto (approval unless the server marks a tool readOnlyHint), always, never, or a list of patterns over the server's tool names`,
      );
    }
    return { mode };
  }
  // a list is patterns, regular expressions over tool names like include.tools
  const patterns = normalizeList(raw);
  patterns.forEach((re, i) => {
    try {
      new RegExp(re, 'u');
    } catch (err) {
      throw ConfigError.of(
        'value',
        `${key}[${i}]`,
        `${JSON.stringify(re)} is not a valid regular expression (${(err as Error).message}); write a pattern over the server's tool names such as ^write_`,
      );
    }
  });
  if (patterns.length === 0)
    throw ConfigError.of('value', key, 'the list is empty; write auto, always, never, or at least one pattern over tool names');
  return { mode: 'patterns', patterns };
}

function prepareMcpClient(
  client: NonNullable<RawConfig['mcp_clients']>[number],
  i: number,
  sandboxed: boolean,
  baseDir: string,
): McpClientConfig {
  const key = `mcp_clients[${i}]`;
  const command = trimmed(client.command);
  const url = trimmed(client.url);
  let transport: McpTransport;
  const named = normalizeEnum(client.transport, '');
  if (named === '') {
    transport = url !== undefined && command === undefined ? 'http' : 'stdio';
  } else if (isOneOf(MCP_TRANSPORTS, named)) {
    transport = named;
  } else {
    throw ConfigError.of(
      'value',
      `${key}.transport`,
      `"${named}" is not an MCP transport; use stdio (with command), or with url: http (streamable HTTP, falling back to SSE), streamable-http or sse`,
    );
  }
  const startupTimeout = parseDuration(client.startup_timeout, `${key}.startup_timeout`, DEFAULTS.mcpStartupTimeout);
  if (startupTimeout.ms <= 0) {
    throw ConfigError.of('value', `${key}.startup_timeout`, `must be positive, got "${startupTimeout.text}"`);
  }
  return {
    name: (client.name ?? '').trim(),
    transport,
    command,
    args: client.args ?? [],
    env: client.env ?? {},
    url,
    headers: client.headers ?? {},
    oauth: client.oauth === undefined ? undefined : prepareMcpOAuth(client.oauth, `${key}.oauth`, baseDir),
    startupTimeout,
    confirm: prepareMcpConfirm(client.confirm, `${key}.confirm`),
    maxOutput: parseByteSize(client.max_output, `${key}.max_output`, DEFAULTS.mcpMaxOutput, MCP_MAX_OUTPUT_MIN, MCP_MAX_OUTPUT_MAX),
    prefix: trimmed(client.prefix),
    include: normalizeFilter(client.include, `${key}.include`),
    exclude: normalizeFilter(client.exclude, `${key}.exclude`),
    sandbox: prepareMcpSandbox(client, key, sandboxed, transport === 'stdio', baseDir),
  };
}

function prepareExposeMcp(raw: RawConfig, knowledgeEnabled: boolean): ExposeMcpConfig {
  const mcp = raw.expose?.agent?.mcp ?? {};
  const confirm = normalizeEnum(mcp.confirm_over_mcp, 'auto');
  if (!isOneOf(CONFIRM_OVER_MCP, confirm)) {
    throw ConfigError.of('value', 'expose.agent.mcp.confirm_over_mcp', `"${confirm}" is not accepted; use auto, always or never`);
  }
  const builtins = normalizeList(mcp.builtins);
  for (const builtin of builtins) {
    if (!isOneOf(MCP_EXPOSABLE_BUILTINS, builtin)) {
      throw ConfigError.of(
        'value',
        'expose.agent.mcp.builtins',
        `"${builtin}" cannot be served over MCP; only ${MCP_EXPOSABLE_BUILTINS.join(' and ')} may be (memory and human-in-the-loop tools need an operator or run state)`,
      );
    }
    if (!knowledgeEnabled) {
      throw ConfigError.of(
        'value',
        'expose.agent.mcp.builtins',
        `lists ${builtin} but knowledge is not enabled; set harness.knowledge.enabled: true or remove ${builtin}`,
      );
    }
  }
  const port = mcp.port ?? 0;
  if (port < 0 || port > 65535) {
    throw ConfigError.of('value', 'expose.agent.mcp.port', `${port} is not a TCP port; use 1 to 65535, or leave it out for 8080`);
  }
  return {
    port,
    address: (mcp.address ?? '').trim(),
    instructions: mcp.instructions ?? '',
    confirmOverMcp: confirm,
    builtins,
    maxConcurrentTools: concurrency(mcp.max_concurrent_tools, 'expose.agent.mcp.max_concurrent_tools'),
    toolTimeout: servedTimeout(mcp.tool_timeout, 'expose.agent.mcp.tool_timeout'),
    authTokenEnv: authTokenEnv(mcp.auth_token_env),
  };
}

/** `expose.agent.mcp.auth_token_env`: a variable's name, never the token itself. */
function authTokenEnv(raw: string | undefined): string | undefined {
  const name = trimmed(raw);
  if (name !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw ConfigError.of(
      'value',
      'expose.agent.mcp.auth_token_env',
      `"${name}" is not an environment variable name: write the variable's name (e.g. FISK_MCP_TOKEN), never the token`,
    );
  }
  return name;
}

function prepareHealth(h: { readonly address?: string | undefined; readonly port?: number | undefined }): ExposeHealthConfig {
  if (h.port === undefined) {
    throw ConfigError.of('missing', 'expose.agent.health.port', 'is required: the TCP port /healthz and /readyz answer on (1 to 65535)');
  }
  if (h.port < 1 || h.port > 65535) {
    throw ConfigError.of('value', 'expose.agent.health.port', `${h.port} is not a TCP port; use 1 to 65535`);
  }
  const address = (h.address ?? '').trim();
  return { address: address === '' ? '127.0.0.1' : address, port: h.port };
}

function prepareA2a(raw: RawConfig): ExposeA2aConfig {
  const a = raw.expose?.agent?.a2a;
  const idle = parseDuration(a?.idle_timeout, 'expose.agent.a2a.idle_timeout', DEFAULTS.a2aIdleTimeout);
  if (idle.ms <= 0) {
    throw ConfigError.of('value', 'expose.agent.a2a.idle_timeout', `must be positive, got "${idle.text}"`);
  }
  return {
    serveTools: a?.serve_tools ?? false,
    prompts: a?.prompts ?? false,
    workers: workerCount(a?.workers, 'expose.agent.a2a.workers'),
    elicitation: a?.elicitation ?? false,
    idleTimeout: idle,
    maxConcurrentTools: concurrency(a?.max_concurrent_tools, 'expose.agent.a2a.max_concurrent_tools'),
    toolTimeout: servedTimeout(a?.tool_timeout, 'expose.agent.a2a.tool_timeout'),
  };
}

function prepareTelemetry(raw: RawConfig): Config['telemetry'] {
  const t = raw.telemetry;
  const ratio = t?.sample_ratio;
  if (ratio !== undefined && (ratio < 0 || ratio > 1)) {
    throw ConfigError.of('value', 'telemetry.sample_ratio', `${ratio} is outside 0 to 1; use 0 to record nothing, 1 to record every run`);
  }
  const endpoint = trimmed(t?.endpoint);
  // Validated only when export is on, so a stale endpoint in a file with telemetry off never fails a run.
  if (t?.enabled === true && endpoint !== undefined) {
    checkServiceUrl(endpoint, 'telemetry.endpoint', { allowHttpWhen: t.capture_content !== true });
  }
  const protocol = trimmed(t?.protocol)?.toLowerCase();
  if (protocol !== undefined && protocol !== 'http/protobuf' && protocol !== 'http/json' && protocol !== 'grpc') {
    throw ConfigError.of('value', 'telemetry.protocol', `"${protocol}" is not an OTLP protocol; use http/protobuf, http/json or grpc`);
  }
  return {
    enabled: t?.enabled ?? false,
    endpoint,
    protocol,
    serviceName: trimmed(t?.service_name),
    sampleRatio: ratio,
    captureContent: t?.capture_content ?? false,
    noMetrics: t?.no_metrics ?? false,
  };
}

function backendChoice(raw: { backend?: string | undefined; options?: Record<string, unknown> | undefined } | undefined): BackendChoice {
  return { backend: normalizeEnum(raw?.backend, DEFAULTS.backend), options: canonicalJson(raw?.options ?? {}) };
}

function concurrency(value: number | undefined, key: string): number {
  const v = value ?? 0;
  if (v < 0)
    throw ConfigError.of(
      'value',
      key,
      `${v} must not be negative; use 1 to ${DEFAULTS.servedConcurrencyMax}, or leave it out for ${DEFAULTS.servedConcurrency}`,
    );
  if (v > DEFAULTS.servedConcurrencyMax) throw ConfigError.of('value', key, `${v} must not exceed ${DEFAULTS.servedConcurrencyMax}`);
  return v === 0 ? DEFAULTS.servedConcurrency : v;
}

function servedTimeout(value: string | 0 | undefined, key: string): Duration {
  const d = parseDuration(value, key, DEFAULTS.servedToolTimeout);
  if (d.ms < 0) throw ConfigError.of('value', key, `must not be negative, got "${d.text}"`);
  return d.ms === 0 ? { text: DEFAULTS.servedToolTimeout, ms: 30_000 } : d;
}

function positiveCount(value: number | undefined, key: string, fallback: number): number {
  const v = value ?? 0;
  if (v < 0) throw ConfigError.of('value', key, `${v} must not be negative`);
  return v === 0 ? fallback : v;
}

/** A duration that is off when absent or 0; a negative one is refused naming the key. */
function optionalLimit(value: string | 0 | undefined, key: string): Duration | undefined {
  const d = parseDuration(value, key, '0');
  if (d.ms < 0) throw ConfigError.of('value', key, `must not be negative, got "${d.text}"; leave it out (or use 0) for no limit`);
  return d.ms === 0 ? undefined : d;
}

function nonNegative(value: number | undefined, key: string): number {
  const v = value ?? 0;
  if (v < 0) throw ConfigError.of('value', key, `${v} must not be negative; leave it out for the default`);
  return v;
}

function trimmed(value: string | undefined): string | undefined {
  const t = (value ?? '').trim();
  return t === '' ? undefined : t;
}

function isOneOf<T extends string>(list: readonly T[], value: string): value is T {
  return (list as readonly string[]).includes(value);
}

export { checkServiceUrl };
