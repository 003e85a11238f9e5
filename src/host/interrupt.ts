/**
 * The two-stage interrupt every surface uses: the first interrupt asks a journaled run to suspend
 * at its next boundary (a run that cannot be resumed is cancelled instead), the second cancels,
 * and one more means the caller should leave at once because a stop is hanging.
 */
import type { RunHandle } from './run.js';

/** What an interrupt did, so the surface can say so. */
export type InterruptStep = 'suspending' | 'cancelling' | 'exit';

/** Returns the function to call on each interrupt (Ctrl-C, SIGTERM, a stop button). */
export function twoStageInterrupt(handle: () => RunHandle | undefined): () => InterruptStep {
  let presses = 0;
  return () => {
    presses++;
    const h = handle();
    const resumable = h?.runId !== undefined;
    if (presses === 1 && resumable) {
      h?.suspend();
      return 'suspending';
    }
    if (presses === 1 || (presses === 2 && resumable)) {
      h?.cancel();
      return 'cancelling';
    }
    return 'exit';
  };
}
