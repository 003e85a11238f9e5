/**
 * One served call, in order: lookup, the confirm gate (elicitation, outside the timeout and before
 * a slot is taken, so a person deliberating holds no slot), a concurrency slot, then the tool under
 * the per-call timeout with a default-deny prompter. Every answer is a result, never a throw.
 */
import type { ConfirmOverMcp } from '../../config/types.js';
import { formatGoDuration } from '../../config/duration.js';
import { validateRequired } from '../../toolkit/required.js';
import { isConfirmable, needsPrompter, needsWorkDir } from '../../toolkit/tool.js';
import type { ExecDeps, Outcome, Prompter, Tool } from '../../toolkit/tool.js';
import { approvalForm, denialReason, gateAction, isApproval } from './approval.js';
import type { ApprovalForm } from './approval.js';
import { DENY_PROMPTER } from './deny-prompter.js';
import { denialResult, outcomeResult, textResult } from './result.js';
import type { ServedResult } from './result.js';
import type { Semaphore } from './semaphore.js';

/** What a call went through, for logs and tests; emitted on the call's own chain, in order. */
export type CallEvent =
  | { readonly type: 'asking'; readonly tool: string }
  | { readonly type: 'denied'; readonly tool: string; readonly reason: string }
  | { readonly type: 'queued'; readonly tool: string }
  | { readonly type: 'started'; readonly tool: string }
  | { readonly type: 'finished'; readonly tool: string; readonly isError: boolean };

/** Everything shared by the calls of one server. */
export interface CallPolicy {
  readonly tools: ReadonlyMap<string, Tool>;
  readonly confirmOverMcp: ConfirmOverMcp;
  readonly slots: Semaphore;
  readonly toolTimeoutMs: number;
  readonly elicitationTimeoutMs: number;
  /** The working directory command tools run in. */
  readonly workDir: string | undefined;
  readonly observe?: (event: CallEvent) => void;
}

/** The calling session, as far as a call needs it. */
export interface CallPeer {
  /** Read at call time: whether the session negotiated form elicitation. */
  canElicit(): boolean;
  /** Puts the approval form to the client; rejects on timeout, cancellation or a transport error. */
  elicit(form: ApprovalForm, opts: { readonly signal: AbortSignal; readonly timeoutMs: number }): Promise<unknown>;
}

/** Drops control characters (newline and tab survive) so a call line cannot restyle a client's screen. */
function stripControl(text: string): string {
  let out = '';
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0;
    if ((c < 0x20 && ch !== '\n' && ch !== '\t') || (c >= 0x7f && c <= 0x9f)) continue;
    out += ch;
  }
  return out;
}

/** The resolved call a person approves: the command tool's own rendering when it has one. */
function callLine(tool: Tool, input: string): string {
  const describer = tool as unknown as { traceLine?: unknown };
  if (typeof describer.traceLine === 'function') {
    try {
      const line: unknown = (describer.traceLine as (input: string) => unknown).call(tool, input);
      if (typeof line === 'string' && line !== '') return stripControl(line);
    } catch {
      // input the tool refuses to render still gets the generic line
    }
  }
  return stripControl(`${tool.name} ${input}`);
}

/** The message a call gets when it outlives the per-call timeout. */
export function timeoutText(name: string, ms: number): string {
  return `the tool ${name} did not finish within ${formatGoDuration(ms)} and was stopped (a command is killed with its process group); its output is lost (expose.agent.mcp.tool_timeout)`;
}

async function runWithTimeout(tool: Tool, input: string, deps: ExecDeps, ms: number, signal: AbortSignal): Promise<Outcome | 'timeout' | 'cancelled'> {
  const timer = new AbortController();
  const handle = setTimeout(() => timer.abort(new Error('tool timeout')), ms);
  try {
    const outcome = await tool.execute(input, deps, AbortSignal.any([signal, timer.signal]));
    if (signal.aborted) return 'cancelled';
    return timer.signal.aborted ? 'timeout' : outcome;
  } catch (err) {
    if (signal.aborted) return 'cancelled';
    if (timer.signal.aborted) return 'timeout';
    return { status: 'completed', output: `the tool failed: ${err instanceof Error ? err.message : String(err)}`, isError: true };
  } finally {
    clearTimeout(handle);
  }
}

/**
 * Serves one `tools/call`. `args` is the client's arguments object (absent means `{}`); `signal`
 * aborts when the client cancels or the session closes.
 */
export async function serveCall(policy: CallPolicy, peer: CallPeer, name: string, args: Record<string, unknown> | undefined, signal: AbortSignal): Promise<ServedResult> {
  const tool = policy.tools.get(name);
  if (tool === undefined) {
    return textResult(`tool ${JSON.stringify(name)} is not served here; call one of the tools in tools/list`, true);
  }
  const input = JSON.stringify(args ?? {});
  // Served tools were checked at startup; this is the backstop for a set built some other way.
  const deny = (reason: string): ServedResult => {
    policy.observe?.({ type: 'denied', tool: name, reason });
    return denialResult(reason);
  };
  if (!isConfirmable(tool)) return deny(`${name} cannot report whether it needs approval, so it is not run`);
  // before the gate, as in a run: nobody is asked to approve a call that cannot run
  const invalid = validateRequired(tool.inputSchema, input);
  if (invalid !== undefined) return textResult(`invalid arguments for ${name}: ${invalid}`, true);
  const gate = tool.confirmGate();
  const action = gateAction(policy.confirmOverMcp, gate.gated, peer.canElicit());
  switch (action) {
    case 'run':
      break;
    case 'refuse':
      return deny(`${name} needs approval and this client cannot be asked (it did not offer form elicitation); expose.agent.mcp.confirm_over_mcp is always`);
    case 'ask': {
      policy.observe?.({ type: 'asking', tool: name });
      let answer: unknown;
      try {
        answer = await peer.elicit(approvalForm(name, callLine(tool, input), gate.trigger), { signal, timeoutMs: policy.elicitationTimeoutMs });
      } catch (err) {
        return deny(`the approval request failed, so the call was not run: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (!isApproval(answer)) return deny(denialReason(answer));
      break;
    }
    default: {
      const never: never = action;
      return never;
    }
  }

  policy.observe?.({ type: 'queued', tool: name });
  let release: () => void;
  try {
    release = await policy.slots.acquire(signal);
  } catch {
    return textResult(`the call to ${name} was cancelled while it waited for a free slot`, true);
  }
  try {
    policy.observe?.({ type: 'started', tool: name });
    const deps: { prompter?: Prompter; workDir?: string; timeoutMs?: number } = { timeoutMs: policy.toolTimeoutMs };
    if (needsPrompter(tool)) deps.prompter = DENY_PROMPTER;
    if (needsWorkDir(tool) && policy.workDir !== undefined) deps.workDir = policy.workDir;
    const ran = await runWithTimeout(tool, input, deps, policy.toolTimeoutMs, signal);
    let result: ServedResult;
    if (ran === 'timeout') result = textResult(timeoutText(name, policy.toolTimeoutMs), true);
    else if (ran === 'cancelled') result = textResult(`the call to ${name} was cancelled by the client`, true);
    else if (ran.status === 'deferred') {
      result = textResult(`${name} deferred its answer (${ran.reason}), which cannot be carried over MCP: a served call has no session to answer later`, true);
    } else result = outcomeResult(ran);
    policy.observe?.({ type: 'finished', tool: name, isError: result.isError === true });
    return result;
  } finally {
    release();
  }
}
