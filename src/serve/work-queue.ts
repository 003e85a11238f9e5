/**
 * The hand-over between a channel that receives work on its own schedule (a NATS prompt, an A2A
 * task) and the server's workers that ask for the next piece: work waits here until a worker takes
 * it, and a worker waits here until work arrives, its wait ended by its signal or by closing.
 */
import type { Work } from './channel.js';

export class WorkQueue {
  readonly #waiting: Work[] = [];
  readonly #takers: ((w: Work | undefined) => void)[] = [];
  #open = true;

  /** False once closed: nothing more is taken in. */
  get open(): boolean {
    return this.#open;
  }

  /** Hands work to a waiting worker, or keeps it for the next; refused (false) once closed. */
  offer(work: Work): boolean {
    if (!this.#open) return false;
    const taker = this.#takers.shift();
    if (taker !== undefined) taker(work);
    else this.#waiting.push(work);
    return true;
  }

  /** Takes work back that no worker has taken yet, abandoning it; false when it was already taken. */
  withdraw(work: Work): boolean {
    const i = this.#waiting.indexOf(work);
    if (i < 0) return false;
    this.#waiting.splice(i, 1);
    void work.done({ kind: 'abandoned' });
    return true;
  }

  /** The next work, or undefined once closed or when `signal` aborts first. */
  next(signal: AbortSignal): Promise<Work | undefined> {
    if (!this.#open || signal.aborted) return Promise.resolve(undefined);
    const w = this.#waiting.shift();
    if (w !== undefined) return Promise.resolve(w);
    return new Promise<Work | undefined>((resolve) => {
      const take = (x: Work | undefined): void => {
        signal.removeEventListener('abort', give);
        resolve(x);
      };
      const give = (): void => {
        const i = this.#takers.indexOf(take);
        if (i >= 0) this.#takers.splice(i, 1);
        resolve(undefined);
      };
      signal.addEventListener('abort', give, { once: true });
      this.#takers.push(take);
    });
  }

  /** Closes intake: every waiting worker is told there is nothing, and work not yet taken is abandoned. */
  close(): void {
    if (!this.#open) return;
    this.#open = false;
    for (const t of this.#takers.splice(0)) t(undefined);
    for (const w of this.#waiting.splice(0)) void w.done({ kind: 'abandoned' });
  }
}
