/**
 * The shapes of the one tool-invocation pipeline: what a call is, what a surface plugs in, what
 * comes back. The agent loop, `fisk mcp` and every serving surface call the same pipeline, so the
 * same failure gets the same message wherever it happens.
 */
import type { ToolImage } from '../../llm/types.js';
import type { DelegatedUsage, ExecRecord, Kind, Prompter, Tool } from '../tool.js';

/** One call as the model (or a client) made it. `input` is the raw JSON text of the arguments. */
export interface InvokeCall {
  readonly id: string;
  readonly name: string;
  readonly input: string;
  /**
   * `input` already decoded, when the caller has it (a served call arrives as an object): the
   * pipeline checks it instead of parsing `input` again. It must be the object `input` encodes.
   */
  readonly parsedInput?: Readonly<Record<string, unknown>>;
}

/** Why a call was answered without running the tool. */
export const REFUSAL_REASONS = [
  'unknown_tool', // no tool of that name in the set
  'invalid_arguments', // arguments that are not an object, too deep, or missing required ones
  'denied', // a hook, the operator or the surface's policy declined it
  'ungateable', // a serving surface refused a tool that cannot report whether it is gated
  'not_loaded', // a deferred tool the model has not loaded through tool search yet
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** What the pipeline tells its observer, in order, on the call's own chain. */
export type InvokeEvent =
  /** The call arrived; `tool` is absent for an unknown name. */
  | { readonly type: 'call'; readonly call: InvokeCall; readonly tool: Tool | undefined }
  /** Something the operator should know that is not the call's answer. */
  | { readonly type: 'warning'; readonly text: string }
  /** The tool is about to run (every check passed). */
  | { readonly type: 'started'; readonly call: InvokeCall; readonly tool: Tool }
  /** The gate let a gated call through without asking anyone, by the surface's policy. */
  | { readonly type: 'ungated'; readonly call: InvokeCall; readonly tool: Tool; readonly reason: string };

/** How the gate decided a gated call. */
export type ApprovalVerdict =
  | { readonly verdict: 'allow'; readonly grant?: string }
  /** Allowed without asking anybody, with the policy that allowed it (logged as ungated). */
  | { readonly verdict: 'ungated'; readonly reason: string }
  /** Declined; `operatorReason` is what the operator said to do instead, sent to the model with the refusal. */
  | { readonly verdict: 'deny'; readonly reason: string; readonly operatorReason?: string }
  /** The run or the client went away while the question was open. */
  | { readonly verdict: 'abort' };

/** The question the gate puts for one gated call. */
export interface ApprovalQuestion {
  readonly callId: string;
  readonly tool: Tool;
  /** The resolved call line, control sequences already removed. */
  readonly commandLine: string;
  /** The tag that put the gate there. */
  readonly trigger: string;
}

/** A surface's approval step: the loop asks its prompter, `fisk mcp` elicits from its client. */
export type Approver = (question: ApprovalQuestion, signal: AbortSignal) => Promise<ApprovalVerdict>;

/** What PreToolUse may decide. A rewrite to an unknown tool or non-object arguments ends the run. */
export type PreToolDecision =
  | { readonly action: 'allow' }
  | { readonly action: 'deny'; readonly reason: string }
  | { readonly action: 'rewrite'; readonly name: string; readonly input: string };

/** What PostToolUse may decide: keep the output, or replace it. */
export type PostToolDecision = { readonly action: 'keep' } | { readonly action: 'replace'; readonly output: string };

/** The caller's hooks around a call (the agent loop's PreToolUse and PostToolUse). */
export interface InvokeHooks {
  readonly pre?: (call: InvokeCall) => Promise<PreToolDecision | undefined>;
  readonly post?: (result: {
    readonly call: InvokeCall;
    readonly name: string;
    readonly input: string;
    readonly output: string;
    readonly isError: boolean;
  }) => Promise<PostToolDecision | undefined>;
}

/** Everything one call runs against. Every resource is borrowed. */
export interface InvokeContext {
  /** The snapshot the call is looked up in. */
  readonly tools: { get(name: string): Tool | undefined };
  /** `harness.confirm_tags`: a tool carrying one of these is gated. */
  readonly confirmTags: readonly string[];
  readonly approve: Approver;
  readonly hooks?: InvokeHooks;
  /** Handed to tools that declare they need one. A serving surface passes one that always declines. */
  readonly prompter?: Prompter;
  readonly workDir?: string;
  /** Receives a call's progress lines (`ExecDeps.progress`). */
  readonly progress?: (callId: string, tool: string, text: string) => void;
  /** The delegation chain the run acts in (`ExecDeps.chain`). */
  readonly chain?: readonly string[];
  /** The per-call deadline and the key that sets it (named in the timeout message); absent means none. */
  readonly timeout?: { readonly ms: number; readonly key: string };
  /** Serving surfaces refuse a tool that cannot report whether it is gated. */
  readonly refuseUngateable?: boolean;
  /**
   * Answers a call to a tool that may not be called yet (a deferred tool not loaded by tool
   * search) with the text the model gets instead; `undefined` lets it through.
   */
  readonly notCallable?: (name: string) => string | undefined;
  /** The last check before an irreversible effect: false stops the run (it was taken over). */
  readonly stillOwned?: () => Promise<boolean>;
  /** Takes a concurrency slot after the gate and before the tool runs; resolves to its release. */
  readonly acquireSlot?: (signal: AbortSignal) => Promise<() => void>;
  readonly observe?: (event: InvokeEvent) => void;
  /** Replaces every credential value the harness holds in a tool's output before anyone sees it. */
  readonly scrub?: (text: string) => string;
  /** Wrappers around the whole handling of each call, outermost first (tracing, telemetry, scrubbing). */
  readonly wrappers?: readonly InvokeWrapper[];
  readonly signal: AbortSignal;
}

/** A call that got an answer (the tool ran, or the call was refused with a reason). */
export interface AnsweredResult {
  readonly kind: 'answered';
  /** What the model receives: a command's `CommandResult` envelope, else the tool's own text. */
  readonly content: string;
  readonly isError: boolean;
  /** For a command: its output alone, for surfaces that show the output rather than the envelope. */
  readonly output: string;
  /** Images the tool returned, for the providers that take them in tool results. */
  readonly images?: readonly ToolImage[];
  readonly exec?: ExecRecord;
  /** What a peer spent on the task the call delegated. */
  readonly delegated?: DelegatedUsage;
  /** Set when the tool never ran. */
  readonly refused?: RefusalReason;
  /** Set when the tool was stopped at its deadline. */
  readonly timedOut?: boolean;
  readonly toolKind: Kind;
  /** The tool that answered (after any rewrite); absent for an unknown name. */
  readonly toolName?: string;
  /** A standing grant the operator gave for this call: journal it now that the call is answered. */
  readonly grant?: string;
}

/** How one call ended. */
export type InvokeResult =
  | AnsweredResult
  /** The tool will answer later; the call is never dispatched again. */
  | { readonly kind: 'deferred'; readonly reason: string; readonly toolKind: Kind; readonly toolName: string; readonly grant?: string }
  /** The run must end: a malformed hook rewrite, a takeover, or cancellation. */
  | {
      readonly kind: 'end_run';
      readonly status: 'aborted' | 'error';
      readonly code: 'hook' | 'taken_over' | 'aborted';
      readonly message: string;
    };

/** One wrapper around the whole handling of a call, every exit included. */
export type InvokeWrapper = (call: InvokeCall, next: () => Promise<InvokeResult>) => Promise<InvokeResult>;
