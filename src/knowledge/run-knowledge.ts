import type { KnowledgeConfig } from '../config/index.js';
import type { Tool } from '../toolkit/tool.js';
import { knowledgeSetup, verifyStore } from './setup.js';
import { KnowledgeReader } from './store.js';
import type { DegradeStep } from './tier.js';
import { knowledgeSystemNote, knowledgeTools } from './tools.js';

/** What a run gets from `harness.knowledge`: its tools, its system prompt note, and the store to close. */
export interface RunKnowledge {
  readonly tools: readonly Tool[];
  readonly notes: readonly string[];
  /** The read-only store the tools share; the host that built it closes it when the run ends. */
  readonly reader: KnowledgeReader;
}

/** Where a run resolves its store: the working directory and an optional absolute store base. */
export interface RunKnowledgeContext {
  readonly cwd: string;
  readonly storeBase?: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Told each time a hybrid search falls back to the lexical tier. */
  readonly onDegraded?: ((step: DegradeStep) => void) | undefined;
}

/**
 * Sets up knowledge for one agent run: resolves the store, applies the format gate and refuses an
 * index whose pinned vector identity no longer matches the configuration (before the model is
 * contacted), then builds the knowledge tools over one shared read-only store and the note that
 * tells the model how to use and cite them. Returns `undefined` when knowledge is not enabled. An
 * index that was never built is not an error here: the tools answer "not built" honestly.
 */
export function prepareRunKnowledge(config: KnowledgeConfig, ctx: RunKnowledgeContext): RunKnowledge | undefined {
  if (!config.enabled) return undefined;
  const setup = knowledgeSetup({ directory: config.directory, embeddings: config.embeddings }, ctx);
  const reader = new KnowledgeReader(setup.storeDir);
  try {
    verifyStore(reader, setup.vector);
  } catch (err) {
    reader.close();
    throw err;
  }
  const tools = knowledgeTools({
    reader,
    vector: setup.vector,
    topK: config.topK,
    maxInjectedTokens: config.maxInjectedTokens,
    expandToSection: config.expandToSection,
    readTool: config.readTool,
    citations: config.citations,
    onDegraded: ctx.onDegraded,
  });
  return { tools, notes: [knowledgeSystemNote(config.readTool)], reader };
}

/**
 * The knowledge tools exactly as a run would define them, for listings such as `fisk info`: built
 * over a store that is never opened and with no embeddings client, since neither changes a
 * definition. Calling them answers "not built" rather than touching anything.
 */
export function knowledgeToolsForListing(config: KnowledgeConfig): readonly Tool[] {
  if (!config.enabled) return [];
  return knowledgeTools({
    reader: new KnowledgeReader(config.directory),
    topK: config.topK,
    maxInjectedTokens: config.maxInjectedTokens,
    expandToSection: config.expandToSection,
    readTool: config.readTool,
    citations: config.citations,
  });
}
