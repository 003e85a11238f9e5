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
 * enforces the timeout, so it races the call itself rather than trusting the SDK to honour the
 * abort promptly: a stuck connection still ends the call on time.
 *
 * A timeout becomes `LlmError('timeout')`, the caller's abort `LlmError('aborted')`; any other
 * failure goes through `classify`. `timeoutMs` of 0 or less means no timeout.
 */
export async function withCallTimeout<T>(
  timeoutMs: number,
  signal: AbortSignal,
  run: (signal: AbortSignal) => Promise<T>,
  classify: (err: unknown) => LlmError,
): Promise<T> {
  if (signal.aborted) throw new LlmError('aborted', 'the model call was cancelled before it started', { cause: signal.reason });
  const controller = new AbortController();
  let timedOut = false;
  let rejectEarly: (err: LlmError) => void = () => undefined;
  const early = new Promise<never>((_, reject) => {
    rejectEarly = reject;
  });
  const onAbort = (): void => {
    controller.abort(signal.reason);
    rejectEarly(new LlmError('aborted', 'the model call was cancelled', { cause: signal.reason }));
  };
  signal.addEventListener('abort', onAbort, { once: true });
  const timer =
    timeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          const reason = new CallTimeout(timeoutMs);
          controller.abort(reason);
          rejectEarly(
            new LlmError('timeout', `the model call timed out after ${formatMs(timeoutMs)}`, {
              cause: reason,
              hint: 'raise llm.budget.call_timeout if the model needs longer',
            }),
          );
        }, timeoutMs)
      : undefined;
  try {
    return await Promise.race([run(controller.signal), early]);
  } catch (err) {
    if (err instanceof LlmError && (err.code === 'timeout' || err.code === 'aborted')) throw err;
    if (timedOut) {
      throw new LlmError('timeout', `the model call timed out after ${formatMs(timeoutMs)}`, {
        cause: err,
        hint: 'raise llm.budget.call_timeout if the model needs longer',
      });
    }
    if (signal.aborted) throw new LlmError('aborted', 'the model call was cancelled', { cause: err });
    throw classify(err);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    // A losing race leaves `early` rejected later by nobody; swallow so it never surfaces as unhandled.
    early.catch(() => undefined);
  }
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
