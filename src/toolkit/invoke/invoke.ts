/**
 * The one tool-invocation pipeline. A call passes, in order: registry lookup; gating decided on
 * the original call; PreToolUse; argument validation; the confirm gate; dependencies; the
 * takeover check (or a concurrency slot on a serving surface); execution under the deadline, then
 * PostToolUse and result shaping. Each exit answers the call or ends the run, and says why. The
 * wrappers surround all of it, so a span or a log line covers a call that never ran too.
 */
import { parseToolInput, requiredProblem } from '../required.js';
import type { CommandResult, Kind, Prompter, Tool } from '../tool.js';
import { callLine } from '../../util/call-line.js';
import { toolInputDepthError } from '../../util/json-depth.js';
import { denialOutput, gateOf } from './gate.js';
import type { GateInfo } from './gate.js';
import { invalidArgumentsMessage, timeoutMessage, unknownToolMessage, unknownToolWarning, ungateableMessage } from './messages.js';
import { runTool } from './run-tool.js';
import type { AnsweredResult, InvokeCall, InvokeContext, InvokeResult, InvokeWrapper, RefusalReason } from './types.js';

function refused(content: string, reason: RefusalReason, toolKind: Kind, isError: boolean, toolName?: string): AnsweredResult {
  return toolName === undefined
    ? { kind: 'answered', content, output: content, isError, refused: reason, toolKind }
    : { kind: 'answered', content, output: content, isError, refused: reason, toolKind, toolName };
}

