import type { ToolDef } from '../llm/types.js';

/**
 * The tool contract every source implements: fisk application commands, built-ins, remote agents'
 * tools, MCP servers' tools and custom functions. Kind-specific policy is not folded in here;
 * consumers reach for the narrow capability interfaces below and fall back to conservative
 * defaults when one is absent.
 */
export interface Tool {
  /** The flat name the model addresses the tool by. */
  readonly name: string;
  /** Plain description for people (`fisk info` shows it with tags in a column of their own). */
  readonly description: string;
  /** The description the model reads: the plain one plus a trailing `Tags: ...` line. */
  readonly modelDescription: string;
  /** The restricted JSON schema of the input object. Never mutated after construction. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** The accounting axis: which source the tool came from. */
  readonly kind: Kind;
  /** The visibility axis: how a surface renders a call. */
  readonly presentation: Presentation;
  /** The definition sent to the model. */
  definition(deferLoading: boolean): ToolDef;
  /**
   * Runs the tool. `input` is the raw JSON text of the arguments. Failures the model should reason
   * about (a non-zero exit, a refused argument) are returned in the outcome; only harness failures
   * throw.
   */
  execute(input: string, deps: ExecDeps, signal: AbortSignal): Promise<Outcome>;
  /**
   * Exposure sits in the contract on purpose: every kind must answer whether it may be served over
   * MCP or a2a, so a new kind cannot reach a serving surface without a recorded decision.
   */
  mcpExposable(): boolean;
  a2aExposable(): boolean;
}

/** Where a tool came from. A log line and a metric label carry it. */
export const KINDS = ['application', 'builtin', 'remote', 'custom', 'mcp', 'unknown'] as const;
export type Kind = (typeof KINDS)[number];

/** How a call is shown: a command line, a remote call, self-rendered, or a traced call. */
export const PRESENTATIONS = ['command', 'remote', 'self-rendered', 'traced'] as const;
export type Presentation = (typeof PRESENTATIONS)[number];

/** What a command tool ran, present only on a command's outcome. */
export interface ExecRecord {
  /** The command path and arguments, without the binary. */
  readonly command: string;
  readonly exitCode: number;
  readonly truncated: boolean;
}

/** A tool answered now. */
export interface CompletedOutcome {
  readonly status: 'completed';
  /**
   * With `exec`, the command's captured output (rendered to the model as the `CommandResult`
   * envelope); without, the tool's own JSON text, passed through verbatim.
   */
  readonly output: string;
  readonly exec?: ExecRecord;
  /** The tool failed in a way the model should see as an error result. */
  readonly isError: boolean;
}

/** A tool saying it will answer later: the call is journaled as deferred and the run suspends. */
export interface DeferredOutcome {
  readonly status: 'deferred';
  readonly reason: string;
}

export type Outcome = CompletedOutcome | DeferredOutcome;

/** The JSON envelope a command's result travels in, to the model and over every surface. */
export interface CommandResult {
  readonly command: string;
  readonly exit_code: number;
  readonly output: string;
  readonly truncated?: true;
}

/** What the operator chose at the confirm gate. */
export type ApprovalDecision = 'once' | 'always' | 'decline';

/** What the confirm gate shows the operator. */
export interface ApprovalRequest {
  readonly tool: string;
  /** The resolved command line or call, control sequences already stripped. */
  readonly commandLine: string;
  /** The tag that triggered the gate. */
  readonly trigger: string;
}

/**
 * Puts questions to a person. Every method resolves to the conservative answer (decline, `null`)
 * when nobody can answer; `canPrompt` says up front whether anybody is there.
 */
export interface Prompter {
  canPrompt(): boolean;
  approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
  confirm(question: string, signal: AbortSignal): Promise<boolean>;
  select(question: string, options: readonly string[], signal: AbortSignal): Promise<string | null>;
  input(question: string, signal: AbortSignal): Promise<string | null>;
}

/**
 * What a call receives besides its input. A tool gets a prompter or a work directory only when it
 * declared the need through the matching capability.
 */
export interface ExecDeps {
  readonly prompter?: Prompter;
  readonly workDir?: string;
  /** The per-call timeout the loop applies, for tools that report it in their own message. */
  readonly timeoutMs?: number;
}

/** A three-state behaviour hint, as in the MCP tool annotations. */
export type Hint = 'true' | 'false' | 'unset';

/** A tool's resolved behaviour hints. */
export interface Behavior {
  readonly readOnly: Hint;
  readonly destructive: Hint;
  readonly idempotent: Hint;
  readonly openWorld: Hint;
}

/** A tool that can say how it behaves. Absent, consumers assume the conservative answer. */
export interface BehaviorDescriber {
  behavior(): Behavior;
}

/** Whether a tool stands behind the confirm gate, and the tag that put it there. */
export interface ConfirmGate {
  readonly gated: boolean;
  /** The trigger named in a prompt: `ai:confirm` when present, else the first matching operator tag. */
  readonly trigger?: string;
}

/** A tool that can report whether it needs approval. Serving surfaces refuse a tool that cannot. */
export interface Confirmable {
  confirmGate(): ConfirmGate;
}

/** A tool whose calls need a prompter (and receive one only by declaring it). */
export interface NeedsPrompter {
  needsPrompter(): true;
}

/** A tool whose calls need a working directory. */
export interface NeedsWorkDir {
  needsWorkDir(): true;
}

/** A tool paced by the operator (it waits on a person), exempt from the tool timeout. */
export interface OperatorPaced {
  operatorPaced(): true;
}

/** A tool that may be deferred behind tool search (not a built-in, not tagged `ai:no_defer`). */
export interface Deferrable {
  deferrable(): boolean;
}

/** A tool that carries tags from its source (fisk application commands). */
export interface Tagged {
  tags(): readonly string[];
}

function hasMethod(tool: Tool, name: string): boolean {
  return typeof (tool as unknown as Record<string, unknown>)[name] === 'function';
}

export function isBehaviorDescriber(tool: Tool): tool is Tool & BehaviorDescriber {
  return hasMethod(tool, 'behavior');
}
export function isConfirmable(tool: Tool): tool is Tool & Confirmable {
  return hasMethod(tool, 'confirmGate');
}
export function needsPrompter(tool: Tool): tool is Tool & NeedsPrompter {
  return hasMethod(tool, 'needsPrompter');
}
export function needsWorkDir(tool: Tool): tool is Tool & NeedsWorkDir {
  return hasMethod(tool, 'needsWorkDir');
}
export function isOperatorPaced(tool: Tool): tool is Tool & OperatorPaced {
  return hasMethod(tool, 'operatorPaced');
}
export function isDeferrable(tool: Tool): tool is Tool & Deferrable {
  return hasMethod(tool, 'deferrable');
}
export function isTagged(tool: Tool): tool is Tool & Tagged {
  return hasMethod(tool, 'tags');
}

/**
 * An immutable, selected set of tools for one run: what the model sees, what `fisk info` lists
 * and what can be dispatched are this one list. A change is a whole new set.
 */
export interface ToolSet {
  readonly tools: readonly Tool[];
  /** Looks a tool up by the flat name the model used. */
  get(name: string): Tool | undefined;
  /** The definitions sent to the model, with deferred loading already decided for this set. */
  definitions(): readonly ToolDef[];
}

/**
 * Where a run takes its tool set from. The loop takes one snapshot per model call, so a set
 * swapped mid-batch cannot strand a call the model already made.
 */
export interface ToolSetSource {
  current(): ToolSet;
  /** Advisories queued by other sources (an MCP server changed its list), drained with the snapshot. */
  drainAdvisories(): readonly string[];
}
