/**
 * One leaf command of a fisk application as a tool. The model's arguments reach the binary only
 * as argv; the subprocess runs in its own process group with a credential-free environment.
 */
import { formatGoDuration } from '../../config/duration.js';
import { secretScrubber, secretsFromEnv } from '../../util/secret-scrub.js';
import type { Scrubber } from '../../util/secret-scrub.js';
import type { ToolDef } from '../../llm/types.js';
import { validateRequired } from '../required.js';
import { allowsDefer, confirmGateFor, modelDescription, resolveBehavior } from '../tags.js';
import type { Behavior, ConfirmGate, ExecDeps, Kind, Outcome, Presentation, Tool, ToolCapabilities } from '../tool.js';
import { ArgvError, renderArgvFromJson } from './argv.js';
import type { CommandShape } from './argv.js';
import { toolEnvironment } from './env.js';
import { heldOpenNote } from './held-output.js';
import { runCaptured } from './run-captured.js';
import { traceLine } from './trace.js';
import type { SandboxPolicy } from '../sandbox/policy.js';
import type { SandboxReport } from '../sandbox/report.js';

/** Everything a command tool is built from. */
export interface CommandToolSpec {
  readonly binary: string;
  readonly name: string;
  readonly description: string;
  readonly tags: readonly string[];
  /**
   * The restricted schema with exposed globals merged in: an object, which the tool copies and
   * freezes as it is built, or a function the tool calls once, on first use, whose answer must
   * already be frozen throughout and is used as it is (an application's commands build theirs only
   * when a definition is first asked for).
   */
  readonly inputSchema: Readonly<Record<string, unknown>> | (() => Readonly<Record<string, unknown>>);
  readonly shape: CommandShape;
  readonly confirmTags: readonly string[];
  /** Variables never passed to the subprocess. */
  readonly credentialEnvNames: readonly string[];
  /** The environment the subprocess inherits from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The sandbox every call runs in, with how reports show it; absent runs calls unsandboxed. */
  readonly sandbox?: { readonly policy: SandboxPolicy; readonly report: SandboxReport };
  /** What tag lists imply, shared by the tools built together (most commands carry the same few). */
  readonly tagFacts?: TagFacts;
}

/** What one list of tags implies for a tool, frozen, so every tool with those tags can share it. */
export interface TagFact {
  readonly tags: readonly string[];
  readonly deferrable: boolean;
  readonly gate: ConfirmGate;
  readonly behavior: Behavior;
}

/**
 * The facts of each distinct tag list under one `confirmTags`, computed once a list: an
 * application of thousands of commands has a handful of distinct tag lists.
 */
export class TagFacts {
  readonly #confirmTags: readonly string[];
  readonly #byKey = new Map<string, TagFact>();

  constructor(confirmTags: readonly string[]) {
    this.#confirmTags = confirmTags;
  }

  /** The facts for `tags`; `confirmTags` must be the list these facts were made for. */
  of(tags: readonly string[], confirmTags: readonly string[]): TagFact {
    if (confirmTags !== this.#confirmTags) return tagFact(tags, confirmTags);
    // a tag holding a newline would join ambiguously: such lists are not shared
    const key = tags.some((t) => t.includes('\n')) ? undefined : tags.join('\n');
    if (key === undefined) return tagFact(tags, confirmTags);
    let fact = this.#byKey.get(key);
    if (fact === undefined) {
      fact = tagFact(tags, confirmTags);
      this.#byKey.set(key, fact);
    }
    return fact;
  }
}

function tagFact(tags: readonly string[], confirmTags: readonly string[]): TagFact {
  return Object.freeze({
    tags: Object.freeze([...tags]),
    deferrable: allowsDefer(tags),
    gate: Object.freeze(confirmGateFor(tags, confirmTags)),
    behavior: Object.freeze(resolveBehavior(tags)),
  });
}

/**
 * A frozen deep copy of a JSON value (a schema): one pass that copies and freezes, several times
 * cheaper than a structured clone followed by a freezing walk, which an application of thousands
 * of commands paid for every one of them before its first turn. Keys are defined as own data
 * properties, so a `__proto__` key stays a key.
 */
function frozenCopy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy));
  return Object.freeze(Object.fromEntries(Object.keys(value).map((k) => [k, frozenCopy((value as Record<string, unknown>)[k])])));
}

function withNote(output: string, note: string): string {
  return output === '' || output.endsWith('\n') ? `${output}${note}` : `${output}\n${note}`;
}

/**
 * A leaf command as a tool. Its capabilities: gated by `ai:confirm` or an operator tag, behaviour
 * from its tags, deferrable unless tagged `ai:no_defer`, runs in the work directory; it may be
 * served over MCP and a2a (the serving surfaces apply their own gates). Refused arguments and non-zero exits come
 * back as outcomes; only an abort rejects.
 */
