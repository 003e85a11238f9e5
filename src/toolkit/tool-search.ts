/**
 * Harness-side tool search, for providers without a search of their own (`openai-chat`). The
 * model is sent the always-loaded tools plus one built-in search tool; a search ranks the deferred
 * tools by words (an exact name first, then BM25 over names, descriptions, parameter names and
 * tags) and publishes a new immutable set that also carries the matching definitions. Loaded tools
 * stay loaded for the run, and a resume derives them from the search results in the conversation.
 */
import type { Message, ToolDef, ToolResultBlock } from '../llm/types.js';
import { Bm25Index } from './bm25.js';
import type { Bm25Document } from './bm25.js';
import { DEFER_THRESHOLD } from './deferral.js';
import type { DeferralDecision, DeferralPolicy } from './deferral.js';
import { ToolkitError } from './errors.js';
import { errorOutcome, jsonOutcome, newFuncTool } from './functool/functool.js';
import { isValidToolName } from './names.js';
import type { FrozenToolSet, ToolEntry } from './tool-set.js';
import type { ExecDeps, Kind, Outcome, Presentation, Tool, ToolCapabilities, ToolSet } from './tool.js';
import { counted } from '../util/count.js';

/** The name of the built-in search tool. */
export const TOOL_SEARCH_NAME = 'tool_search';
/** How many tools one search loads unless the model asks for fewer or more. */
export const TOOL_SEARCH_DEFAULT_LIMIT = 5;
/** The most tools one search loads. */
export const TOOL_SEARCH_MAX_LIMIT = 10;

/** Word weights: a word in the name counts three times, in a parameter name twice. */
const NAME_WEIGHT = 3;
const PARAM_WEIGHT = 2;
const TEXT_WEIGHT = 1;
/** How much of a description a search result repeats. */
const RESULT_DESCRIPTION_CHARS = 200;

/** Where a search publishes the set it loaded into: `PublishedToolSetSource` is one. */
export interface ToolSetPublisher {
  current(): ToolSet;
  publish(set: ToolSet, advisory?: string): void;
}

/** The parts every set derived from one selection shares. */
interface Shared {
  readonly full: FrozenToolSet;
  readonly deferred: ReadonlySet<string>;
  /** The search index over the deferred tools, built when the model first searches. */
  readonly index: () => Bm25Index;
  readonly searchTool: Tool;
  /** Case-folded name to name, for an exact match written in another case. */
  readonly folded: ReadonlyMap<string, string>;
  /** Every definition, deferred or not, with the search tool's: made when first asked for. */
  fullDefinitions?: readonly ToolDef[];
}

/** The message a call to a deferred tool that was not loaded yet is answered with. */
export function notLoadedMessage(name: string): string {
  return (
    `${name} was not run: its definition is not loaded yet. Call ${TOOL_SEARCH_NAME} with words for what you want to do ` +
    `(or with the exact name ${JSON.stringify(name)}); the tools it finds are added to your tool list for your next step, and then you can call them`
  );
}

/**
 * What `get` hands out for a deferred tool that was not loaded: same name, nothing behind it. Its
 * only answer is the search-first message, so a loop without the `deferredNotLoaded` check still
 * never runs the real tool.
 */
class NotLoadedTool implements Tool {
  readonly description: string;
  readonly modelDescription: string;
  readonly inputSchema: Readonly<Record<string, unknown>> = Object.freeze({ type: 'object' });
  readonly presentation: Presentation = 'traced';
  /** Nothing runs, so there is nothing to approve, defer or describe. */
  readonly capabilities: ToolCapabilities = Object.freeze({
    prompter: false,
    workDir: false,
    operatorPaced: false,
    deferrable: false,
    gate: Object.freeze({ gated: false }),
    tags: Object.freeze([]),
    behavior: null,
    describeCall: null,
  });

