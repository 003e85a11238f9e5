import { z } from 'zod';

/**
 * The raw shape of agent.yaml, exactly as written. Every object is strict: an unknown key is an
 * error naming its dotted path. Defaults, normalization and duration parsing happen afterwards in
 * `prepare`, so this schema describes what an operator may write, not what a run uses.
 */

const str = z.string();
const strList = z.array(z.string());
const bool = z.boolean();
const int = z.number().int();
/** A Go duration string, parsed in `prepare`. `0` is accepted as a number too. */
const duration = z.union([z.string(), z.literal(0)]);
/** A backend's options block: kept as data here and decoded strictly by the backend itself. */
const options = z.record(z.string(), z.unknown());

export const FilterSchema = z.strictObject({
  tools: strList.optional(),
  tags: strList.optional(),
});

/** MCP servers' tools carry no tags, so their filters are by name only. */
export const NameFilterSchema = z.strictObject({
  tools: strList.optional(),
});

export const BudgetSchema = z.strictObject({
  max_tokens: int.optional(),
  max_output_tokens: int.optional(),
  max_iterations: int.optional(),
  call_timeout: duration.optional(),
  tool_timeout: duration.optional(),
});

export const LlmSchema = z.strictObject({
  provider: str.optional(),
  model: str.optional(),
  base_url: str.optional(),
  budget: BudgetSchema.optional(),
  thinking: z.strictObject({ enabled: bool }).optional(),
  reasoning_effort: str.optional(),
  no_prompt_cache: bool.optional(),
  no_tool_search: bool.optional(),
});

export const BackendSchema = z.strictObject({
  backend: str.optional(),
  options: options.optional(),
});

export const MemorySchema = z.strictObject({
  enabled: bool.optional(),
  backend: str.optional(),
  no_index: bool.optional(),
  read_only: bool.optional(),
  options: options.optional(),
});

export const EmbeddingsSchema = z.strictObject({
  base_url: str.optional(),
  model: str.optional(),
  api_key_env: str.optional(),
  timeout: duration.optional(),
  query_prefix: str.optional(),
  document_prefix: str.optional(),
});

export const CitationSchema = z.strictObject({
  pattern: str,
  replace: str,
});

export const KnowledgeSchema = z.strictObject({
  enabled: bool.optional(),
  paths: strList.optional(),
  extensions: strList.optional(),
  directory: str.optional(),
  top_k: int.optional(),
  max_injected_tokens: int.optional(),
  expand_to_section: bool.optional(),
  read_tool: bool.optional(),
  citations: z.array(CitationSchema).optional(),
  embeddings: EmbeddingsSchema.optional(),
});

/** One operator grant over tools matched by name: more network or more writable paths, never less. */
export const SandboxGrantSchema = z.strictObject({
  tools: strList,
  network: bool.optional(),
  writable: strList.optional(),
});

export const SandboxSchema = z.strictObject({
  enabled: bool.optional(),
  network: bool.optional(),
  writable: strList.optional(),
  hide: strList.optional(),
  limits: z
    .strictObject({
      address_space: z.union([int, str]).optional(),
      cpu_seconds: int.optional(),
      open_files: int.optional(),
    })
    .optional(),
  tools: z.array(SandboxGrantSchema).optional(),
});

export const HarnessSchema = z.strictObject({
  human_in_the_loop: z.strictObject({ enabled: bool.optional() }).optional(),
  confirm_tags: strList.optional(),
  no_tui: bool.optional(),
  no_bell: bool.optional(),
  no_progress: bool.optional(),
  pii: z.strictObject({ mode: str.optional() }).optional(),
  memory: MemorySchema.optional(),
  sessions: BackendSchema.optional(),
  knowledge: KnowledgeSchema.optional(),
  sandbox: SandboxSchema.optional(),
});

export const RemoteAgentSchema = z.strictObject({
  name: str.optional(),
  alias: str.optional(),
  url: str.optional(),
  headers: z.record(z.string(), z.string()).optional(),
  confirm: bool.optional(),
  timeout: duration.optional(),
  count_budget: bool.optional(),
});

export const RemoteToolsSchema = z.strictObject({
  name: str.optional(),
  alias: str.optional(),
  include: FilterSchema.optional(),
  exclude: FilterSchema.optional(),
});

export const McpOAuthIdpSchema = z.strictObject({
  token_endpoint: str.optional(),
  client_id: str.optional(),
  client_secret_env: str.optional(),
  id_token_env: str.optional(),
  id_token_file: str.optional(),
});

export const McpOAuthSchema = z.strictObject({
  grant: str.optional(),
  client_id: str.optional(),
  client_secret_env: str.optional(),
  private_key_env: str.optional(),
  private_key_file: str.optional(),
  signing_algorithm: str.optional(),
  key_id: str.optional(),
  idp: McpOAuthIdpSchema.optional(),
  scopes: strList.optional(),
  redirect_port: int.optional(),
  client_metadata_url: str.optional(),
});