export class FiskCommandTool implements Tool {
  readonly name: string;
  readonly description: string;
  readonly kind: Kind = 'application';
  readonly presentation: Presentation = 'command';
  /** The command path words, e.g. `['stream', 'ls']`. */
  readonly path: readonly string[];
  readonly capabilities: ToolCapabilities;
  readonly #spec: CommandToolSpec;
  #scrub: Scrubber | undefined;
  #schema: Readonly<Record<string, unknown>> | undefined;
  #modelDescription: string | undefined;
  readonly #definitions: [ToolDef | undefined, ToolDef | undefined] = [undefined, undefined];

  constructor(spec: CommandToolSpec) {
    this.#spec = spec;
    this.name = spec.name;
    this.description = spec.description;
    if (typeof spec.inputSchema !== 'function') this.#schema = frozenCopy(spec.inputSchema) as Record<string, unknown>;
    this.path = Object.freeze([...spec.shape.path]);
    const fact = (spec.tagFacts ?? new TagFacts(spec.confirmTags)).of(spec.tags, spec.confirmTags);
    this.capabilities = Object.freeze({
      prompter: false,
      workDir: true,
      operatorPaced: false,
      deferrable: fact.deferrable,
      gate: fact.gate,
      tags: fact.tags,
      behavior: fact.behavior,
      describeCall: (input: string) => traceLine(spec.shape, input),
      sandbox: spec.sandbox === undefined ? null : Object.freeze(spec.sandbox.report),
    });
  }

  /** The input schema, frozen throughout; an application's command makes its own on first use. */
  get inputSchema(): Readonly<Record<string, unknown>> {
    if (this.#schema === undefined) {
      const make = this.#spec.inputSchema as () => Readonly<Record<string, unknown>>;
      this.#schema = make();
    }
    return this.#schema;
  }

  /** The description the model reads, with its `Tags:` line, made on first use. */
  get modelDescription(): string {
    this.#modelDescription ??= modelDescription(this.description, this.capabilities.tags);
    return this.#modelDescription;
  }

  /**
   * The credentials kept from the subprocess can still come back through what it prints. Found in
   * the environment on the first call, not as the tool is built: an application of thousands of
   * commands would otherwise look every credential name up once per command before its first turn.
   */
  #scrubber(): Scrubber {
    this.#scrub ??= secretScrubber(secretsFromEnv(this.#spec.env ?? process.env, this.#spec.credentialEnvNames));
    return this.#scrub;
  }

  /**
   * The same frozen definition every time it is asked for with the same `deferLoading`, so what is
   * worked out from a definition (its hash, its encoding for a request) can be kept with it across
   * the tool sets of many runs.
   */
  definition(deferLoading: boolean): ToolDef {
    const at = deferLoading ? 1 : 0;
    const made = this.#definitions[at];
    if (made !== undefined) return made;
    const def = Object.freeze({ name: this.name, description: this.modelDescription, inputSchema: this.inputSchema, deferLoading });
    this.#definitions[at] = def;
    return def;
  }

  /** The argv this input renders to (without the binary); throws `ArgvError` for refused input. */
  argv(input: string): string[] {
    return renderArgvFromJson(this.#spec.shape, input);
  }

  /** The one-line, control-character-free rendering of a call for traces and prompts. */
  traceLine(input: string): string {
    return traceLine(this.#spec.shape, input);
  }

  async execute(input: string, deps: ExecDeps, signal: AbortSignal): Promise<Outcome> {
    const missing = validateRequired(this.inputSchema, input);
    if (missing !== undefined) return { status: 'completed', output: missing, isError: true };
    let argv: string[];
    try {
      argv = this.argv(input);
    } catch (err) {
      if (err instanceof ArgvError) return { status: 'completed', output: err.message, isError: true };
      throw err;
    }
    const command = argv.join(' ');
    const result = await runCaptured({
      binary: this.#spec.binary,
      argv,
      env: toolEnvironment(this.#spec.env ?? process.env, this.#spec.credentialEnvNames, deps.workDir),
      ...(deps.workDir === undefined ? {} : { cwd: deps.workDir }),
      ...(deps.timeoutMs === undefined ? {} : { timeoutMs: deps.timeoutMs }),
      ...(this.#spec.sandbox === undefined ? {} : { sandbox: this.#spec.sandbox.policy }),
      signal,
    });
    switch (result.kind) {
      case 'exited':
        return {
          status: 'completed',
          output: this.#scrubber()(result.heldOpen ? withNote(result.output, heldOpenNote()) : result.output),
          exec: { command, exitCode: result.exitCode, truncated: result.truncated },
          isError: false,
        };
      case 'timed_out':
        return {
          status: 'completed',
          output: `the command timed out after ${formatGoDuration(deps.timeoutMs ?? 0)} and was killed with its process group${result.heldOpen ? `; ${heldOpenNote()}` : ''}`,
          exec: { command, exitCode: -1, truncated: false },
          isError: true,
        };
      case 'failed':
        return { status: 'completed', output: this.#scrubber()(result.message), isError: true };
      default: {
        const never: never = result;
        return never;
      }
    }
  }

  mcpExposable(): boolean {
    return true;
  }

  a2aExposable(): boolean {
    return true;
  }

  /** The command's tags, in the order the application declared them. */
  tags(): readonly string[] {
    return this.capabilities.tags;
  }
}
