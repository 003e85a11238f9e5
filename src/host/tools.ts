/**
 * `assembleTools`: the only place a tool set is assembled. Every surface asks for its purpose, so
 * what `fisk info` lists is what a run sends and what a server serves, one list narrowed in the
 * open, every tool left out recorded with its reason.
 */
import type { Scope } from '../memory/scope.js';
import { deferralPolicy as toolkitDeferralPolicy } from '../toolkit/deferral.js';
import type { DeferralDecision, DeferralPolicy } from '../toolkit/deferral.js';
import { selectTools } from '../toolkit/selection.js';
import { describeSource } from '../toolkit/source.js';
import type { FilteredTool, ToolSource, ToolWarning } from '../toolkit/source.js';
import type { FrozenToolSet } from '../toolkit/tool-set.js';
import type { Tool } from '../toolkit/tool.js';
import { HostError } from './errors.js';
import type { Runtime, RuntimeNote } from './runtime.js';

/** What a tool set is for. */
export const TOOL_PURPOSES = [
  'run', // the full loop: a terminal run, a delegated prompt, a queued job, a Slack turn
  'a2a-tools', // tools lent to peers: narrowed by expose.agent.tools, gated tools dropped
  'mcp', // tools served to MCP clients: narrowed by expose.agent.tools, only MCP-exposable built-ins
  'listing', // `fisk info`: what a run would get, assembled leniently
] as const;
export type ToolPurpose = (typeof TOOL_PURPOSES)[number];

/** Per-run inputs to an assembly. */
export interface AssembleOptions {
  /** A journaled memory read record to seed (a resume). */
  readonly memorySnapshot?: unknown;
  readonly signal?: AbortSignal;
}

/** One assembled tool set and what goes with it. */
export interface AssembledTools {
  readonly purpose: ToolPurpose;
  /** The run's selection, in the order the model is sent it. */
  readonly toolSet: FrozenToolSet;
  /** What a serving surface serves (`mcp`, `a2a-tools`); the selection's tools otherwise. */
  readonly served: readonly Tool[];
  /** Every tool left out, by the selection and then by the surface's narrowing, with why. */
  readonly filtered: readonly FilteredTool[];
  readonly warnings: readonly ToolWarning[];
  /** System prompt notes that depend only on the configuration (fingerprinted). */
  readonly notes: readonly string[];
  /** Notes that change between runs (the memory index): sent last, never fingerprinted. */
  readonly volatileNotes: readonly string[];
  /** The run's memory read record; journal its snapshot with a checkpointed run. */
  readonly memoryScope: Scope | undefined;
  /** Runtime notes about this assembly (lenient listings report what they could not load). */
  readonly runtimeNotes: readonly RuntimeNote[];
  /** The deferral policy the selection was made under, and what it decided for this set. */
  readonly policy: DeferralPolicy;
  readonly deferral: DeferralDecision;
  /** The sources the selection was made from, to select again when an imported list changes. */
  readonly sources: readonly ToolSource[];
}

/**
 * The deferral policy of a runtime: the provider's server-side search when it declares one, the
 * harness's own search otherwise, and `llm.no_tool_search` over both.
 */
export function deferralPolicy(runtime: Runtime): DeferralPolicy {
  return toolkitDeferralPolicy(runtime.facts?.toolSearch ?? false, runtime.config.llm.noToolSearch);
}

/** Serving surfaces send no model requests: the harness search is never attached there. */
function policyFor(runtime: Runtime, purpose: ToolPurpose): DeferralPolicy {
  const policy = deferralPolicy(runtime);
  return purpose === 'run' || purpose === 'listing' ? policy : { ...policy, harnessToolSearch: false };
}

interface MemoryPart {
  readonly source: ToolSource | undefined;
  readonly notes: string[];
  readonly volatile: string[];
  readonly scope: Scope | undefined;
  readonly runtimeNotes: RuntimeNote[];
}

