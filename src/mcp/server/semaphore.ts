/**
 * A counting semaphore whose waiters can give up. Served calls take a slot before they run, so a
 * burst of calls from anything that reaches the port queues here instead of spawning commands.
 */
export class Semaphore {
  readonly capacity: number;
  #inUse = 0;
  readonly #waiters: { grant: () => void }[] = [];

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`a semaphore needs a capacity of at least 1, got ${capacity}`);
    this.capacity = capacity;
  }

  /** Slots held right now. */
  get inUse(): number {
    return this.#inUse;
  }

  /** Callers queued for a slot right now. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /**
   * Resolves with a release function once a slot is free, or rejects with the signal's reason if
   * the signal aborts first (the caller then holds nothing). Release is idempotent.
   */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(abortReason(signal));
    if (this.#inUse < this.capacity) {
      this.#inUse += 1;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          this.#inUse += 1;
          resolve(this.#releaser());
        },
      };
      const onAbort = (): void => {
        const i = this.#waiters.indexOf(waiter);
        if (i >= 0) this.#waiters.splice(i, 1);
        reject(abortReason(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inUse -= 1;
      this.#waiters.shift()?.grant();
    };
  }
}

function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new Error('aborted while waiting for a slot');
}
