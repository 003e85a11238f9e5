/** Running one tool under the call's deadline and cancellation. */
import type { ExecDeps, Outcome, Tool } from '../tool.js';
import { toolFailedMessage } from './messages.js';

/**
 * A signal nothing can abort (its controller is unreachable), for a caller with nothing to cancel
 * a call by, such as a peer's served call, which only its deadline stops. `runTool` does not listen
 * to it, which spares a listener added and removed on every call.
 */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** What running a tool came to. */
export type RunToolResult = Outcome | { readonly status: 'timeout' } | { readonly status: 'aborted' };

/** Resolves when `signal` aborts, so a call can be answered even if its tool never looks at the signal. */
function aborted(signal: AbortSignal): { readonly promise: Promise<'aborted'>; readonly dispose: () => void } {
  let onAbort: (() => void) | undefined;
  const promise = new Promise<'aborted'>((resolve) => {
    if (signal.aborted) return resolve('aborted');
    onAbort = () => resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => onAbort !== undefined && signal.removeEventListener('abort', onAbort) };
}

/** Runs the tool until it answers or `signal` aborts, whichever is first. */
async function raced(tool: Tool, input: string, deps: ExecDeps, signal: AbortSignal): Promise<Outcome | 'aborted'> {
  if (signal === NEVER_ABORTED) return tool.execute(input, deps, signal);
  const stop = aborted(signal);
  try {
    return await Promise.race([tool.execute(input, deps, signal), stop.promise]);
  } finally {
    stop.dispose();
  }
}

/**
 * Runs `tool` with `deps`, stopping it when `signal` aborts (the run or client went away) or
 * `timeoutMs` passes (absent: no deadline). A command tool is killed with its process group; an
 * in-process tool is asked to stop through the signal, and the call is answered at the deadline
 * even if the tool ignores it, so the deadline and the interrupt always win. A tool that throws
 * failed in a way the model can still reason about, so the throw becomes an error outcome.
 */
export async function runTool(
  tool: Tool,
  input: string,
  deps: ExecDeps,
  signal: AbortSignal,
  timeoutMs: number | undefined,
): Promise<RunToolResult> {
  if (timeoutMs === undefined) {
    try {
      const outcome = await raced(tool, input, deps, signal);
      return outcome === 'aborted' || signal.aborted ? { status: 'aborted' } : outcome;
    } catch (err) {
      if (signal.aborted) return { status: 'aborted' };
      return { status: 'completed', output: toolFailedMessage(err), isError: true };
    }
  }
  // one controller per call, fed by the caller's signal and the timer (cheaper than AbortSignal.any);
  // both also settle `stopped` directly, so the race needs no listener on the call's own signal
  const call = new AbortController();
  let timedOut = false;
  let stop!: (why: 'aborted') => void;
  const stopped = new Promise<'aborted'>((resolve) => (stop = resolve));
  const onAbort = (): void => {
    call.abort(signal.reason);
    stop('aborted');
  };
  const listens = signal !== NEVER_ABORTED;
  if (signal.aborted) onAbort();
  else if (listens) signal.addEventListener('abort', onAbort, { once: true });
  const handle = setTimeout(() => {
    timedOut = true;
    call.abort(new Error('tool timeout'));
    stop('aborted');
  }, timeoutMs);
  try {
    const outcome = await Promise.race([tool.execute(input, deps, call.signal), stopped]);
    if (signal.aborted) return { status: 'aborted' };
    if (timedOut || outcome === 'aborted') return { status: 'timeout' };
    return outcome;
  } catch (err) {
    if (signal.aborted) return { status: 'aborted' };
    if (timedOut) return { status: 'timeout' };
    return { status: 'completed', output: toolFailedMessage(err), isError: true };
  } finally {
    clearTimeout(handle);
    if (listens) signal.removeEventListener('abort', onAbort);
  }
}