async function memoryPart(runtime: Runtime, purpose: ToolPurpose, opts: AssembleOptions): Promise<MemoryPart> {
  const memory = runtime.config.harness.memory;
  const none: MemoryPart = { source: undefined, notes: [], volatile: [], scope: undefined, runtimeNotes: [] };
  // memory tools are never served: they declare no exposure
  if (!memory.enabled || purpose === 'mcp' || purpose === 'a2a-tools') return none;
  // the memory modules load only for a configuration with memory
  const [{ memoryIndexPrompt, memoryNote, renderMemoryIndex }, { memoryToolsForListing }, { prepareRunMemory }] = await Promise.all([
    import('../memory/prompt.js'),
    import('../memory/tools.js'),
    import('../memory/run-memory.js'),
  ]);
  if (runtime.memoryStore === undefined || purpose === 'listing') {
    // a listing: the tools as defined, and the index the store holds now
    let volatile: string[] = [];
    if (!memory.noIndex && runtime.memoryStore !== undefined)
      volatile = [await memoryIndexPrompt(runtime.memoryStore, opts.signal === undefined ? {} : { signal: opts.signal })];
    else if (!memory.noIndex && runtime.memoryIndex === 'empty') volatile = [renderMemoryIndex([])];
    return {
      ...none,
      source: { source: 'memory', tools: memoryToolsForListing({ readOnly: memory.readOnly }) },
      notes: [memoryNote(memory.readOnly)],
      volatile,
    };
  }
  const prepared = await prepareRunMemory(
    memory,
    { identity: runtime.config.identity },
    {
      store: runtime.memoryStore,
      ...(opts.memorySnapshot === undefined ? {} : { snapshot: opts.memorySnapshot }),
      ...(opts.signal === undefined ? {} : { signal: opts.signal }),
    },
  );
  if (prepared === undefined) return none;
  return {
    source: { source: 'memory', tools: prepared.tools },
    notes: [prepared.note],
    volatile: prepared.index === undefined ? [] : [prepared.index],
    scope: prepared.scope,
    runtimeNotes: [],
  };
}

/**
 * Assembles the tool set for one purpose. Throws `ToolkitError` (`collision`) when two sources
 * claim one name, `HostError` (`no_tools`) when the application's filters left it no tool (a
 * listing reports that as a warning instead) or a serving surface has nothing to serve, and
 * `McpServeError` for a served-name collision.
 */
