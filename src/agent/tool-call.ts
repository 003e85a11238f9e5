/**
 * One tool call, through its eight exits in order: registry lookup; describe and gating on the
 * original call; PreToolUse; argument validation; the confirm gate; dependencies; the takeover
 * check; execute, then PostToolUse. Each exit answers the call (or ends the run) and says why.
 */
import type { ToolResultBlock, ToolUseBlock } from '../llm/types.js';
import type { CommandResult, ExecDeps, Kind, Outcome, Prompter, Tool, ToolSet } from '../toolkit/tool.js';
import { isOperatorPaced, needsPrompter, needsWorkDir } from '../toolkit/tool.js';
import { validateRequired } from '../toolkit/required.js';
import { denialOutput, gateOf } from './confirm-gate.js';
import type { ConfirmGate, GateInfo } from './confirm-gate.js';
import type { EventSink, ExecInfo } from './events.js';
import type { Hooks } from './hooks.js';
import type { RunJournal } from './journal.js';
import { formatCall, inputObject, oneLine } from './sanitize.js';

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
}

/** A call answered now. */
export interface AnsweredCall {
  readonly kind: 'answered';
  readonly block: ToolResultBlock;
  readonly toolKind: Kind;
  /** A standing grant to journal now that the call is answered. */
  readonly grant?: string;
}

/** How a call ended. */
export type CallResult =
  | AnsweredCall
  | { readonly kind: 'deferred'; readonly reason: string; readonly toolKind: Kind; readonly grant?: string }
  /** The run must end: a hook asked for something malformed, the run was taken over, or cancelled. */
  | { readonly kind: 'end_run'; readonly status: 'aborted' | 'error'; readonly code: 'hook' | 'taken_over' | 'aborted'; readonly message: string };

function answer(call: ToolUseBlock, toolKind: Kind, content: string, isError: boolean, ctx: ToolCallContext, exec?: ExecInfo, output?: string): AnsweredCall {
  const block: ToolResultBlock = isError ? { type: 'tool_result', toolUseId: call.id, content, isError: true } : { type: 'tool_result', toolUseId: call.id, content };
  const shown = output ?? content;
  ctx.events.emit(exec === undefined ? { type: 'tool_result', call_id: call.id, is_error: isError, output: shown } : { type: 'tool_result', call_id: call.id, is_error: isError, output: shown, exec });
  return { kind: 'answered', block, toolKind };
}

/**
 * What the operator sees for a call: the tool's own rendering of the resolved command line when it
 * has one (a command tool's `traceLine`), else the generic `name key=value` line.
 */
function commandLine(tool: Tool, input: string): string {
  const describer = tool as unknown as { traceLine?: unknown };
  if (typeof describer.traceLine === 'function') {
    try {
      const line: unknown = (describer.traceLine as (input: string) => unknown).call(tool, input);
      if (typeof line === 'string' && line !== '') return oneLine(line);
    } catch {
      // input the tool refuses to render still gets the generic line
    }
  }
  return formatCall(tool.name, inputObject(input));
}

