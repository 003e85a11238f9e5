/**
 * One tool call of a run, through the shared invocation pipeline (`toolkit/invoke`). This adapter
 * supplies what the loop owns (the confirm gate with its grants, the caller's hooks, the takeover
 * check) and turns what the pipeline reports into the run's events.
 */
import type { ToolResultBlock, ToolUseBlock } from '../llm/types.js';
import { importedFrom } from '../toolkit/functool/functool.js';
import { invokeTool } from '../toolkit/invoke/invoke.js';
import type { ApprovalVerdict, InvokeContext, InvokeEvent, InvokeWrapper } from '../toolkit/invoke/types.js';
import type { DelegatedUsage, Kind, Prompter, ToolSet } from '../toolkit/tool.js';
import type { ConfirmGate } from './confirm-gate.js';
import type { ApprovalOutcome, EventSink, ToolResultEvent } from './events.js';
import type { Hooks } from './hooks.js';
import type { GateNote, RunJournal } from './journal.js';
import { oneLine } from '../util/terminal-text.js';
import { inputObject } from './sanitize.js';

/** What the loop needs to run one call. */
export interface ToolCallContext {
  readonly set: ToolSet;
  readonly gate: ConfirmGate;
  readonly hooks: Hooks;
  readonly events: EventSink;
  readonly prompter: Prompter | undefined;
  readonly workDir: string | undefined;
  readonly toolTimeoutMs: number | undefined;
  readonly confirmTags: readonly string[];
  readonly journal: RunJournal | undefined;
  readonly signal: AbortSignal;
  /** Answers a call the set holds but the model may not call yet (a deferred tool not loaded). */
  readonly notCallable?: (name: string) => string | undefined;
  /** Wrappers around each call (telemetry), outermost first. */
  readonly wrappers?: readonly InvokeWrapper[];
  /** Replaces credential values in tool output. */
  readonly scrub?: (text: string) => string;
  /** The delegation chain the run acts in, ending with this agent. */
  readonly chain?: readonly string[];
}

/** A call answered now. */
export interface AnsweredCall {
  readonly kind: 'answered';
  readonly block: ToolResultBlock;
  readonly toolKind: Kind;
  /** A standing grant to journal now that the call is answered. */
  readonly grant?: string;
  /** How the confirm gate decided the call, when it was gated: journaled with the result. */
  readonly gate?: GateNote;
  /** What a peer spent on the task the call delegated. */
  readonly delegated?: DelegatedUsage;
}

/** How a call ended. */
export type CallResult =
  | AnsweredCall
  | { readonly kind: 'deferred'; readonly reason: string; readonly toolKind: Kind; readonly grant?: string }
  /** The run must end: a hook asked for something malformed, the run was taken over, or cancelled. */
  | {
      readonly kind: 'end_run';
      readonly status: 'aborted' | 'error';
      readonly code: 'hook' | 'taken_over' | 'aborted';
      readonly message: string;
    };

export { timeoutMessage } from '../toolkit/invoke/messages.js';

function emitFor(events: EventSink): (e: InvokeEvent) => void {
  return (e) => {
    switch (e.type) {
      case 'call': {
        if (e.tool === undefined) {
          events.emit({ type: 'tool_call', id: e.call.id, name: e.call.name, input: inputObject(e.call.input) });
          return;
        }
        const via = importedFrom(e.tool);
        events.emit({
          type: 'tool_call',
          id: e.call.id,
          name: e.call.name,
          input: inputObject(e.call.input),
          presentation: e.tool.presentation,
          ...(via === undefined ? {} : { via }),
        });
        return;
      }
      case 'warning':
        events.emit({ type: 'warning', text: e.text });
        return;
      case 'ungated':
        events.emit({ type: 'warning', text: `${e.tool.name} ran without approval: ${e.reason}` });
        return;
      case 'started':
        return;
      default: {
        const never: never = e;
        throw new TypeError(`unknown invocation event ${JSON.stringify(never)}`);
      }
    }
  };
}

