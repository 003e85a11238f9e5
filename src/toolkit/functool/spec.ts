import type { SandboxReport } from '../sandbox/report.js';
import type { Behavior, ExecDeps, Outcome, Presentation } from '../tool.js';

/** Where a function tool's authority sits when it is not this process. */
export type FuncOrigin =
  | {
      readonly kind: 'remote';
      /** The serving agent's identity. */
      readonly agent: string;
      /** The name on the wire. */
      readonly remoteName: string;
      /**
       * Set for a delegation tool (`remote_agents`): the whole task goes to the peer over this
       * transport. Such a tool is this agent's decision to make, so it may stand behind the gate.
       */
      readonly delegation?: 'nats' | 'a2a-http';
      /** Where a delegation goes, for people: the NATS identity or the agent card URL. */
      readonly endpoint?: string;
    }
  | { readonly kind: 'mcp'; /** The configured MCP client name. */ readonly server: string; readonly remoteName: string };

/** Which serving surfaces may re-serve the tool. Default-deny: absent means nowhere. */
export interface Exposure {
  readonly mcp: boolean;
  readonly a2a: boolean;
}

/** What a handler receives besides its parsed input. */
export interface FuncCall {
  readonly deps: ExecDeps;
  readonly signal: AbortSignal;
  /** The raw JSON text the model produced, byte for byte. */
  readonly rawInput: string;
}

/** A function tool's body: parsed object input in, an outcome out. */
export type FuncHandler = (input: Record<string, unknown>, call: FuncCall) => Promise<Outcome>;

/**
 * Everything `newFuncTool` needs. Construction enforces the serving rules: a remote agent's tool
 * cannot be gated (its serving agent gates it; an MCP-backed tool may be, since an MCP server has no
 * operator of its own), an exposed tool cannot be remote, MCP-backed or gated, and a built-in must
 * state its exposure.
 */
export interface FuncToolSpec {
  readonly name: string;
  /** The plain description; the model reads it with a `Tags:` line appended when there are tags. */
  readonly description: string;
  /** A JSON schema whose root is `{"type": "object", ...}`. Cloned and frozen at construction. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** `builtin` for harness tools, `custom` (the default) for an embedder's functions. Ignored with an origin. */
  readonly kind?: 'builtin' | 'custom';
  /** Present for a tool imported from another agent or an MCP server. */
  readonly origin?: FuncOrigin;
  /** Defaults to `traced` for local tools and `remote` for imported ones. */
  readonly presentation?: Presentation;
  /**
   * Check the schema's required arguments before the handler runs (default true for local tools).
   * Refused for an imported tool: the serving side owns the schema, and two validators must not disagree.
   */
  readonly validateRequired?: boolean;
  /** Behaviour hints; unset fields stay `unset`. */
  readonly behavior?: Partial<Behavior>;
  /** Puts the tool behind the approval gate, naming the trigger shown in the prompt. */
  readonly confirm?: { readonly trigger: string };
  /** Required for built-ins; default-deny for every other kind. */
  readonly exposure?: Exposure;
  /** Tags carried to the model's description line and to `fisk info`. */
  readonly tags?: readonly string[];
  /** Whether the tool may be deferred behind tool search (never for built-ins; default true otherwise). */
  readonly deferrable?: boolean;
  readonly needsPrompter?: boolean;
  readonly needsWorkDir?: boolean;
  /** The call waits on a person and is exempt from the tool timeout. */
  readonly operatorPaced?: boolean;
  /** The sandbox of the process the tool calls into (an MCP stdio server's); `null` when it runs unsandboxed. */
  readonly sandbox?: SandboxReport | null;
  readonly handler: FuncHandler;
}
