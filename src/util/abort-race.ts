/**
 * Waiting on a promise or an abort, whichever comes first, without leaving a listener behind on
 * the signal. A run's signal lives as long as the run and hears every question it asks: a listener
 * added per question and never removed piles up until Node warns about a leak.
 */

/**
 * Resolves with `work`'s value, or with `onAbort()` once `signal` aborts, and removes its abort
 * listener either way. A rejection of `work` rejects the race.
 */
export async function raceAbort<T, A>(work: Promise<T>, signal: AbortSignal, onAbort: () => A): Promise<T | A> {
  if (signal.aborted) return onAbort();
  let listener: (() => void) | undefined;
  const aborted = new Promise<A>((resolve) => {
    listener = () => resolve(onAbort());
    signal.addEventListener('abort', listener, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    if (listener !== undefined) signal.removeEventListener('abort', listener);
  }
}