/** Runs one tool call through the pipeline. Throws only for a bug (a hook that throws, say). */
export async function executeToolCall(call: ToolUseBlock, ctx: ToolCallContext): Promise<CallResult> {
  const hooks = ctx.hooks;
  let gate: GateNote | undefined;
  const invoke: InvokeContext = {
    tools: ctx.set,
    confirmTags: ctx.confirmTags,
    approve: async (q, signal): Promise<ApprovalVerdict> => {
      const v = await ctx.gate.check(q.callId, { tool: q.tool.name, commandLine: q.commandLine, trigger: q.trigger }, signal);
      const decided = (outcome: ApprovalOutcome, reason?: string): void => {
        gate = { outcome, trigger: q.trigger, commandLine: q.commandLine, ...(reason === undefined ? {} : { reason }) };
        ctx.events.emit({
          type: 'approval',
          call_id: q.callId,
          tool: q.tool.name,
          trigger: q.trigger,
          outcome,
          ...(reason === undefined ? {} : { reason }),
        });
      };
      switch (v.verdict) {
        case 'abort':
          decided('cancelled');
          return { verdict: 'abort' };
        case 'deny':
          decided(v.by === 'operator' ? 'declined' : v.by === 'earlier' ? 'declined_earlier' : 'no_operator', v.operatorReason);
          return v.operatorReason === undefined
            ? { verdict: 'deny', reason: v.reason }
            : { verdict: 'deny', reason: v.reason, operatorReason: v.operatorReason };
        case 'allow':
          decided(
            v.via === 'operator'
              ? 'approved_once'
              : v.via === 'new_grant'
                ? 'approved_for_run'
                : v.via === 'earlier'
                  ? 'approved_earlier'
                  : 'approved_by_grant',
          );
          return v.via === 'new_grant' ? { verdict: 'allow', grant: v.grant } : { verdict: 'allow' };
        default: {
          const never: never = v;
          throw new TypeError(`unknown gate verdict ${JSON.stringify(never)}`);
        }
      }
    },
    hooks: {
      ...(hooks.preToolUse === undefined ? {} : { pre: async (c) => (await hooks.preToolUse?.(c)) ?? undefined }),
      ...(hooks.postToolUse === undefined
        ? {}
        : {
            post: async (r) =>
              (await hooks.postToolUse?.({ id: r.call.id, name: r.name, input: r.input, output: r.output, isError: r.isError })) ??
              undefined,
          }),
    },
    ...(ctx.prompter === undefined ? {} : { prompter: ctx.prompter }),
    ...(ctx.workDir === undefined ? {} : { workDir: ctx.workDir }),
    ...(ctx.toolTimeoutMs === undefined ? {} : { timeout: { ms: ctx.toolTimeoutMs, key: 'llm.budget.tool_timeout' } }),
    ...(ctx.notCallable === undefined ? {} : { notCallable: ctx.notCallable }),
    ...(ctx.journal?.stillOwned === undefined ? {} : { stillOwned: () => ctx.journal?.stillOwned?.() ?? Promise.resolve(true) }),
    ...(ctx.wrappers === undefined ? {} : { wrappers: ctx.wrappers }),
    ...(ctx.scrub === undefined ? {} : { scrub: ctx.scrub }),
    ...(ctx.chain === undefined ? {} : { chain: ctx.chain }),
    progress: (callId, tool, text) => ctx.events.emit({ type: 'progress', call_id: callId, tool, text: oneLine(text) }),
    observe: emitFor(ctx.events),
    signal: ctx.signal,
  };
  const r = await invokeTool({ id: call.id, name: call.name, input: call.input }, invoke);
  switch (r.kind) {
    case 'end_run':
      return r;
    case 'deferred':
      return r.grant === undefined
        ? { kind: 'deferred', reason: r.reason, toolKind: r.toolKind }
        : { kind: 'deferred', reason: r.reason, toolKind: r.toolKind, grant: r.grant };
    case 'answered': {
      const text: ToolResultBlock = r.isError
        ? { type: 'tool_result', toolUseId: call.id, content: r.content, isError: true }
        : { type: 'tool_result', toolUseId: call.id, content: r.content };
      const block: ToolResultBlock = r.images === undefined ? text : { ...text, images: r.images };
      const exec = r.exec === undefined ? undefined : { command: r.exec.command, exit_code: r.exec.exitCode, truncated: r.exec.truncated };
      const event: ToolResultEvent = {
        type: 'tool_result',
        call_id: call.id,
        is_error: r.isError,
        output: r.output,
        ...(exec === undefined ? {} : { exec }),
        ...(r.refused === undefined ? {} : { refused: r.refused }),
      };
      ctx.events.emit(event);
      const answered: AnsweredCall = {
        kind: 'answered',
        block,
        toolKind: r.toolKind,
        ...(gate === undefined ? {} : { gate }),
        ...(r.delegated === undefined ? {} : { delegated: r.delegated }),
      };
      return r.grant === undefined ? answered : { ...answered, grant: r.grant };
    }
    default: {
      const never: never = r;
      throw new TypeError(`unknown invocation result ${JSON.stringify(never)}`);
    }
  }
}
