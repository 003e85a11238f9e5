/**
 * Stops a channel pulling while something every job needs is failing (the model service, a
 * store), so an outage costs a pause rather than the queue. After `threshold` retryable failures
 * in a row the channel pauses and says so once; it then lets one job through as a probe after a
 * delay that doubles with every probe that fails, and resumes by itself when one succeeds. Jobs
 * are never acknowledged as failed for an outage: a failure while paused hands the job back
 * without counting it as an attempt.
 */

/** Whether a channel takes work now. */
export const PULL_STATES = ['pulling', 'paused', 'closed'] as const;
export type PullState = (typeof PULL_STATES)[number];

/** A channel's intake as a health check or an operator sees it. */
export interface ChannelStatus {
  readonly state: PullState;
  /** When it entered the state. */
  readonly since: Date;
  /** Why it is paused: the failure that paused it. */
  readonly reason?: string;
}

export interface DependencyPauseOptions {
  /** Retryable failures in a row that pause pulling (default 3). */
  readonly threshold?: number;
  /** The delay before the first probe, in ms (default 1 s); it doubles per failed probe. */
  readonly firstProbeMs?: number;
  /** The longest delay between probes, in ms (default 30 s). */
  readonly maxProbeMs?: number;
  /** Told once when pulling pauses (with the failure that paused it) and once when it resumes. */
  readonly onPause?: (reason: string) => void;
  readonly onResume?: (pausedMs: number) => void;
}

/** What `admit` hands a pull: whether the job it takes is the probe of a paused channel. */
export interface Admission {
  readonly probe: boolean;
}

export class DependencyPause {
  readonly #threshold: number;
  readonly #firstProbeMs: number;
  readonly #maxProbeMs: number;
  readonly #onPause: (reason: string) => void;
  readonly #onResume: (pausedMs: number) => void;
  #consecutive = 0;
  #state: PullState = 'pulling';
  #since = new Date();
  #reason: string | undefined;
  #probeDelayMs: number;
  #nextProbeAt = 0;
  #probing = false;
  #wake: (() => void)[] = [];

  constructor(options: DependencyPauseOptions = {}) {
    this.#threshold = Math.max(1, options.threshold ?? 3);
    this.#firstProbeMs = Math.max(1, options.firstProbeMs ?? 1_000);
    this.#maxProbeMs = Math.max(this.#firstProbeMs, options.maxProbeMs ?? 30_000);
    this.#probeDelayMs = this.#firstProbeMs;
    this.#onPause = options.onPause ?? ((): void => undefined);
    this.#onResume = options.onResume ?? ((): void => undefined);
  }

  /** The intake's state now. */
  get status(): ChannelStatus {
    return { state: this.#state, since: this.#since, ...(this.#reason === undefined ? {} : { reason: this.#reason }) };
  }

  /** Whether pulling is paused now. */
  get paused(): boolean {
    return this.#state === 'paused';
  }

  /** A dependency failed in a way worth retrying; `probe` when the job was the paused channel's probe. */
  failed(reason: string, probe: boolean): void {
    if (this.#state === 'closed') return;
    this.#consecutive++;
    if (this.#state === 'paused') {
      if (probe) {
        this.#probing = false;
        this.#probeDelayMs = Math.min(this.#probeDelayMs * 2, this.#maxProbeMs);
        this.#nextProbeAt = Date.now() + this.#probeDelayMs;
        this.#reason = reason;
        this.#notify();
      }
      return;
    }
    if (this.#consecutive < this.#threshold) return;
    this.#state = 'paused';
    this.#since = new Date();
    this.#reason = reason;
    this.#probing = false;
    this.#probeDelayMs = this.#firstProbeMs;
    this.#nextProbeAt = Date.now() + this.#probeDelayMs;
    this.#onPause(
      `${this.#consecutive} failures in a row (${reason}); jobs stay queued, and one is tried again in ${Math.round(this.#probeDelayMs / 1000)} s, then less and less often until one succeeds`,
    );
  }

  /** A job reached its dependencies and they answered (whatever the job's own result). */
  succeeded(): void {
    this.#consecutive = 0;
    if (this.#state !== 'paused') return;
    const pausedMs = Date.now() - this.#since.getTime();
    this.#state = 'pulling';
    this.#since = new Date();
    this.#reason = undefined;
    this.#probing = false;
    this.#onResume(pausedMs);
    this.#notify();
  }

  /** A probe that ended without telling anything (handed back on drain): another may go. */
  released(probe: boolean): void {
    if (!probe || this.#state !== 'paused') return;
    this.#probing = false;
    this.#notify();
  }

  /** Stops for good: every waiting `admit` resolves undefined. */
  close(): void {
    this.#state = 'closed';
    this.#since = new Date();
    this.#notify();
  }

  /**
   * Resolves when one pull may go: at once while pulling; while paused, when the probe delay has
   * passed and no other probe is out. `undefined` when `signal` aborts or the pause is closed.
   */
  async admit(signal: AbortSignal): Promise<Admission | undefined> {
    for (;;) {
      if (signal.aborted || this.#state === 'closed') return undefined;
      if (this.#state === 'pulling') return { probe: false };
      const wait = this.#nextProbeAt - Date.now();
      if (!this.#probing && wait <= 0) {
        this.#probing = true;
        return { probe: true };
      }
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          const i = this.#wake.indexOf(done);
          if (i >= 0) this.#wake.splice(i, 1);
          resolve();
        };
        const timer = setTimeout(done, this.#probing ? this.#maxProbeMs : Math.max(wait, 1));
        timer.unref();
        signal.addEventListener('abort', done, { once: true });
        this.#wake.push(done);
      });
    }
  }

  #notify(): void {
    for (const wake of this.#wake.splice(0)) wake();
  }
}
