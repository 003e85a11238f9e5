/**
 * From a prepared configuration to the served tool set: the run's one selection (application
 * commands, plus the knowledge built-ins when the operator allowlisted them) narrowed for MCP.
 */
import type { Config } from '../../config/types.js';
import { KnowledgeReader } from '../../knowledge/store.js';
import { knowledgeSetup } from '../../knowledge/setup.js';
import { knowledgeTools } from '../../knowledge/tools.js';
import { applicationLoadOptions } from '../../toolkit/load.js';
import { resolveRunTools } from '../../toolkit/run-tools.js';
import type { RunTools } from '../../toolkit/run-tools.js';
import type { FilteredTool, ToolSource } from '../../toolkit/source.js';
import type { Tool } from '../../toolkit/tool.js';
import { McpServeError } from './errors.js';
import { selectServedTools } from './served-tools.js';

/** Where the served tools are loaded from besides the configuration. */
export interface LoadMcpToolsOptions {
  /** The environment tools inherit (minus credentials) and `${VAR}` values come from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The directory relative knowledge paths resolve against. */
  readonly cwd: string;
  /** An absolute store base for knowledge (`FISK_AI_STORE_DIR`), when set. */
  readonly storeBase?: string;
  readonly signal?: AbortSignal;
}

/** The served set, the run's selection it came from, and every tool left out with why. */
export interface McpTools {
  readonly served: readonly Tool[];
  readonly run: RunTools;
  /** Left out by the run's selection and by the MCP narrowing, in that order. */
  readonly filtered: readonly FilteredTool[];
}

/**
 * The knowledge built-ins, built over a shared read-only store, but only when the operator
 * allowlisted one: nothing else about knowledge is reachable over MCP.
 */
function knowledgeSource(config: Config, opts: LoadMcpToolsOptions): ToolSource | undefined {
  const k = config.harness.knowledge;
  if (!k.enabled || (config.expose.mcp?.builtins.length ?? 0) === 0) return undefined;
  const setup = knowledgeSetup({ directory: k.directory, embeddings: k.embeddings }, { cwd: opts.cwd, storeBase: opts.storeBase, env: opts.env });
  const tools = knowledgeTools({
    reader: new KnowledgeReader(setup.storeDir),
    vector: setup.vector,
    topK: k.topK,
    maxInjectedTokens: k.maxInjectedTokens,
    expandToSection: k.expandToSection,
    readTool: k.readTool,
    citations: k.citations,
  });
  return { source: 'knowledge', tools };
}

/**
 * Loads what `fisk mcp` serves. Human-in-the-loop and memory tools are never built here (they
 * declare no MCP exposure). Throws `ToolkitError` for an application that cannot be loaded or a
 * collision in the run's selection, `McpServeError` (`collision`) for a collision among served
 * tools and (`no_tools`) when nothing is left, naming the file to fix.
 */
export async function loadMcpTools(config: Config, opts: LoadMcpToolsOptions): Promise<McpTools> {
  const mcp = config.expose.mcp;
  if (mcp === undefined) throw new McpServeError('no_tools', `serving over MCP needs an expose.agent.mcp block in ${JSON.stringify(config.source)}`);
  const application = applicationLoadOptions(config, opts.env);
  const knowledge = knowledgeSource(config, opts);
  const run = await resolveRunTools({
    ...(application === undefined ? {} : { application: opts.signal === undefined ? application : { ...application, signal: opts.signal } }),
    sources: knowledge === undefined ? [] : [knowledge],
    confirmTags: config.harness.confirmTags,
    // nothing is deferred over MCP: a client lists every tool
    deferral: { noToolSearch: false, providerToolSearch: true },
  });
  const narrowed = selectServedTools({ entries: run.toolSet.entries, expose: config.expose.tools, builtins: mcp.builtins });
  if (narrowed.tools.length === 0) {
    throw new McpServeError('no_tools', `no tools available after filtering; check include/exclude and expose.agent.tools in ${JSON.stringify(config.source)}`);
  }
  return { served: narrowed.tools, run, filtered: [...run.filtered, ...narrowed.filtered] };
}