export async function assembleTools(runtime: Runtime, purpose: ToolPurpose, opts: AssembleOptions = {}): Promise<AssembledTools> {
  const config = runtime.config;
  const sources: ToolSource[] = [];
  const runtimeNotes: RuntimeNote[] = [];
  if (runtime.application !== undefined) sources.push(runtime.application.source);
  if (runtime.human.length > 0) sources.push({ source: 'human', tools: runtime.human });
  const memory = await memoryPart(runtime, purpose, opts);
  if (memory.source !== undefined) sources.push(memory.source);
  runtimeNotes.push(...memory.runtimeNotes);
  if (runtime.knowledge !== undefined) sources.push({ source: 'knowledge', tools: runtime.knowledge.tools });
  // imported tools are used by runs and listed, never served again
  if (purpose === 'run' || purpose === 'listing') sources.push(...runtime.imported.sources());
  if (runtime.custom.length > 0) sources.push({ source: 'custom', tools: runtime.custom });

  const app = runtime.application;
  if (app !== undefined && app.source.tools.length === 0 && app.all.length > 0) {
    const message = `the filters in ${config.source} leave ${config.applicationPath ?? 'the application'} no tool: all ${app.all.length} of its commands are denied or filtered out by include/exclude; loosen include or exclude, or remove application_path`;
    if (purpose !== 'listing') throw new HostError('no_tools', message);
    runtimeNotes.push({ level: 'warning', key: 'include', message });
  }

  const policy = policyFor(runtime, purpose);
  // a listing shows everything else and says what a run would refuse; every other purpose refuses
  const collisions = purpose === 'listing' ? 'skip' : 'abort';
  const selection = selectTools({ sources, confirmTags: config.harness.confirmTags, deferral: policy, collisions });
  if (purpose === 'listing') runtimeNotes.push(...collisionNotes(config, selection.filtered));
  const warnings: ToolWarning[] = [...(app?.warnings ?? []), ...selection.warnings];
  const notes = [...memory.notes, ...(runtime.knowledge?.notes ?? [])];
  const base = {
    purpose,
    toolSet: selection.toolSet,
    warnings,
    notes,
    volatileNotes: memory.volatile,
    memoryScope: memory.scope,
    runtimeNotes,
    policy,
    deferral: selection.deferral,
    sources,
  };

  switch (purpose) {
    case 'run':
    case 'listing':
      return { ...base, served: selection.toolSet.tools, filtered: selection.filtered };
    case 'mcp': {
      const mcp = config.expose.mcp;
      if (mcp === undefined) throw new HostError('no_tools', `serving over MCP needs an expose.agent.mcp block in ${config.source}`);
      const { selectServedTools } = await import('../mcp/server/served-tools.js');
      const narrowed = selectServedTools({ entries: selection.toolSet.entries, expose: config.expose.tools, builtins: mcp.builtins });
      if (narrowed.tools.length === 0) {
        throw new HostError(
          'no_tools',
          `no tools are left to serve after filtering; check include/exclude and expose.agent.tools in ${config.source}`,
        );
      }
      return { ...base, served: narrowed.tools, filtered: [...selection.filtered, ...narrowed.filtered] };
    }
    case 'a2a-tools': {
      const { selectA2aTools } = await import('./served.js');
      const narrowed = selectA2aTools({
        entries: selection.toolSet.entries,
        expose: config.expose.tools,
        confirmTags: config.harness.confirmTags,
      });
      return { ...base, served: narrowed.tools, filtered: [...selection.filtered, ...narrowed.filtered] };
    }
    default: {
      const never: never = purpose;
      return never;
    }
  }
}

/** One warning per name a listing found claimed twice: fisk run refuses to start until they are told apart. */
function collisionNotes(config: Runtime['config'], filtered: readonly FilteredTool[]): RuntimeNote[] {
  return filtered
    .filter((f) => f.reason === 'collision')
    .map((f) => {
      const index = f.source === 'mcp' ? config.mcpClients.findIndex((m) => m.name === f.label) : -1;
      const remedy =
        index < 0
          ? 'rename one, or leave one out with include/exclude'
          : `set mcp_clients[${index}].prefix, or leave it out with mcp_clients[${index}].exclude.tools`;
      const key = index < 0 ? 'include' : `mcp_clients[${index}].prefix`;
      return {
        level: 'warning',
        key,
        message: `tool ${JSON.stringify(f.name)} of ${describeSource(f.source, f.label)} is not listed: ${f.detail}; fisk run refuses to start until the two are told apart: ${remedy}`,
      };
    });
}

/**
 * Selects a run's tools again after an MCP server changed its list: the same sources with that
 * server's replaced. A name claimed twice is skipped and recorded rather than failing the run, so
 * a third party's list cannot end it.
 */
export function reselectTools(runtime: Runtime, assembled: AssembledTools, replaced: ToolSource): AssembledTools {
  const sources = assembled.sources.map((s) => (s.source === replaced.source && s.label === replaced.label ? replaced : s));
  const selection = selectTools({
    sources,
    confirmTags: runtime.config.harness.confirmTags,
    deferral: assembled.policy,
    collisions: 'skip',
  });
  return {
    ...assembled,
    toolSet: selection.toolSet,
    served: selection.toolSet.tools,
    filtered: selection.filtered,
    deferral: selection.deferral,
    sources,
  };
}
