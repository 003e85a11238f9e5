/** The spinner and the seconds the model has been thinking, shown on the full-screen view's bar. */

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'] as const;

function systemEvery(ms: number, tick: () => void): () => void {
  const t = setInterval(tick, ms);
  t.unref();
  return () => clearInterval(t);
}

export interface ThinkingClock {
  /** The clock the time is read from; `Date.now` by default. */
  readonly now?: () => number;
  /** Repeats `tick` until the returned stop is called; an unref'd interval by default. */
  readonly every?: (ms: number, tick: () => void) => () => void;
}

export class Thinking {
  /** When the model call in flight started; undefined when the run is not waiting on the model. */
  #since: number | undefined;
  #stop: (() => void) | undefined;
  #spin = 0;

  /** `redraw` is called at each turn of the spinner. */
  constructor(
    private readonly clock: ThinkingClock,
    private readonly redraw: () => void,
  ) {}

  /** Starts (or restarts) the count at a model call; stops it on anything else. */
  set(on: boolean): void {
    if (!on) {
      this.#stop?.();
      this.#stop = undefined;
      this.#since = undefined;
      return;
    }
    this.#since = (this.clock.now ?? Date.now)();
    this.#spin = 0;
    this.#stop ??= (this.clock.every ?? systemEvery)(200, () => {
      this.#spin++;
      this.redraw();
    });
  }

  /** The spinner and the seconds, for the bar; empty when the model is not thinking. */
  text(): string {
    const since = this.#since;
    if (since === undefined) return '';
    const seconds = Math.max(0, Math.floor(((this.clock.now ?? Date.now)() - since) / 1000));
    return `${SPINNER[this.#spin % SPINNER.length] ?? '⠋'} thinking ${seconds}s `;
  }
}