export const McpClientSchema = z.strictObject({
  name: str.optional(),
  transport: str.optional(),
  command: str.optional(),
  args: strList.optional(),
  env: z.record(z.string(), z.string()).optional(),
  url: str.optional(),
  headers: z.record(z.string(), z.string()).optional(),
  oauth: McpOAuthSchema.optional(),
  startup_timeout: duration.optional(),
  max_output: z.union([int, str]).optional(),
  prefix: str.optional(),
  confirm: z.union([str, strList]).optional(),
  include: NameFilterSchema.optional(),
  exclude: NameFilterSchema.optional(),
  sandbox: bool.optional(),
  network: bool.optional(),
  writable: strList.optional(),
});

export const ExposeMcpSchema = z.strictObject({
  port: int.optional(),
  address: str.optional(),
  instructions: str.optional(),
  confirm_over_mcp: str.optional(),
  builtins: strList.optional(),
  max_concurrent_tools: int.optional(),
  tool_timeout: duration.optional(),
  auth_token_env: str.optional(),
});

export const ExposeA2aSchema = z.strictObject({
  serve_tools: bool.optional(),
  prompts: bool.optional(),
  workers: int.optional(),
  elicitation: bool.optional(),
  idle_timeout: duration.optional(),
  max_concurrent_tools: int.optional(),
  tool_timeout: duration.optional(),
});

export const ExposeJobsSchema = z.strictObject({
  stream: str.optional(),
  consumer: str.optional(),
  workers: int.optional(),
  max_deliver: int.optional(),
  timeout: duration.optional(),
  max_age: duration.optional(),
});

export const ExposeSlackSchema = z.strictObject({
  channels: strList.optional(),
  workers: int.optional(),
  api_url: str.optional(),
  approvers: z.union([str, strList]).optional(),
});

export const ExposeHealthSchema = z.strictObject({
  address: str.optional(),
  port: int.optional(),
});

export const ExposeA2aHttpSchema = z.strictObject({
  address: str.optional(),
  port: int.optional(),
  public_url: str.optional(),
  auth_token_env: str.optional(),
  workers: int.optional(),
  question_timeout: duration.optional(),
});

export const ExposeSchema = z.strictObject({
  agent: z
    .strictObject({
      mcp: ExposeMcpSchema.nullable().optional(),
      a2a: ExposeA2aSchema.optional(),
      tools: z.strictObject({ include: FilterSchema.optional(), exclude: FilterSchema.optional() }).optional(),
      jobs: ExposeJobsSchema.optional(),
      slack: ExposeSlackSchema.optional(),
      health: ExposeHealthSchema.optional(),
      a2a_http: ExposeA2aHttpSchema.optional(),
    })
    .optional(),
});

export const TelemetrySchema = z.strictObject({
  enabled: bool.optional(),
  endpoint: str.optional(),
  protocol: str.optional(),
  service_name: str.optional(),
  sample_ratio: z.number().optional(),
  capture_content: bool.optional(),
  no_metrics: bool.optional(),
});

export const ConfigSchema = z.strictObject({
  identity: str.optional(),
  icon_url: str.optional(),
  application_path: str.optional(),
  system_prompt: str.optional(),
  include: FilterSchema.optional(),
  exclude: FilterSchema.optional(),
  global_flags: strList.optional(),
  nats_context: str.optional(),
  llm: LlmSchema.optional(),
  harness: HarnessSchema.optional(),
  remote_agents: z.array(RemoteAgentSchema).optional(),
  remote_tools: z.array(RemoteToolsSchema).optional(),
  mcp_clients: z.array(McpClientSchema).optional(),
  expose: ExposeSchema.optional(),
  tasks: BackendSchema.optional(),
  telemetry: TelemetrySchema.optional(),
});

/** agent.yaml as written, before defaults. */
export type RawConfig = z.infer<typeof ConfigSchema>;
export type RawFilter = z.infer<typeof FilterSchema>;

/** Walks the schema to list the keys an object accepts at a dotted path, for "did you mean". */
export function knownKeysAt(path: readonly (string | number)[]): string[] {
  let schema: z.ZodType = ConfigSchema;
  for (const seg of path) {
    schema = unwrap(schema);
    if (schema instanceof z.ZodObject) {
      const next = (schema.shape as Record<string, z.ZodType>)[String(seg)];
      if (!next) return [];
      schema = next;
    } else if (schema instanceof z.ZodArray && typeof seg === 'number') {
      schema = schema.element as z.ZodType;
    } else {
      return [];
    }
  }
  schema = unwrap(schema);
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/** Every dotted key path the schema accepts (arrays as `[]`), for the documentation check. */
export function allKeyPaths(): string[] {
  const out: string[] = [];
  const walk = (schema: z.ZodType, prefix: string): void => {
    schema = unwrap(schema);
    if (schema instanceof z.ZodObject) {
      const shape: Record<string, z.ZodType> = schema.shape;
      for (const [k, v] of Object.entries(shape)) {
        const p = prefix === '' ? k : `${prefix}.${k}`;
        out.push(p);
        walk(v, p);
      }
    } else if (schema instanceof z.ZodArray) {
      walk(schema.element as z.ZodType, `${prefix}[]`);
    }
  };
  walk(ConfigSchema, '');
  return out;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable) {
      s = s.unwrap() as z.ZodType;
    } else {
      return s;
    }
  }
}
