/** Running one tool under the call's deadline and cancellation. */
import type { ExecDeps, Outcome, Tool } from '../tool.js';
import { toolFailedMessage } from './messages.js';

/** What running a tool came to. */
export type RunToolResult = Outcome | { readonly status: 'timeout' } | { readonly status: 'aborted' };

/**
 * Runs `tool` with `deps`, stopping it when `signal` aborts (the run or client went away) or
 * `timeoutMs` passes (absent: no deadline). A command tool is killed with its process group; an
 * in-process tool stops when it observes the signal. A tool that throws failed in a way the model
 * can still reason about, so the throw becomes an error outcome.
 */
export async function runTool(tool: Tool, input: string, deps: ExecDeps, signal: AbortSignal, timeoutMs: number | undefined): Promise<RunToolResult> {
  if (timeoutMs === undefined) {
    try {
      const outcome = await tool.execute(input, deps, signal);
      return signal.aborted ? { status: 'aborted' } : outcome;
    } catch (err) {
      if (signal.aborted) return { status: 'aborted' };
      return { status: 'completed', output: toolFailedMessage(err), isError: true };
    }
  }
  // one controller per call, fed by the caller's signal and the timer (cheaper than AbortSignal.any)
  const call = new AbortController();
  let timedOut = false;
  const onAbort = (): void => call.abort(signal.reason);
  if (signal.aborted) call.abort(signal.reason);
  else signal.addEventListener('abort', onAbort, { once: true });
  const handle = setTimeout(() => {
    timedOut = true;
    call.abort(new Error('tool timeout'));
  }, timeoutMs);
  try {
    const outcome = await tool.execute(input, deps, call.signal);
    if (signal.aborted) return { status: 'aborted' };
    if (timedOut) return { status: 'timeout' };
    return outcome;
  } catch (err) {
    if (signal.aborted) return { status: 'aborted' };
    if (timedOut) return { status: 'timeout' };
    return { status: 'completed', output: toolFailedMessage(err), isError: true };
  } finally {
    clearTimeout(handle);
    signal.removeEventListener('abort', onAbort);
  }
}
