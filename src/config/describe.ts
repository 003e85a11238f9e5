import type { Config, Filter } from './types.js';

/** Where an effective value came from. Display only: nothing branches on it. */
export type Origin = 'default' | 'file' | 'environment' | 'flag';

/** One effective setting, with its origin. */
export interface Setting {
  readonly key: string;
  readonly value: string | number | boolean | readonly string[] | null;
  readonly origin: Origin;
}

/** A value supplied outside the file (an environment variable or a flag) that wins over it. */
export interface Override {
  readonly key: string;
  readonly value: string | number | boolean;
  readonly origin: 'environment' | 'flag';
}

type Getter = (c: Config) => Setting['value'];

/** One `harness.sandbox.tools` entry on a line: the names it matches and what it adds. */
const grantText = (g: Config['harness']['sandbox']['tools'][number]): string =>
  [
    `tools:${g.tools.join(',')}`,
    ...(g.network ? ['network'] : []),
    ...(g.writable.length > 0 ? [`writes:${g.writable.join(',')}`] : []),
  ].join(' ');

const filter = (f: Filter): readonly string[] => [...f.tools.map((t) => `tools:${t}`), ...f.tags.map((t) => `tags:${JSON.stringify(t)}`)];

/** The effective settings `fisk info` reports, keyed by their agent.yaml path. */
const TABLE: readonly (readonly [string, Getter])[] = [
  ['identity', (c) => c.identity],
  ['application_path', (c) => c.applicationPath ?? null],
  ['nats_context', (c) => c.natsContext ?? null],
  ['global_flags', (c) => c.globalFlags],
  ['include', (c) => filter(c.include)],
  ['exclude', (c) => filter(c.exclude)],
  ['llm.provider', (c) => c.llm.provider],
  ['llm.model', (c) => c.llm.model],
  ['llm.base_url', (c) => c.llm.baseUrl ?? null],
  ['llm.budget.max_tokens', (c) => c.llm.budget.maxTokens],
  ['llm.budget.max_output_tokens', (c) => c.llm.budget.maxOutputTokens],
  ['llm.budget.max_iterations', (c) => c.llm.budget.maxIterations],
  ['llm.budget.call_timeout', (c) => c.llm.budget.callTimeout.text],
  ['llm.budget.tool_timeout', (c) => c.llm.budget.toolTimeout?.text ?? 'none'],
  ['llm.thinking', (c) => c.llm.thinking],
  ['llm.reasoning_effort', (c) => c.llm.reasoningEffort ?? null],
  ['llm.no_prompt_cache', (c) => c.llm.noPromptCache],
  ['llm.no_tool_search', (c) => c.llm.noToolSearch],
  ['harness.human_in_the_loop.enabled', (c) => c.harness.humanInTheLoop],
  ['harness.confirm_tags', (c) => c.harness.confirmTags],
  ['harness.no_tui', (c) => c.harness.noTui],
  ['harness.no_bell', (c) => c.harness.noBell],
  ['harness.no_progress', (c) => c.harness.noProgress],
  ['harness.pii.mode', (c) => c.harness.pii.mode],
  ['harness.memory.enabled', (c) => c.harness.memory.enabled],
  ['harness.memory.backend', (c) => c.harness.memory.backend],
  ['harness.memory.no_index', (c) => c.harness.memory.noIndex],
  ['harness.memory.read_only', (c) => c.harness.memory.readOnly],
  ['harness.sessions.backend', (c) => c.harness.sessions.backend],
  ['harness.knowledge.enabled', (c) => c.harness.knowledge.enabled],
  ['harness.knowledge.directory', (c) => c.harness.knowledge.directory],
  ['harness.knowledge.paths', (c) => c.harness.knowledge.paths],
  ['harness.knowledge.top_k', (c) => c.harness.knowledge.topK],
  ['harness.knowledge.max_injected_tokens', (c) => c.harness.knowledge.maxInjectedTokens],
  ['harness.knowledge.embeddings.model', (c) => c.harness.knowledge.embeddings?.model ?? null],
  ['harness.sandbox.enabled', (c) => c.harness.sandbox.enabled],
  ['harness.sandbox.network', (c) => c.harness.sandbox.network],
  ['harness.sandbox.writable', (c) => c.harness.sandbox.writable ?? ['(the work directory)']],
  ['harness.sandbox.hide', (c) => c.harness.sandbox.hide ?? ['(the default set)']],
  ['harness.sandbox.limits.address_space', (c) => c.harness.sandbox.limits.addressSpace ?? null],
  ['harness.sandbox.limits.cpu_seconds', (c) => c.harness.sandbox.limits.cpuSeconds ?? null],
  ['harness.sandbox.limits.open_files', (c) => c.harness.sandbox.limits.openFiles ?? null],
  ['harness.sandbox.tools', (c) => c.harness.sandbox.tools.map(grantText)],
  ['expose.agent.mcp', (c) => c.expose.mcp !== undefined],
  ['expose.agent.mcp.confirm_over_mcp', (c) => c.expose.mcp?.confirmOverMcp ?? null],
  ['expose.agent.mcp.max_concurrent_tools', (c) => c.expose.mcp?.maxConcurrentTools ?? null],
  ['expose.agent.mcp.tool_timeout', (c) => c.expose.mcp?.toolTimeout.text ?? null],
  ['expose.agent.mcp.auth_token_env', (c) => c.expose.mcp?.authTokenEnv ?? null],
  ['expose.agent.a2a.serve_tools', (c) => c.expose.a2a.serveTools],
  ['expose.agent.a2a.prompts', (c) => c.expose.a2a.prompts],
  ['expose.agent.jobs.stream', (c) => c.expose.jobs?.stream ?? null],
  [
    'expose.agent.jobs.consumer',
    (c) => (c.expose.jobs === undefined ? null : c.expose.jobs.consumer === '' ? c.identity : c.expose.jobs.consumer),
  ],
  ['expose.agent.jobs.workers', (c) => c.expose.jobs?.workers ?? null],
  ['expose.agent.jobs.max_deliver', (c) => c.expose.jobs?.maxDeliver ?? null],
  ['expose.agent.jobs.timeout', (c) => c.expose.jobs?.timeout?.text ?? null],
  ['expose.agent.jobs.max_age', (c) => c.expose.jobs?.maxAge?.text ?? null],
  ['expose.agent.health.address', (c) => c.expose.health?.address ?? null],
  ['expose.agent.health.port', (c) => c.expose.health?.port ?? null],
  ['expose.agent.a2a_http.address', (c) => c.expose.a2aHttp?.address ?? null],
  ['expose.agent.a2a_http.port', (c) => c.expose.a2aHttp?.port ?? null],
  ['expose.agent.a2a_http.public_url', (c) => c.expose.a2aHttp?.publicUrl ?? null],
  ['expose.agent.a2a_http.auth_token_env', (c) => c.expose.a2aHttp?.authTokenEnv ?? null],
  ['expose.agent.a2a_http.workers', (c) => c.expose.a2aHttp?.workers ?? null],
  ['expose.agent.a2a_http.question_timeout', (c) => c.expose.a2aHttp?.questionTimeout.text ?? null],
  ['tasks.backend', (c) => c.tasks.backend],
];

/**
 * The effective configuration as a flat list of settings, each with its origin: `file` when the
 * file set the key (or anything under it), `default` otherwise, and the overrides' own origin
 * where the caller supplied one.
 */
export function describeSettings(config: Config, overrides: readonly Override[] = []): Setting[] {
  const byKey = new Map(overrides.map((o) => [o.key, o]));
  return TABLE.map(([key, get]) => {
    const o = byKey.get(key);
    if (o !== undefined) return { key, value: o.value, origin: o.origin };
    return { key, value: get(config), origin: setInFile(config, key) ? 'file' : 'default' };
  });
}

function setInFile(config: Config, key: string): boolean {
  if (config.present.has(key)) return true;
  for (const p of config.present) if (p.startsWith(`${key}.`) || p.startsWith(`${key}[`)) return true;
  return false;
}
