/**
 * The end of a program's output, bounded. Killing a process group does not reach a descendant that
 * moved to its own session or group (`setsid`), and such a descendant can hold the output pipe open
 * for as long as it likes. Once the group is gone, the reader waits a short grace period for the
 * pipe to close and then closes it itself; an abort cuts the wait at once.
 */
import type { Readable } from 'node:stream';

/** How long output may stay open after the program's process group is gone: 500 ms. */
export const OUTPUT_GRACE_MS = 500;

/** The note added to a result whose output a detached descendant held open. */
export function heldOpenNote(graceMs: number = OUTPUT_GRACE_MS): string {
  return `[fisk: the output was still held open ${graceMs} ms after the command's process group ended (a detached descendant kept it); reading stopped there and any later output was discarded]`;
}

/** How waiting for the output ended. */
export type OutputEnd = 'closed' | 'held_open' | 'aborted';

/**
 * Waits until every stream has closed, at most `graceMs`, or until `signal` aborts. A stream still
 * open at the end is destroyed, so nothing keeps the caller (or the process) waiting on it.
 */
export async function awaitOutputEnd(streams: readonly Readable[], graceMs: number, signal?: AbortSignal): Promise<OutputEnd> {
  const open = streams.filter((s) => !s.closed && !s.destroyed);
  if (open.length === 0) return 'closed';
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const closed = Promise.all(
    open.map(
      (s) =>
        new Promise<void>((resolve) => {
          s.once('close', () => resolve());
          s.once('error', () => resolve());
        }),
    ),
  ).then((): OutputEnd => 'closed');
  const cut = new Promise<OutputEnd>((resolve) => {
    if (signal?.aborted === true) {
      resolve('aborted');
      return;
    }
    timer = setTimeout(() => resolve('held_open'), graceMs);
    onAbort = () => resolve('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  const end = await Promise.race([closed, cut]);
  if (timer !== undefined) clearTimeout(timer);
  if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
  if (end !== 'closed') for (const s of open) s.destroy();
  return end;
}
