import type { SandboxReport } from './sandbox/report.js';
import type { ToolDef, ToolImage } from '../llm/types.js';
import { oneLine } from '../util/terminal-text.js';

/**
 * The tool contract every source implements: fisk application commands, built-ins, remote agents'
 * tools, MCP servers' tools and custom functions. What a tool needs and how it behaves is declared
 * in its `capabilities`, never discovered by probing for methods.
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
  /** What the tool needs and how it behaves (prompter, work dir, gate, tags, ...). */
  readonly capabilities: ToolCapabilities;
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
  /** Images for the model (an MCP server's); `output` names each of them in words as well. */
  readonly images?: readonly ToolImage[];
  /** Tokens another agent spent on a task this call delegated to it, as it reported them. */
  readonly delegated?: DelegatedUsage;
}

/** What a peer reported spending on a delegated task, and whether the run's token budget counts it. */
export interface DelegatedUsage {
  readonly input: number;
  readonly output: number;
  /** The operator asked for the peer's tokens to count against `llm.budget.max_tokens`. */
  readonly countsBudget: boolean;
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

/** A decline that tells the agent what to do instead ("No, and tell the agent what to do instead"). */
export interface ReasonedDecline {
  readonly decision: 'decline';
  /** The operator's words, sent to the model with the refusal. */
  readonly reason: string;
}

/** A prompter's answer at the confirm gate: a decision, or a decline carrying the operator's reason. */
export type ApprovalAnswer = ApprovalDecision | ReasonedDecline;

/** The longest decline reason kept, in characters; a longer one is cut with a marker. */
export const MAX_DECLINE_REASON = 2000;

/** The decision an answer stands for. */
export function decisionOf(answer: ApprovalAnswer): ApprovalDecision {
  return typeof answer === 'string' ? answer : answer.decision;
}

/**
 * The reason a decline carries, cleaned for a prompt (control sequences removed, whitespace
 * collapsed, at most {@link MAX_DECLINE_REASON} characters); undefined when there is none.
 */
export function declineReasonOf(answer: ApprovalAnswer): string | undefined {
  if (typeof answer === 'string' || answer.decision !== 'decline' || typeof answer.reason !== 'string') return undefined;
  const clean = oneLine(answer.reason).replace(/\s+/g, ' ').trim();
  if (clean === '') return undefined;
  const chars = Array.from(clean);
  return chars.length <= MAX_DECLINE_REASON ? clean : `${chars.slice(0, MAX_DECLINE_REASON).join('')}…`;
}

/**
 * An approval answer given as a value (through a run handle, a browser or the a2a wire): `once`,
 * `always` or a reasoned decline; anything else is a decline.
 */
export function approvalFromValue(value: unknown): ApprovalAnswer {
  if (value === 'once' || value === 'always') return value;
  if (typeof value === 'object' && value !== null && (value as Record<string, unknown>)['decision'] === 'decline') {
    const reason = (value as Record<string, unknown>)['reason'];
    if (typeof reason === 'string' && reason.trim() !== '') return { decision: 'decline', reason };
  }
  return 'decline';
}

/** A decline with `reason`, or a plain decline when the reason is empty. */
export function declineWith(reason: string): ApprovalAnswer {
  return reason.trim() === '' ? 'decline' : { decision: 'decline', reason };
}

/** What the confirm gate shows the operator. */
export interface ApprovalRequest {
  readonly tool: string;
  /** The resolved command line or call, control sequences already stripped. */
  readonly commandLine: string;
  /** The tag that triggered the gate. */
  readonly trigger: string;
}

/**
 * Thrown by a prompter whose question went out to a person who stays silent past the waiting
 * window (a caller reached over a2a, say): not a decision, so the asker chooses what silence means.
 * The question tools defer the call, to be answered later; the confirm gate ends the run so the
 * gated call is asked about again on resume.
 */
export class Unanswered extends Error {
  constructor(message = 'nobody answered the question in time') {
    super(message);
    this.name = 'Unanswered';
  }
}

/**
 * Puts questions to a person. Every method resolves to the conservative answer (decline, `null`)
 * when nobody can answer; `canPrompt` says up front whether anybody is there. A prompter that can
 * tell silence from an answer throws {@link Unanswered} instead.
 */
export interface Prompter {
  canPrompt(): boolean;
  approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
  confirm(question: string, signal: AbortSignal): Promise<boolean>;
  select(question: string, options: readonly string[], signal: AbortSignal): Promise<string | null>;
  input(question: string, signal: AbortSignal): Promise<string | null>;
}

/**
 * What a call receives besides its input. A tool gets a prompter or a work directory only when it
 * declared the need in its capabilities.
 */
export interface ExecDeps {
  readonly prompter?: Prompter;
  readonly workDir?: string;
  /** The per-call timeout the loop applies, for tools that report it in their own message. */
  readonly timeoutMs?: number;
  /** Shows a line of the call's progress on the run's event stream (a delegated task's peer at work). */
  readonly progress?: (text: string) => void;
  /**
   * The agents this run acts for, outermost first, ending with this agent: what a delegation sends
   * on so a peer already in the chain is never asked again. Absent where no run stands behind the call.
   */
  readonly chain?: readonly string[];
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

/** What a surface assumes of a tool that says nothing about its behaviour. */
export const CONSERVATIVE_BEHAVIOR: Behavior = Object.freeze({
  readOnly: 'false',
  destructive: 'true',
  idempotent: 'false',
  openWorld: 'true',
});

/** Whether a tool stands behind the confirm gate, and the tag that put it there. */
export interface ConfirmGate {
  readonly gated: boolean;
  /** The trigger named in a prompt: `ai:confirm` when present, else the first matching operator tag. */
  readonly trigger?: string;
}

/**
 * What a tool needs and how it behaves, declared once in one object. Nothing probes a tool for
 * optional methods: a misspelt capability is a type error, never a silent default.
 */
export interface ToolCapabilities {
  /** Calls receive a prompter; a tool that does not declare it never gets one. */
  readonly prompter: boolean;
  /** Calls receive the working directory. */
  readonly workDir: boolean;
  /** The tool waits on a person, so the tool timeout does not apply to it. */
  readonly operatorPaced: boolean;
  /** The definition may be deferred behind tool search (never for a built-in or an `ai:no_defer` tool). */
  readonly deferrable: boolean;
  /**
   * Whether the tool is confirm-gated. `null` means it cannot say, which serving surfaces refuse:
   * "needs no gate" and "cannot report a gate" must not look the same.
   */
  readonly gate: ConfirmGate | null;
  /** Tags from the tool's source (application commands), in source order. */
  readonly tags: readonly string[];
  /** Behaviour hints; `null` means the conservative answer (`CONSERVATIVE_BEHAVIOR`). */
  readonly behavior: Behavior | null;
  /**
   * Renders the resolved call a person approves (a command line), or `null` for the generic
   * `name key=value` line. May throw for input the tool refuses.
   */
  readonly describeCall: ((input: string) => string) | null;
  /**
   * The sandbox the tool's child process runs in: absent for a tool that starts no process of
   * fisk's (an in-process or remote tool), `null` for one that runs its process unsandboxed.
   */
  readonly sandbox?: SandboxReport | null;
}

/** The behaviour a surface reports for a tool: its own hints, else the conservative answer. */
export function behaviorOf(tool: Tool): Behavior {
  return tool.capabilities.behavior ?? CONSERVATIVE_BEHAVIOR;
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
  /**
   * Resolves once changes already announced (an MCP server's list being read again) have been
   * published; the loop waits for it, within a bound, before it takes its snapshot. Never rejects.
   * Optional, so a source with nothing pending (or one written before this existed) need not say.
   */
  settled?(): Promise<void>;
}
