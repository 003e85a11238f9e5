/**
 * Signs of life on a terminal: while the model is thinking, one line on stderr with a spinner, the
 * iteration and the time waited, redrawn in place and cleared before anything else is written.
 * Only for a terminal: a pipe or a log never sees it.
 */
import type { AgentEvent } from '../../agent/events.js';
import { formatLatency } from '../../render/summary.js';

const FRAMES = ['|', '/', '-', '\\'] as const;
const ERASE = '\r\u001b[K';

/**
 * Whether the status line is drawn: stderr is a terminal and `harness.no_progress` is off. The
 * line surface is what `--no-tui` chooses, so it shows signs of life too; a pipe never sees them.
 */
export function shouldShowProgress(errIsTty: boolean, noProgress: boolean): boolean {
  return errIsTty && !noProgress;
}

/** What the status line needs from its surroundings; replaced in tests. */
export interface StatusClock {
  now(): number;
  /** Calls `tick` repeatedly until the returned stop is called. */
  every(ms: number, tick: () => void): () => void;
}

export const SYSTEM_CLOCK: StatusClock = {
  now: () => Date.now(),
  every: (ms, tick) => {
    const t = setInterval(tick, ms);
    t.unref();
    return () => clearInterval(t);
  },
};

export class StatusLine {
  #stop: (() => void) | undefined;
  #drawn = false;
  #frame = 0;
  #since = 0;
  #iteration = 0;

  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly clock: StatusClock = SYSTEM_CLOCK,
  ) {}

  /** Starts the line on a model call and clears it on any other event. */
  observe(event: AgentEvent): void {
    if (event.type === 'status' && event.phase === 'model_call') this.start(event.iteration);
    else this.clear();
  }

  /** Draws the line now and keeps redrawing it. */
  start(iteration: number): void {
    this.clear();
    this.#iteration = iteration;
    this.#since = this.clock.now();
    this.#frame = 0;
    this.#draw();
    this.#stop = this.clock.every(100, () => this.#draw());
  }

  /** Stops redrawing and erases the line, so the next output starts on a clean line. */
  clear(): void {
    this.#stop?.();
    this.#stop = undefined;
    if (this.#drawn) this.stream.write(ERASE);
    this.#drawn = false;
  }

  #draw(): void {
    const frame = FRAMES[this.#frame % FRAMES.length] ?? '|';
    this.#frame++;
    const waited = formatLatency(this.clock.now() - this.#since).replace(/\.\d+s$/, 's');
    this.stream.write(`${ERASE}${frame} waiting for the model (iteration ${this.#iteration + 1}, ${waited})`);
    this.#drawn = true;
  }
}