  constructor(
    readonly name: string,
    readonly kind: Kind,
  ) {
    this.description = `${name} (deferred, not loaded)`;
    this.modelDescription = this.description;
    Object.freeze(this);
  }

  definition(deferLoading: boolean): ToolDef {
    return { name: this.name, description: this.modelDescription, inputSchema: this.inputSchema, deferLoading };
  }

  execute(_input: string, _deps: ExecDeps, _signal: AbortSignal): Promise<Outcome> {
    return Promise.resolve({ status: 'completed', output: notLoadedMessage(this.name), isError: true });
  }

  mcpExposable(): boolean {
    return false;
  }

  a2aExposable(): boolean {
    return false;
  }
}

function parameterNames(schema: Readonly<Record<string, unknown>>): string {
  const props = schema['properties'];
  if (typeof props !== 'object' || props === null || Array.isArray(props)) return '';
  return Object.keys(props).join(' ');
}

function documentOf(tool: Tool): Bm25Document {
  return {
    id: tool.name,
    fields: [
      { text: tool.name, weight: NAME_WEIGHT },
      { text: tool.description, weight: TEXT_WEIGHT },
      { text: parameterNames(tool.inputSchema), weight: PARAM_WEIGHT },
      { text: tool.capabilities.tags.join(' '), weight: TEXT_WEIGHT },
    ],
  };
}

function shortDescription(text: string): string {
  const line = text.split('\n')[0]?.trim() ?? '';
  return line.length <= RESULT_DESCRIPTION_CHARS ? line : `${line.slice(0, RESULT_DESCRIPTION_CHARS - 3)}...`;
}

/**
 * A tool set whose deferred definitions are loaded by the harness's own search. The model sees the
 * always-loaded tools in selection order, then the search tool, then the loaded tools in the order
 * they were found, so a load only ever appends to what was sent before. Immutable: a load makes a
 * new set with `withLoaded`.
 */
export class SearchableToolSet implements ToolSet {
  /** The tools the model can call now: always-loaded, the search tool, and the loaded ones. */
  readonly tools: readonly Tool[];
  /** The deferred tools loaded so far, in the order they were found. */
  readonly loaded: readonly string[];
  readonly #shared: Shared;
  readonly #visible: ReadonlyMap<string, Tool>;
  readonly #definitions: readonly ToolDef[];

  private constructor(shared: Shared, loaded: readonly string[]) {
    this.#shared = shared;
    this.loaded = Object.freeze([...loaded]);
    const tools: Tool[] = shared.full.entries.filter((e) => !e.deferred).map((e) => e.tool);
    tools.push(shared.searchTool);
    for (const name of loaded) {
      const tool = shared.full.get(name);
      if (tool !== undefined) tools.push(tool);
    }
    this.tools = Object.freeze(tools);
    this.#visible = new Map(tools.map((t) => [t.name, t]));
    this.#definitions = Object.freeze(tools.map((t) => Object.freeze(t.definition(false))));
    Object.freeze(this);
  }

  /** A set over `full` (whose deferred entries become searchable) with nothing loaded but `loaded`. */
  static create(full: FrozenToolSet, searchTool: Tool, loaded: Iterable<string> = []): SearchableToolSet {
    const deferredEntries = full.entries.filter((e) => e.deferred);
    let index: Bm25Index | undefined;
    const shared: Shared = {
      full,
      deferred: new Set(deferredEntries.map((e) => e.tool.name)),
      index: () => (index ??= new Bm25Index(deferredEntries.map((e) => documentOf(e.tool)))),
      searchTool,
      folded: new Map(deferredEntries.map((e) => [e.tool.name.toLowerCase(), e.tool.name])),
    };
    return new SearchableToolSet(shared, []).withLoaded(loaded);
  }

  /** The whole selection, deferred entries included, as `fisk info` lists it. */
  get full(): FrozenToolSet {
    return this.#shared.full;
  }

