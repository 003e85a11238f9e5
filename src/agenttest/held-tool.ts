/**
 * A custom tool for tests of anything that runs tools concurrently: each call can be held until
 * the test lets it go (or the run's signal ends it), and the calls are counted.
 */
import type { Tool } from '../toolkit/tool.js';
import { completed, testTool } from './test-tool.js';

export interface HeldToolOptions {
  /** The tool's name (default `hold`). */
  readonly name?: string;
  /** Gated behind `ai:confirm`: every call needs an approval. */
  readonly gated?: boolean;
  /** Hold each call until {@link HeldTool.release} or the run's signal (default true). */
  readonly hold?: boolean;
  /** What a call returns (default `{"<name>":"ok"}`). */
  readonly output?: string;
}

/** Counts and holds the calls of one test tool. */
export class HeldTool {
  /** Calls started. */
  calls = 0;
  /** Calls being held now. */
  held = 0;
  /** The most calls held at once. */
  most = 0;
  readonly name: string;
  readonly #gated: boolean;
  readonly #hold: boolean;
  readonly #output: string;
  #waiters: (() => void)[] = [];
  #arrivals: (() => void)[] = [];

  constructor(opts: HeldToolOptions = {}) {
    this.name = opts.name ?? 'hold';
    this.#gated = opts.gated === true;
    this.#hold = opts.hold ?? true;
    this.#output = opts.output ?? JSON.stringify({ [this.name]: 'ok' });
  }

  tool(): Tool {
    return testTool({
      name: this.name,
      gated: this.#gated,
      tags: this.#gated ? ['ai:confirm'] : [],
      execute: async (_input, signal) => {
        this.calls++;
        if (!this.#hold) {
          for (const a of this.#arrivals.splice(0)) a();
          return completed(this.#output);
        }
        this.held++;
        this.most = Math.max(this.most, this.held);
        for (const a of this.#arrivals.splice(0)) a();
        await new Promise<void>((resolve) => {
          this.#waiters.push(resolve);
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
        this.held--;
        return completed(this.#output);
      },
    });
  }

  /** Resolves once `n` calls are held at the same time. */
  async until(n: number): Promise<void> {
    while (this.held < n) await new Promise<void>((r) => this.#arrivals.push(r));
  }

  /** Resolves once `n` calls have started in all, held or not. */
  async arrived(n: number): Promise<void> {
    while (this.calls < n) await new Promise<void>((r) => this.#arrivals.push(r));
  }

  /** Lets every held call finish. */
  release(): void {
    for (const w of this.#waiters.splice(0)) w();
  }
}
