/**
 * A custom tool for tests, built from what a test cares about (a name, its input properties, a
 * gate, what a call does); the rest of the tool contract is filled in the same way for every test.
 */
import type { Outcome, Tool } from '../toolkit/tool.js';

export interface TestToolSpec {
  readonly name: string;
  /** What people and the model read (default: the name). */
  readonly description?: string;
  /** The properties of the input object (default: none). */
  readonly properties?: Readonly<Record<string, unknown>>;
  /** Gated behind `ai:confirm`: every call needs an approval. */
  readonly gated?: boolean;
  readonly tags?: readonly string[];
  /** What a call does, given the raw JSON arguments and the run's signal. */
  readonly execute: (input: string, signal: AbortSignal) => Promise<Outcome> | Outcome;
}

/** A completed outcome with `output`. */
export function completed(output: string): Outcome {
  return { status: 'completed', output, isError: false };
}

/** A custom tool from `spec`: ungated unless asked, no declared behaviour, served over neither MCP nor a2a. */
export function testTool(spec: TestToolSpec): Tool {
  const description = spec.description ?? spec.name;
  const schema = { type: 'object', properties: spec.properties ?? {}, additionalProperties: false };
  return {
    name: spec.name,
    description,
    modelDescription: description,
    inputSchema: schema,
    kind: 'custom',
    presentation: 'traced',
    capabilities: {
      prompter: false,
      workDir: false,
      operatorPaced: false,
      deferrable: false,
      gate: spec.gated === true ? { gated: true, trigger: 'ai:confirm' } : { gated: false },
      tags: spec.tags ?? [],
      behavior: null,
      describeCall: null,
    },
    definition: (deferLoading) => ({ name: spec.name, description, inputSchema: schema, deferLoading }),
    execute: async (input, _deps, signal) => spec.execute(input, signal),
    mcpExposable: () => false,
    a2aExposable: () => false,
  };
}