function isJsonObject(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** The message substituted for a tool's output when it ran past the tool timeout. */
export function timeoutMessage(name: string, ms: number): string {
  return `the tool ${name} did not finish within ${ms / 1000}s and was stopped; its output is lost (llm.budget.tool_timeout)`;
}

async function runTool(tool: Tool, input: string, deps: ExecDeps, ctx: ToolCallContext): Promise<Outcome | { readonly status: 'timeout' } | { readonly status: 'aborted' }> {
  const exempt = ctx.toolTimeoutMs === undefined || isOperatorPaced(tool);
  if (exempt) {
    try {
      const outcome = await tool.execute(input, deps, ctx.signal);
      return ctx.signal.aborted ? { status: 'aborted' } : outcome;
    } catch (err) {
      if (ctx.signal.aborted) return { status: 'aborted' };
      return { status: 'completed', output: `the tool failed: ${err instanceof Error ? err.message : String(err)}`, isError: true };
    }
  }
  // one controller per call, fed by the run's signal and the timer (cheaper than AbortSignal.any)
  const call = new AbortController();
  let timedOut = false;
  const onRunAbort = (): void => call.abort(ctx.signal.reason);
  if (ctx.signal.aborted) call.abort(ctx.signal.reason);
  else ctx.signal.addEventListener('abort', onRunAbort, { once: true });
  const handle = setTimeout(() => {
    timedOut = true;
    call.abort(new Error('tool timeout'));
  }, ctx.toolTimeoutMs);
  try {
    const outcome = await tool.execute(input, deps, call.signal);
    if (ctx.signal.aborted) return { status: 'aborted' };
    if (timedOut) return { status: 'timeout' };
    return outcome;
  } catch (err) {
    if (ctx.signal.aborted) return { status: 'aborted' };
    if (timedOut) return { status: 'timeout' };
    // a tool that throws failed in a way the model can still reason about
    return { status: 'completed', output: `the tool failed: ${err instanceof Error ? err.message : String(err)}`, isError: true };
  } finally {
    clearTimeout(handle);
    ctx.signal.removeEventListener('abort', onRunAbort);
  }
}

/** Runs one tool call through every exit. Throws only for a bug (a hook that throws, say). */
export async function executeToolCall(call: ToolUseBlock, ctx: ToolCallContext): Promise<CallResult> {
  // 1. registry lookup
  const original = ctx.set.get(call.name);
  if (original === undefined) {
    ctx.events.emit({ type: 'tool_call', id: call.id, name: call.name, input: inputObject(call.input) });
    ctx.events.emit({ type: 'warning', text: `the model called ${JSON.stringify(call.name)}, which is not one of this run's tools; it was told so and nothing ran` });
    return answer(call, 'unknown', `tool ${JSON.stringify(call.name)} is not available; call only the tools in your tool list`, true, ctx);
  }
  ctx.events.emit({ type: 'tool_call', id: call.id, name: call.name, input: inputObject(call.input), presentation: original.presentation });

  // 2. describe and gate the original call, before any hook can change it
  const originalGate: GateInfo = gateOf(original, ctx.confirmTags);

  // 3. PreToolUse
  let tool = original;
  let input = call.input;
  const pre = ctx.hooks.preToolUse === undefined ? undefined : await ctx.hooks.preToolUse({ id: call.id, name: call.name, input: call.input });
  if (pre !== undefined) {
    switch (pre.action) {
      case 'allow':
        break;
      case 'deny':
        return answer(call, original.kind, denialOutput(pre.reason), false, ctx);
      case 'rewrite': {
        const target = ctx.set.get(pre.name);
        if (target === undefined) {
          return { kind: 'end_run', status: 'error', code: 'hook', message: `PreToolUse rewrote ${call.name} to ${JSON.stringify(pre.name)}, which is not one of this run's tools; the run was stopped rather than dispatch it` };
        }
        if (!isJsonObject(pre.input)) {
          return { kind: 'end_run', status: 'error', code: 'hook', message: `PreToolUse rewrote the arguments of ${call.name} to something that is not a JSON object; the run was stopped rather than dispatch it` };
        }
        if (target.name !== call.name || pre.input !== call.input) {
          ctx.events.emit({ type: 'warning', text: `a PreToolUse hook rewrote the call: ${commandLine(target, pre.input)}` });
        }
        tool = target;
        input = pre.input;
        break;
      }
      default: {
        const never: never = pre;
        throw new TypeError(`unknown PreToolUse decision ${JSON.stringify(never)}`);
      }
    }
  }

  // 4. argument validation, before the gate: nobody is asked to approve a call that cannot run
  const invalid = validateRequired(tool.inputSchema, input);
  if (invalid !== undefined) return answer(call, tool.kind, `invalid arguments for ${tool.name}: ${invalid}`, true, ctx);

  // 5. the confirm gate fires if either the original or the effective tool is gated
  const effectiveGate = tool === original ? originalGate : gateOf(tool, ctx.confirmTags);
  let grant: string | undefined;
  if (originalGate.gated || effectiveGate.gated) {
    const trigger = originalGate.gated ? originalGate.trigger : effectiveGate.trigger;
    const line = commandLine(tool, input);
    const verdict = await ctx.gate.check(call.id, { tool: tool.name, commandLine: line, trigger }, ctx.signal);
    switch (verdict.verdict) {
      case 'abort':
        return { kind: 'end_run', status: 'aborted', code: 'aborted', message: 'the run was cancelled while a call waited for approval' };
      case 'deny':
        return answer(call, tool.kind, denialOutput(verdict.reason), false, ctx);
      case 'allow':
        if (verdict.via === 'new_grant') grant = verdict.grant;
        break;
      default: {
        const never: never = verdict;
        throw new TypeError(`unknown gate verdict ${JSON.stringify(never)}`);
      }
    }
  }

  // 6. dependencies go only to tools that declared the need
  const deps: { prompter?: Prompter; workDir?: string; timeoutMs?: number } = {};
  if (needsPrompter(tool) && ctx.prompter !== undefined) deps.prompter = ctx.prompter;
  if (needsWorkDir(tool) && ctx.workDir !== undefined) deps.workDir = ctx.workDir;
  if (ctx.toolTimeoutMs !== undefined && !isOperatorPaced(tool)) deps.timeoutMs = ctx.toolTimeoutMs;

  // 7. takeover: the last check before an irreversible effect
  if (ctx.journal?.stillOwned !== undefined && !(await ctx.journal.stillOwned())) {
    return { kind: 'end_run', status: 'error', code: 'taken_over', message: 'another runner took this run over; stopped before running a tool' };
  }

  // 8. execute, then PostToolUse
  const ran = await runTool(tool, input, deps, ctx);
  if (ran.status === 'aborted') return { kind: 'end_run', status: 'aborted', code: 'aborted', message: `the run was cancelled while ${tool.name} ran` };
  if (ran.status === 'deferred') return grant === undefined ? { kind: 'deferred', reason: ran.reason, toolKind: tool.kind } : { kind: 'deferred', reason: ran.reason, toolKind: tool.kind, grant };

  let output: string;
  let isError: boolean;
  let exec: ExecInfo | undefined;
  if (ran.status === 'timeout') {
    // substituted before the hook, so hook, journal, events and model all see the same text
    output = timeoutMessage(tool.name, ctx.toolTimeoutMs ?? 0);
    isError = true;
  } else {
    output = ran.output;
    isError = ran.isError;
    if (ran.exec !== undefined) exec = { command: ran.exec.command, exit_code: ran.exec.exitCode, truncated: ran.exec.truncated };
  }
  const post = ctx.hooks.postToolUse === undefined ? undefined : await ctx.hooks.postToolUse({ id: call.id, name: tool.name, input, output, isError });
  if (post?.action === 'replace') output = post.output;

  // a command's output travels in its envelope; a non-zero exit is an answer, not an error
  let content = output;
  if (exec !== undefined) {
    const envelope: CommandResult = exec.truncated
      ? { command: exec.command, exit_code: exec.exit_code, output, truncated: true }
      : { command: exec.command, exit_code: exec.exit_code, output };
    content = JSON.stringify(envelope);
  }
  const result = answer(call, tool.kind, content, isError, ctx, exec, output);
  return grant === undefined ? result : { ...result, grant };
}
