import type { ToolDef } from '../../llm/types.js';
import { ToolkitError } from '../errors.js';
import { isValidToolName } from '../names.js';
import { parseToolInput, requiredProblem } from '../required.js';
import { modelDescription } from '../tags.js';
import type { ExecDeps, Kind, Outcome, Presentation, Tool, ToolCapabilities } from '../tool.js';
import type { FuncOrigin, FuncToolSpec } from './spec.js';

/** The construction rules, each refused with a message naming the rule and why it exists. */
function checkSpec(spec: FuncToolSpec): void {
  const refuse = (why: string): never => {
    throw new ToolkitError('spec', `tool ${JSON.stringify(spec.name)}: ${why}`);
  };
  if (!isValidToolName(spec.name)) {
    refuse('the name must be 1 to 64 letters, digits, "_" or "-" (the model APIs accept nothing else)');
  }
  if (spec.description.trim() === '') refuse('the description is empty; a model cannot decide to call a tool it has no words for');
  if (spec.inputSchema['type'] !== 'object') refuse('the input schema root must be {"type": "object"}');
  const origin = spec.origin;
  const gated = spec.confirm !== undefined;
  const exposed = spec.exposure !== undefined && (spec.exposure.mcp || spec.exposure.a2a);
  // a peer agent gates its own tools; an MCP server has no operator, so this one's is the only gate
  if (origin?.kind === 'remote' && origin.delegation === undefined && gated) {
    refuse("a remote agent's tool cannot be confirm-gated here: the serving agent's operator gates it");
  }
  if (exposed && origin !== undefined) {
    refuse(
      `an imported (${origin.kind}) tool cannot be exposed: re-serving another party's tool under this identity needs an operator opt-in a spec cannot record`,
    );
  }
  if (exposed && gated) refuse('a confirm-gated tool cannot declare exposure: no operator stands behind a served call');
  if (origin !== undefined && spec.validateRequired === true) {
    refuse('an imported tool cannot validate required arguments locally: the serving side owns its schema');
  }
  if (spec.kind === 'builtin' && origin === undefined && spec.exposure === undefined) {
    refuse('a built-in must state its exposure (use {mcp: false, a2a: false} to serve it nowhere)');
  }
  if (gated && spec.confirm.trigger.trim() === '') refuse('confirm.trigger is empty; the prompt must name what gated the call');
}

function kindOf(spec: FuncToolSpec): Kind {
  if (spec.origin !== undefined) return spec.origin.kind;
  return spec.kind ?? 'custom';
}

function freezeDeep<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) freezeDeep(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * A tool backed by a function: built-ins, custom tools, and tools imported from peers or MCP
 * servers (discriminated by the spec's origin).
 */
export class FuncTool implements Tool {
  readonly name: string;
  readonly description: string;
  readonly modelDescription: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly kind: Kind;
  readonly presentation: Presentation;
  /** Present for an imported tool. */
  readonly origin: FuncOrigin | undefined;
  readonly capabilities: ToolCapabilities;
  readonly #spec: FuncToolSpec;

  constructor(spec: FuncToolSpec) {
    checkSpec(spec);
    this.#spec = spec;
    this.name = spec.name;
    this.description = spec.description;
    const tags = Object.freeze([...(spec.tags ?? [])]);
    this.modelDescription = modelDescription(spec.description, tags);
    this.inputSchema = freezeDeep(structuredClone(spec.inputSchema) as Record<string, unknown>);
    this.kind = kindOf(spec);
    this.origin = spec.origin;
    this.presentation = spec.presentation ?? (spec.origin === undefined ? 'traced' : 'remote');
    this.capabilities = Object.freeze({
      prompter: spec.needsPrompter === true,
      workDir: spec.needsWorkDir === true,
      operatorPaced: spec.operatorPaced === true,
      deferrable: this.kind !== 'builtin' && (spec.deferrable ?? true),
      gate: Object.freeze(spec.confirm === undefined ? { gated: false } : { gated: true, trigger: spec.confirm.trigger }),
      tags,
      behavior: Object.freeze({
        readOnly: spec.behavior?.readOnly ?? 'unset',
        destructive: spec.behavior?.destructive ?? 'unset',
        idempotent: spec.behavior?.idempotent ?? 'unset',
        openWorld: spec.behavior?.openWorld ?? 'unset',
      }),
      describeCall: null,
      ...(spec.sandbox === undefined ? {} : { sandbox: spec.sandbox === null ? null : Object.freeze(spec.sandbox) }),
    });
  }

  definition(deferLoading: boolean): ToolDef {
    return { name: this.name, description: this.modelDescription, inputSchema: this.inputSchema, deferLoading };
  }

  async execute(input: string, deps: ExecDeps, signal: AbortSignal): Promise<Outcome> {
    const parsed = parseToolInput(input);
    if (!parsed.ok) return { status: 'completed', output: parsed.error, isError: true };
    if (this.#spec.origin === undefined && this.#spec.validateRequired !== false) {
      const problem = requiredProblem(this.inputSchema, parsed.value);
      if (problem !== undefined) return { status: 'completed', output: problem, isError: true };
    }
    return this.#spec.handler(parsed.value, { deps, signal, rawInput: input });
  }

  mcpExposable(): boolean {
    return this.#spec.exposure?.mcp ?? false;
  }

  a2aExposable(): boolean {
    return this.#spec.exposure?.a2a ?? false;
  }
}

/**
 * Builds a tool from a spec, refusing (with a `ToolkitError` of code `spec`) a spec that breaks a
 * construction rule: an invalid name, an empty description, a non-object schema root, a gated
 * remote agent's tool, an exposed imported or gated tool, or a built-in that did not state its exposure.
 */
export function newFuncTool(spec: FuncToolSpec): FuncTool {
  return new FuncTool(spec);
}

/** A completed outcome carrying `value` as the JSON the caller asked for. */
export function jsonOutcome(value: unknown): Outcome {
  // undefined, a function or a symbol has no JSON text: the model is told there was no value
  const text = JSON.stringify(value) as string | undefined;
  return { status: 'completed', output: text ?? 'null', isError: false };
}

/** A completed error outcome the model reads as a failed call. */
export function errorOutcome(message: string): Outcome {
  return { status: 'completed', output: message, isError: true };
}

/** Where an imported tool runs, for its call's line: the serving agent, or `mcp:<server>`; undefined for a tool of this process. */
export function importedFrom(tool: Tool): string | undefined {
  if (!(tool instanceof FuncTool) || tool.origin === undefined) return undefined;
  return tool.origin.kind === 'remote' ? tool.origin.agent : `mcp:${tool.origin.server}`;
}