  /** The built-in search tool of this set. */
  get searchTool(): Tool {
    return this.#shared.searchTool;
  }

  /** Every deferred name, loaded or not, in selection order. */
  get deferred(): ReadonlySet<string> {
    return this.#shared.deferred;
  }

  /**
   * A callable tool by name. A deferred tool not loaded yet gets a stand-in whose only answer is
   * the search-first message; a name outside the set gets `undefined`.
   */
  get(name: string): Tool | undefined {
    const visible = this.#visible.get(name);
    if (visible !== undefined) return visible;
    if (!this.#shared.deferred.has(name)) return undefined;
    const real = this.#shared.full.get(name);
    return real === undefined ? undefined : new NotLoadedTool(name, real.kind);
  }

  /** The full set's entry for a name (its source, and whether its definition is deferred). */
  entry(name: string): ToolEntry | undefined {
    return this.#shared.full.entry(name);
  }

  definitions(): readonly ToolDef[] {
    return this.#definitions;
  }

  /**
   * Every definition of the run, deferred ones included and marked so, then the search tool: what
   * the fingerprint covers, whatever has been loaded.
   */
  fullDefinitions(): readonly ToolDef[] {
    // the same list for every set sharing these tools, so a fingerprint hashes it once
    this.#shared.fullDefinitions ??= Object.freeze([...this.#shared.full.definitions(), this.#shared.searchTool.definition(false)]);
    return this.#shared.fullDefinitions;
  }

  /** Whether `name` is deferred and not loaded in this set. */
  isWaiting(name: string): boolean {
    return this.#shared.deferred.has(name) && !this.#visible.has(name);
  }

  /**
   * The deferred tools matching `query`, best first, at most `limit`: names written exactly (the
   * whole query, or any of its words) first, then BM25 over names, descriptions, parameter names
   * and tags. A query made only of exact names loads just those tools.
   */
  search(query: string, limit: number = TOOL_SEARCH_DEFAULT_LIMIT): string[] {
    const { deferred, folded, index } = this.#shared;
    const cap = Math.max(1, Math.min(TOOL_SEARCH_MAX_LIMIT, Math.floor(limit)));
    const out: string[] = [];
    const exact = (word: string): string | undefined => (deferred.has(word) ? word : folded.get(word.toLowerCase()));
    const whole = exact(query.trim());
    if (whole !== undefined) return [whole];
    const words = query.split(/[\s,;]+/).filter((w) => w !== '');
    for (const word of words) {
      const hit = exact(word);
      if (hit !== undefined && !out.includes(hit)) out.push(hit);
    }
    // names alone load just those tools; other words also rank by BM25
    if (out.length >= cap || (out.length > 0 && out.length === words.length)) return out.slice(0, cap);
    for (const hit of index().search(query, cap + out.length)) {
      if (out.length >= cap) break;
      if (!out.includes(hit.id)) out.push(hit.id);
    }
    return out;
  }

  /** This set with `names` loaded too (names that are not deferred here are ignored); itself when nothing is new. */
  withLoaded(names: Iterable<string>): SearchableToolSet {
    const next = [...this.loaded];
    for (const name of names) {
      if (this.#shared.deferred.has(name) && !next.includes(name)) next.push(name);
    }
    return next.length === this.loaded.length ? this : new SearchableToolSet(this.#shared, next);
  }
}

function searchToolFor(publisher: ToolSetPublisher, waiting: number): Tool {
  return newFuncTool({
    name: TOOL_SEARCH_NAME,
    description:
      `Finds tools that are not in your tool list yet: ${waiting} more tools are available. Describe what you want to do in a few words ` +
      `(what it acts on and what it does), or give a tool's exact name. The matching tools are added to your tool list for your next step and stay there.`,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words for what you want to do, or exact tool names separated by spaces.' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: TOOL_SEARCH_MAX_LIMIT,
          description: `How many tools to load (default ${TOOL_SEARCH_DEFAULT_LIMIT}).`,
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    kind: 'builtin',
    exposure: { mcp: false, a2a: false },
    behavior: { readOnly: 'true', destructive: 'false', idempotent: 'true', openWorld: 'false' },
    deferrable: false,
    handler: (input) => {
      const query = input['query'];
      if (typeof query !== 'string' || query.trim() === '') {
        return Promise.resolve(errorOutcome(`${TOOL_SEARCH_NAME} needs "query": words for what you want to do, or a tool's exact name`));
      }
      const l = input['limit'];
      const limit = typeof l === 'number' && Number.isInteger(l) && l >= 1 ? l : TOOL_SEARCH_DEFAULT_LIMIT;
      const current = publisher.current();
      if (!(current instanceof SearchableToolSet)) {
        return Promise.resolve(errorOutcome('no tools are waiting to be loaded: every tool of this run is already in your tool list'));
      }
      const names = current.search(query, limit);
      if (names.length === 0) {
        return Promise.resolve(
          jsonOutcome({ loaded: [], message: 'no tool matches these words; try others (what the tool acts on, or what it does)' }),
        );
      }
      const next = current.withLoaded(names);
      if (next !== current) publisher.publish(next);
      return Promise.resolve(
        jsonOutcome({
          loaded: names,
          tools: names.map((name) => ({ name, description: shortDescription(current.full.get(name)?.description ?? '') })),
          note: 'these tools are now in your tool list; call them directly',
        }),
      );
    },
  });
}

/**
 * The set to publish for a selection. When the harness answers searches (`deferral.via` is
 * `harness`), a `SearchableToolSet` with the search tool and `loaded` already loaded (a resume or
 * a rebuild); otherwise the selection's own set, unchanged. Throws a `ToolkitError` (`collision`)
 * when a selected tool already holds the search tool's name.
 */
export function attachToolSearch(
  selection: { readonly toolSet: FrozenToolSet; readonly deferral: DeferralDecision },
  publisher: ToolSetPublisher,
  options: { readonly loaded?: Iterable<string> } = {},
): ToolSet {
  if (selection.deferral.via !== 'harness') return selection.toolSet;
  const clash = selection.toolSet.entry(TOOL_SEARCH_NAME);
  if (clash !== undefined) {
    throw new ToolkitError(
      'collision',
      `tool name ${JSON.stringify(TOOL_SEARCH_NAME)} is taken by a ${clash.source} tool, and the built-in tool search needs it; rename that tool, ` +
        'leave it out with exclude, or set llm.no_tool_search',
    );
  }
  const waiting = selection.toolSet.entries.filter((e) => e.deferred).length;
  return SearchableToolSet.create(selection.toolSet, searchToolFor(publisher, waiting), options.loaded ?? []);
}

/**
 * For the invocation pipeline, before any hook or gate: the result to answer a call with when
 * `name` is a deferred tool not loaded yet in `set`, else `undefined` (call it as usual). Such a
 * call is never executed.
 */
export function deferredNotLoaded(set: ToolSet, name: string): string | undefined {
  return set instanceof SearchableToolSet && set.isWaiting(name) ? notLoadedMessage(name) : undefined;
}

/** The names loaded so far in `set`, to carry into a rebuilt set. Empty for any other set. */
export function loadedToolNames(set: ToolSet): readonly string[] {
  return set instanceof SearchableToolSet ? set.loaded : [];
}

/**
 * The definitions a run fingerprint covers: the full set, deferred definitions included, whatever
 * the harness search has loaded so far. For any other set, its definitions as sent.
 */
export function fingerprintDefinitions(set: ToolSet): readonly ToolDef[] {
  return set instanceof SearchableToolSet ? set.fullDefinitions() : set.definitions();
}

function loadedIn(content: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return [];
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return [];
  const loaded = (parsed as Record<string, unknown>)['loaded'];
  if (!Array.isArray(loaded)) return [];
  return loaded.filter((n): n is string => typeof n === 'string' && isValidToolName(n));
}

/**
 * The tool names earlier searches loaded, read from the search tool's results in a conversation
 * (for a resume: no record of its own is journaled). Only results answering a call named
 * `tool_search` count, and error results never do. `pending` is a resumed batch: its model turn
 * and the results already recorded for it. Names a set no longer defers are dropped by `withLoaded`.
 */
export function loadedFromHistory(
  messages: readonly Message[],
  pending?: { readonly message: Message; readonly results: ReadonlyMap<string, ToolResultBlock> },
): string[] {
  const searchCalls = new Set<string>();
  const results: ToolResultBlock[] = [];
  const turns = pending === undefined ? messages : [...messages, pending.message];
  for (const m of turns) {
    for (const b of m.content) {
      if (b.type === 'tool_use' && b.name === TOOL_SEARCH_NAME) searchCalls.add(b.id);
      if (b.type === 'tool_result') results.push(b);
    }
  }
  if (pending !== undefined) results.push(...pending.results.values());
  const out: string[] = [];
  for (const r of results) {
    if (r.isError === true || !searchCalls.has(r.toolUseId)) continue;
    for (const name of loadedIn(r.content)) if (!out.includes(name)) out.push(name);
  }
  return out;
}

/** How the model reaches the definitions of a run, as `fisk info` reports it. */
export const TOOL_REACH_MODES = ['all_sent', 'provider_search', 'harness_search', 'search_off', 'no_search'] as const;
export type ToolReachMode = (typeof TOOL_REACH_MODES)[number];

/** Which tools are deferred and how the model reaches them. */
export interface ToolReach {
  readonly mode: ToolReachMode;
  /** The deferred names, in selection order. */
  readonly deferred: readonly string[];
  /** One line for people. */
  readonly summary: string;
}

/**
 * Describes, for whichever provider the policy was built for, which tools are deferred and how the
 * model reaches them. `entries` are the selected set's entries (deferral already decided).
 */
export function describeToolReach(policy: DeferralPolicy, decision: DeferralDecision, entries: readonly ToolEntry[]): ToolReach {
  const deferred = entries.filter((e) => e.deferred).map((e) => e.tool.name);
  const count = deferred.length;
  const threshold = `${decision.counted} tools count toward the threshold of ${DEFER_THRESHOLD}`;
  switch (decision.via) {
    case 'provider':
      return {
        mode: 'provider_search',
        deferred,
        summary: `${count} definitions are deferred (${threshold}); the model finds them through the provider's server-side tool search`,
      };
    case 'harness':
      return {
        mode: 'harness_search',
        deferred,
        summary: `${count} definitions are deferred (${threshold}); the provider has no tool search, so the model finds them with the built-in ${TOOL_SEARCH_NAME} tool, which loads the matching definitions for the rest of the run`,
      };
    case 'none':
      if (!decision.sentAllInstead) {
        const why =
          decision.counted <= DEFER_THRESHOLD
            ? `${counted(decision.counted, 'tool')}, at most ${DEFER_THRESHOLD}`
            : 'no tool may be deferred: built-ins and ai:no_defer';
        return { mode: 'all_sent', deferred, summary: `nothing is deferred (${why}): every definition is sent with each request` };
      }
      if (policy.noToolSearch)
        return {
          mode: 'search_off',
          deferred,
          summary: `nothing is deferred: llm.no_tool_search is set, so all ${decision.counted} definitions are sent with each request`,
        };
      return {
        mode: 'no_search',
        deferred,
        summary: `nothing is deferred: the provider has no tool search and the harness search is not in use, so all ${decision.counted} definitions are sent with each request`,
      };
    default: {
      const never: never = decision.via;
      throw new TypeError(`unknown deferral ${JSON.stringify(never)}`);
    }
  }
}
