import { LlmError } from './errors.js';

/** The reason a call's internal controller is aborted with when the per-call timeout elapses. */
class CallTimeout extends Error {
  constructor(ms: number) {
    super(`the model did not answer within ${ms} ms`);
    this.name = 'CallTimeout';
  }
}

/**
 * Runs one model call under the per-call timeout and the caller's signal. The provider alone
 * enforces the timeout, so it settles on the deadline itself rather than trusting the SDK to honour
 * the abort promptly: a stuck connection still ends the call on time.
 *
 * A timeout becomes `LlmError('timeout')`, the caller's abort `LlmError('aborted')`; any other
 * failure goes through `classify`. `timeoutMs` of 0 or less means no timeout. Whichever comes
 * first (the answer, the deadline, the abort) settles the one promise; a call costs a controller,
 * a timer and a listener, and no race.
 */
export async function withCallTimeout<T>(
  timeoutMs: number,
  signal: AbortSignal,
  run: (signal: AbortSignal) => Promise<T>,
  classify: (err: unknown) => LlmError,
): Promise<T> {
  if (signal.aborted) throw new LlmError('aborted', 'the model call was cancelled before it started', { cause: signal.reason });
  const controller = new AbortController();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = (): void => {
      controller.abort(signal.reason);
      if (settle()) reject(new LlmError('aborted', 'the model call was cancelled', { cause: signal.reason }));
    };
    /** Marks the call settled and releases the timer and the listener; false when it already was. */
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      return true;
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (timeoutMs > 0) {
      timer = setTimeout(() => {
        const reason = new CallTimeout(timeoutMs);
        controller.abort(reason);
        if (settle()) reject(timeoutError(timeoutMs, reason));
      }, timeoutMs);
    }
    const failed = (err: unknown): void => {
      // a failure after the deadline or the abort is the aborted request ending: already reported
      if (!settle()) return;
      if (err instanceof LlmError && (err.code === 'timeout' || err.code === 'aborted')) reject(err);
      else if (signal.aborted) reject(new LlmError('aborted', 'the model call was cancelled', { cause: err }));
      else {
        try {
          reject(classify(err));
        } catch (classifyErr) {
          reject(classifyErr instanceof Error ? classifyErr : new Error(String(classifyErr)));
        }
      }
    };
    let call: Promise<T>;
    try {
      call = run(controller.signal);
    } catch (err) {
      // a provider's run is async and so never throws, but a hand-written one might
      failed(err);
      return;
    }
    call.then((value) => {
      if (settle()) resolve(value);
    }, failed);
  });
}

function timeoutError(timeoutMs: number, cause: unknown): LlmError {
  return new LlmError('timeout', `the model call timed out after ${formatMs(timeoutMs)}`, {
    cause,
    hint: 'raise llm.budget.call_timeout if the model needs longer',
  });
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
