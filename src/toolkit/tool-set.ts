import type { ToolDef } from '../llm/types.js';
import type { SourceName } from './source.js';
import type { Tool, ToolSet, ToolSetSource } from './tool.js';

/** A tool's place in a set: where it came from and whether its definition is deferred. */
export interface ToolEntry {
  readonly tool: Tool;
  readonly source: SourceName;
  readonly label?: string;
  readonly deferred: boolean;
}

/**
 * An immutable tool set. Definitions are computed once, when first asked for (a set whose
 * deferred tools the harness searches never asks for most of them), from tools that never change,
 * so what the model is sent cannot drift from what `get` dispatches to.
 */
export class FrozenToolSet implements ToolSet {
  readonly tools: readonly Tool[];
  readonly entries: readonly ToolEntry[];
  readonly #byName: ReadonlyMap<string, ToolEntry>;
  #definitions: readonly ToolDef[] | undefined;

  constructor(entries: readonly ToolEntry[]) {
    this.entries = Object.freeze([...entries]);
    this.tools = Object.freeze(entries.map((e) => e.tool));
    this.#byName = new Map(entries.map((e) => [e.tool.name, e]));
    Object.freeze(this);
  }

  get(name: string): Tool | undefined {
    return this.#byName.get(name)?.tool;
  }

  /** The entry for a name: its source and deferral. */
  entry(name: string): ToolEntry | undefined {
    return this.#byName.get(name);
  }

  definitions(): readonly ToolDef[] {
    this.#definitions ??= Object.freeze(this.entries.map((e) => Object.freeze(e.tool.definition(e.deferred))));
    return this.#definitions;
  }
}

/** The empty set. */
export const EMPTY_TOOL_SET: ToolSet = new FrozenToolSet([]);

/**
 * A `ToolSetSource` that a host publishes whole sets to. The loop's snapshot is whichever set was
 * published last; advisories queue until the loop drains them with its next snapshot.
 */
export class PublishedToolSetSource implements ToolSetSource {
  #current: ToolSet;
  #advisories: string[] = [];
  readonly #settled: () => Promise<void>;

  /** `settled` is what the host has pending for this source (its MCP rebuilds); nothing by default. */
  constructor(initial: ToolSet, settled: () => Promise<void> = () => Promise.resolve()) {
    this.#current = initial;
    this.#settled = settled;
  }

  current(): ToolSet {
    return this.#current;
  }

  settled(): Promise<void> {
    return this.#settled().catch(() => undefined);
  }

  /** Replaces the set; a set is never edited in place. */
  publish(set: ToolSet, advisory?: string): void {
    this.#current = set;
    if (advisory !== undefined) this.#advisories.push(advisory);
  }

  /** Queues a note for the loop without changing the set. */
  advise(message: string): void {
    this.#advisories.push(message);
  }

  drainAdvisories(): readonly string[] {
    const out = this.#advisories;
    this.#advisories = [];
    return out;
  }
}
