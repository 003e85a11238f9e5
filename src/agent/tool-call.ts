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

function emitFor(events: EventSink): (event: InvokeEvent) => void {
  return (event) => {
    switch (event.type) {
      case 'call': {
        if (event.tool === undefined) {
          events.emit({ type: 'tool_call', id: event.call.id, name: event.call.name, input: inputObject(event.call.input) });
          return;
        }
        const via = importedFrom(event.tool);
        events.emit({
          type: 'tool_call',
          id: event.call.id,
          name: event.call.name,
          input: inputObject(event.call.input),
          presentation: event.tool.presentation,
          ...(via === undefined ? {} : { via }),
        });
        return;
      }
      case 'warning':
        events.emit({ type: 'warning', text: event.text });
        return;
      case 'ungated':
        events.emit({ type: 'warning', text: `${event.tool.name} ran without approval: ${event.reason}` });
        return;
      case 'started':
        return;
      default: {
        const never: never = event;
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
    approve: async (question, signal): Promise<ApprovalVerdict> => {
      const verdict = await ctx.gate.check(
        question.callId,
        { tool: question.tool.name, commandLine: question.commandLine, trigger: question.trigger },
        signal,
      );
      const decided = (outcome: ApprovalOutcome, reason?: string): void => {
        gate = { outcome, trigger: question.trigger, commandLine: question.commandLine, ...(reason === undefined ? {} : { reason }) };
        ctx.events.emit({
          type: 'approval',
          call_id: question.callId,
          tool: question.tool.name,
          trigger: question.trigger,
          outcome,
          ...(reason === undefined ? {} : { reason }),
        });
      };
      switch (verdict.verdict) {
        case 'abort':
          decided('cancelled');
          return { verdict: 'abort' };
        case 'deny':
          decided(
            verdict.by === 'operator' ? 'declined' : verdict.by === 'earlier' ? 'declined_earlier' : 'no_operator',
            verdict.operatorReason,
          );
          return verdict.operatorReason === undefined
            ? { verdict: 'deny', reason: verdict.reason }
            : { verdict: 'deny', reason: verdict.reason, operatorReason: verdict.operatorReason };
        case 'allow':
          decided(
            verdict.via === 'operator'
              ? 'approved_once'
              : verdict.via === 'new_grant'
                ? 'approved_for_run'
                : verdict.via === 'earlier'
                  ? 'approved_earlier'
                  : 'approved_by_grant',
          );
          return verdict.via === 'new_grant' ? { verdict: 'allow', grant: verdict.grant } : { verdict: 'allow' };
        default: {
          const never: never = verdict;
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
  const result = await invokeTool({ id: call.id, name: call.name, input: call.input }, invoke);
  switch (result.kind) {
    case 'end_run':
      return result;
    case 'deferred':
      return result.grant === undefined
        ? { kind: 'deferred', reason: result.reason, toolKind: result.toolKind }
        : { kind: 'deferred', reason: result.reason, toolKind: result.toolKind, grant: result.grant };
    case 'answered': {
      const text: ToolResultBlock = result.isError
        ? { type: 'tool_result', toolUseId: call.id, content: result.content, isError: true }
        : { type: 'tool_result', toolUseId: call.id, content: result.content };
      const block: ToolResultBlock = result.images === undefined ? text : { ...text, images: result.images };
      const exec =
        result.exec === undefined
          ? undefined
          : { command: result.exec.command, exit_code: result.exec.exitCode, truncated: result.exec.truncated };
      const event: ToolResultEvent = {
        type: 'tool_result',
        call_id: call.id,
        is_error: result.isError,
        output: result.output,
        ...(exec === undefined ? {} : { exec }),
        ...(result.refused === undefined ? {} : { refused: result.refused }),
      };
      ctx.events.emit(event);
      const answered: AnsweredCall = {
        kind: 'answered',
        block,
        toolKind: result.toolKind,
        ...(gate === undefined ? {} : { gate }),
        ...(result.delegated === undefined ? {} : { delegated: result.delegated }),
      };
      return result.grant === undefined ? answered : { ...answered, grant: result.grant };
    }
    default: {
      const never: never = result;
      throw new TypeError(`unknown invocation result ${JSON.stringify(never)}`);
    }
  }
}
