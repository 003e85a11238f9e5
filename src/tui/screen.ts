/**
 * Taking the terminal and giving it back. While the view runs, the alternate screen is shown, mouse
 * wheel reports are on, and standard error is held in a buffer, so library logging cannot draw over
 * the view; restoring reverses all of it and then writes the buffered standard error to the normal
 * screen. Restoring is idempotent: the exit path, a crash handler and the view's own teardown may
 * each call it, and only the first does anything.
 */

const ENTER = '\u001b[?1049h\u001b[?1000h\u001b[?1006h\u001b[?25l';
const LEAVE = '\u001b[?1006l\u001b[?1000l\u001b[?25h\u001b[?1049l';

/** Standard error held in memory for the life of the view. */
export class StderrBuffer {
  readonly #chunks: string[] = [];
  #capturing = false;
  /** The stream's own `write` property, when it had one (else its prototype's is used). */
  #own: PropertyDescriptor | undefined;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {}

  /** From now on, writes to the stream are kept rather than shown. */
  capture(): void {
    if (this.#capturing) return;
    this.#capturing = true;
    this.#own = Object.getOwnPropertyDescriptor(this.stream, 'write');
    const keep = (chunk: unknown, encodingOrDone?: unknown, done?: unknown): boolean => {
      this.#chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      const cb = typeof encodingOrDone === 'function' ? encodingOrDone : done;
      if (typeof cb === 'function') queueMicrotask(() => (cb as (err?: Error | null) => void)(null));
      return true;
    };
    Object.defineProperty(this.stream, 'write', { value: keep, configurable: true, writable: true });
  }

  /** Puts the stream back and writes what was held, in order. */
  release(): void {
    if (!this.#capturing) return;
    this.#capturing = false;
    if (this.#own === undefined) Reflect.deleteProperty(this.stream, 'write');
    else Object.defineProperty(this.stream, 'write', this.#own);
    const held = this.#chunks.splice(0).join('');
    if (held !== '') this.stream.write(held);
  }

  /** What is held so far. */
  held(): string {
    return this.#chunks.join('');
  }
}

export interface ScreenStreams {
  readonly stdout: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
}

/** The terminal as the view holds it. */
export class Screen {
  #entered = false;
  #restored = false;
  readonly #onExit = (): void => this.restore();
  readonly #steps: (() => void)[] = [];

  constructor(
    private readonly streams: ScreenStreams,
    private readonly stderr: StderrBuffer | undefined,
  ) {}

  /** Switches to the alternate screen and holds standard error. */
  enter(): void {
    if (this.#entered) return;
    this.#entered = true;
    this.stderr?.capture();
    this.streams.stdout.write(ENTER);
    // the process may end by a path nobody planned for; the terminal is given back regardless
    process.once('exit', this.#onExit);
  }

  /** Something to undo before the screen is given back (the view's unmount), last added first. */
  onRestore(step: () => void): void {
    this.#steps.push(step);
  }

  get restored(): boolean {
    return this.#restored;
  }

  /** Gives the terminal back and writes the held standard error. Safe to call any number of times. */
  restore(): void {
    if (!this.#entered || this.#restored) return;
    this.#restored = true;
    process.off('exit', this.#onExit);
    for (const step of this.#steps.splice(0).reverse()) {
      try {
        step();
      } catch {
        // the screen is given back whatever a step did
      }
    }
    try {
      if (this.streams.stdin.isTTY === true) this.streams.stdin.setRawMode?.(false);
    } catch {
      // a closed terminal cannot leave raw mode; nothing to restore
    }
    this.streams.stdout.write(LEAVE);
    this.stderr?.release();
  }
}