function isJsonObject(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/**
 * Handles one call through every exit. Never throws for anything a tool, the model or a client
 * did; only a bug (a hook that throws) propagates.
 */
export function invokeTool(call: InvokeCall, ctx: InvokeContext): Promise<InvokeResult> {
  const wrappers = ctx.wrappers;
  // a call nobody wraps goes straight to the pipeline, with no chain to build
  if (wrappers === undefined || wrappers.length === 0) return handle(call, ctx);
  return wrapped(call, ctx, wrappers);
}

/** The call through its wrappers, outermost first; a wrapper that throws fails the call as one that rejects. */
async function wrapped(call: InvokeCall, ctx: InvokeContext, wrappers: readonly InvokeWrapper[]): Promise<InvokeResult> {
  const at = (i: number): Promise<InvokeResult> => {
    const w = wrappers[i];
    return w === undefined ? handle(call, ctx) : w(call, () => at(i + 1));
  };
  return at(0);
}

const IGNORE = (): void => undefined;

async function handle(call: InvokeCall, ctx: InvokeContext): Promise<InvokeResult> {
  const observe = ctx.observe ?? IGNORE;
  // 1. registry lookup
  const original = ctx.tools.get(call.name);
  observe({ type: 'call', call, tool: original });
  if (original === undefined) {
    observe({ type: 'warning', text: unknownToolWarning(call.name) });
    return refused(unknownToolMessage(call.name), 'unknown_tool', 'unknown', true);
  }
  // model input can nest thousands of levels deep; refuse it before anything walks it
  const tooDeep = toolInputDepthError(call.input);
  if (tooDeep !== undefined)
    return refused(
      invalidArgumentsMessage(original.name, tooDeep, original.inputSchema),
      'invalid_arguments',
      original.kind,
      true,
      original.name,
    );
  const notCallable = ctx.notCallable?.(call.name);
  if (notCallable !== undefined) return refused(notCallable, 'not_loaded', original.kind, true, original.name);
  if (ctx.refuseUngateable === true && original.capabilities.gate === null) {
    return refused(denialOutput(ungateableMessage(original.name)), 'ungateable', original.kind, true, original.name);
  }

  // 2. gating decided on the original call, before any hook can change it
  const originalGate: GateInfo = gateOf(original, ctx.confirmTags);

  // 3. PreToolUse
  let tool: Tool = original;
  let input = call.input;
  const pre = ctx.hooks?.pre === undefined ? undefined : await ctx.hooks.pre(call);
  if (pre !== undefined) {
    switch (pre.action) {
      case 'allow':
        break;
      case 'deny':
        return refused(denialOutput(pre.reason), 'denied', original.kind, false, original.name);
      case 'rewrite': {
        const target = ctx.tools.get(pre.name);
        if (target === undefined) {
          return {
            kind: 'end_run',
            status: 'error',
            code: 'hook',
            message: `PreToolUse rewrote ${call.name} to ${JSON.stringify(pre.name)}, which is not one of this run's tools; the run was stopped rather than dispatch it`,
          };
        }
        if (!isJsonObject(pre.input)) {
          return {
            kind: 'end_run',
            status: 'error',
            code: 'hook',
            message: `PreToolUse rewrote the arguments of ${call.name} to something that is not a JSON object; the run was stopped rather than dispatch it`,
          };
        }
        if (target.name !== call.name || pre.input !== call.input) {
          observe({ type: 'warning', text: `a PreToolUse hook rewrote the call: ${callLine(target, pre.input)}` });
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
  // a hook's rewrite is parsed afresh; the caller's own decoding is taken as it is
  const parsed =
    input === call.input && call.parsedInput !== undefined ? { ok: true as const, value: call.parsedInput } : parseToolInput(input);
  const invalid = parsed.ok ? requiredProblem(tool.inputSchema, parsed.value) : parsed.error;
  if (invalid !== undefined)
    return refused(invalidArgumentsMessage(tool.name, invalid, tool.inputSchema), 'invalid_arguments', tool.kind, true, tool.name);

  // 5. the confirm gate fires if either the original or the effective tool is gated
  const effectiveGate = tool === original ? originalGate : gateOf(tool, ctx.confirmTags);
  let grant: string | undefined;
  if (originalGate.gated || effectiveGate.gated) {
    const trigger = originalGate.gated ? originalGate.trigger : effectiveGate.trigger;
    const verdict = await ctx.approve({ callId: call.id, tool, commandLine: callLine(tool, input), trigger }, ctx.signal);
    switch (verdict.verdict) {
      case 'abort':
        return { kind: 'end_run', status: 'aborted', code: 'aborted', message: 'the run was cancelled while a call waited for approval' };
      case 'deny':
        return refused(denialOutput(verdict.reason, verdict.operatorReason), 'denied', tool.kind, false, tool.name);
      case 'ungated':
        observe({ type: 'ungated', call, tool, reason: verdict.reason });
        break;
      case 'allow':
        grant = verdict.grant;
        break;
      default: {
        const never: never = verdict;
        throw new TypeError(`unknown gate verdict ${JSON.stringify(never)}`);
      }
    }
  }

  // 6. dependencies go only to tools that declared the need
  const caps = tool.capabilities;
  const timeout = caps.operatorPaced ? undefined : ctx.timeout;
  const deps: { prompter?: Prompter; workDir?: string; timeoutMs?: number; progress?: (text: string) => void; chain?: readonly string[] } =
    {};
  if (caps.prompter && ctx.prompter !== undefined) deps.prompter = ctx.prompter;
  if (caps.workDir && ctx.workDir !== undefined) deps.workDir = ctx.workDir;
  if (timeout !== undefined) deps.timeoutMs = timeout.ms;
  const progress = ctx.progress;
  if (progress !== undefined) deps.progress = (text) => progress(call.id, tool.name, ctx.scrub === undefined ? text : ctx.scrub(text));
  if (ctx.chain !== undefined) deps.chain = ctx.chain;

  // 7. takeover: the last check before an irreversible effect
  if (ctx.stillOwned !== undefined && !(await ctx.stillOwned())) {
    return {
      kind: 'end_run',
      status: 'error',
      code: 'taken_over',
      message: 'another runner took this run over; stopped before running a tool',
    };
  }
  let release: (() => void) | undefined;
  if (ctx.acquireSlot !== undefined) {
    try {
      release = await ctx.acquireSlot(ctx.signal);
    } catch {
      return {
        kind: 'end_run',
        status: 'aborted',
        code: 'aborted',
        message: `the call to ${tool.name} was cancelled while it waited for a free slot`,
      };
    }
  }

  // 8. execute, then PostToolUse
  let ran;
  try {
    observe({ type: 'started', call, tool });
    ran = await runTool(tool, input, deps, ctx.signal, timeout?.ms);
  } finally {
    release?.();
  }
  if (ran.status === 'aborted')
    return { kind: 'end_run', status: 'aborted', code: 'aborted', message: `the run was cancelled while ${tool.name} ran` };
  if (ran.status === 'deferred') {
    const deferred = { kind: 'deferred' as const, reason: ran.reason, toolKind: tool.kind, toolName: tool.name };
    return grant === undefined ? deferred : { ...deferred, grant };
  }

  let output: string;
  let isError: boolean;
  let exec: AnsweredResult['exec'];
  let images: AnsweredResult['images'];
  let delegated: AnsweredResult['delegated'];
  if (ran.status === 'timeout') {
    // substituted before the hook, so hook, journal, events and model all see the same text
    output = timeoutMessage(tool.name, timeout?.ms ?? 0, timeout?.key ?? 'the tool timeout');
    isError = true;
  } else {
    // what a tool printed may carry a credential it read from elsewhere (/proc, a file)
    output = ctx.scrub === undefined ? ran.output : ctx.scrub(ran.output);
    isError = ran.isError;
    exec = ran.exec;
    images = ran.images;
    delegated = ran.delegated;
  }
  const post = ctx.hooks?.post === undefined ? undefined : await ctx.hooks.post({ call, name: tool.name, input, output, isError });
  if (post?.action === 'replace') {
    output = post.output;
    // a hook that replaced the text (withheld it, say) has not vouched for the images
    images = undefined;
  }

  // a command's output travels in its envelope; a non-zero exit is an answer, not an error
  let content = output;
  if (exec !== undefined) {
    const envelope: CommandResult = exec.truncated
      ? { command: exec.command, exit_code: exec.exitCode, output, truncated: true }
      : { command: exec.command, exit_code: exec.exitCode, output };
    content = JSON.stringify(envelope);
  }
  const answered: AnsweredResult = {
    kind: 'answered',
    content,
    output,
    isError,
    toolKind: tool.kind,
    toolName: tool.name,
    ...(exec === undefined ? {} : { exec }),
    ...(images === undefined || images.length === 0 ? {} : { images }),
    ...(delegated === undefined ? {} : { delegated }),
    ...(ran.status === 'timeout' ? { timedOut: true } : {}),
  };
  return grant === undefined ? answered : { ...answered, grant };
}
