/**
 * The status bar of the full-screen view: a small state machine, and four token counters kept
 * apart (a turn reports them apart and a resume seeds them) whose sum is what the bar shows, since
 * the budget counts cache reads and writes at full weight. The only time shown is how long the
 * model call in flight has taken (the controller adds it): a clock for the whole run would keep
 * climbing through idle waits for input.
 */
import type { RunStatus } from '../agent/status.js';
import type { Usage } from '../llm/types.js';

export const BAR_STATES = ['running', 'blocked', 'suspending', 'suspended', 'complete', 'aborted', 'error', 'awaiting input'] as const;
export type BarState = (typeof BAR_STATES)[number];

/** What moves the bar. */
export type BarEvent =
  | { readonly type: 'question' }
  | { readonly type: 'answered' }
  | { readonly type: 'suspend_requested' }
  | { readonly type: 'turn_ended'; readonly status: RunStatus }
  | { readonly type: 'input_ready' }
  | { readonly type: 'prompt_sent' };

/** The next state; an event that does not apply leaves the state as it is. */
export function nextBarState(state: BarState, event: BarEvent): BarState {
  switch (event.type) {
    case 'question':
      return state === 'running' ? 'blocked' : state;
    case 'answered':
      return state === 'blocked' ? 'running' : state;
    case 'suspend_requested':
      return state === 'running' || state === 'blocked' ? 'suspending' : state;
    case 'turn_ended':
      return endState(event.status);
    case 'input_ready':
      return state === 'complete' ? 'awaiting input' : state;
    case 'prompt_sent':
      return 'running';
    default: {
      const never: never = event;
      return never;
    }
  }
}

function endState(status: RunStatus): BarState {
  switch (status) {
    case 'completed':
      return 'complete';
    case 'suspended':
      return 'suspended';
    case 'aborted':
      return 'aborted';
    case 'budget':
    case 'max_iterations':
    case 'error':
    case 'crashed':
      return 'error';
    default: {
      const never: never = status;
      return never;
    }
  }
}

/** The colours a state is drawn in; the word itself is always written, so monochrome loses nothing. */
export function barColours(state: BarState): { readonly background: string; readonly foreground: string } {
  switch (state) {
    case 'running':
    case 'suspending':
      return { background: 'blue', foreground: 'white' };
    case 'blocked':
      // amber: a person is needed
      return { background: 'yellow', foreground: 'black' };
    case 'awaiting input':
    case 'complete':
      return { background: 'green', foreground: 'black' };
    case 'suspended':
      return { background: 'magenta', foreground: 'white' };
    case 'aborted':
    case 'error':
      return { background: 'red', foreground: 'white' };
    default: {
      const never: never = state;
      return never;
    }
  }
}

/** The four token counters, apart. */
export interface TokenCounts {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}

export const NO_TOKENS: TokenCounts = Object.freeze({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

function sum(s: TokenCounts, usage: Usage): TokenCounts {
  return {
    input: s.input + usage.input,
    output: s.output + usage.output,
    cacheRead: s.cacheRead + usage.cacheRead,
    cacheWrite: s.cacheWrite + usage.cacheWrite,
  };
}

/**
 * Tokens across the turns of a session: the counters of finished turns, apart, plus the live
 * figures a running turn's status events report (input there already includes both cache tiers).
 */
export class TokenTally {
  #settled: TokenCounts = NO_TOKENS;
  #liveInput = 0;
  #liveOutput = 0;

  /** Counts on from tokens used before the view opened (a resumed session's journaled turns). */
  seed(usage: Usage): void {
    this.#settled = sum(this.#settled, usage);
  }

  /** A running turn's cumulative usage, from its status events. */
  live(inputTokens: number, outputTokens: number): void {
    this.#liveInput = inputTokens;
    this.#liveOutput = outputTokens;
  }

  /** A turn ended: its own counters replace its live figures. */
  settle(usage: Usage): void {
    this.#settled = sum(this.#settled, usage);
    this.#liveInput = 0;
    this.#liveOutput = 0;
  }

  /** The counters of finished turns, apart. */
  get settled(): TokenCounts {
    return this.#settled;
  }

  /** What the bar shows: every tier at full weight, the running turn included. */
  get total(): number {
    const s = this.#settled;
    return s.input + s.output + s.cacheRead + s.cacheWrite + this.#liveInput + this.#liveOutput;
  }
}

/** The bar's text left of the key hints: the state word, the identity and the token sum. */
export function barText(state: BarState, identity: string, tokens: number): string {
  return ` ${state.toUpperCase()} │ ${identity} │ tokens ${tokens.toLocaleString('en-US')} `;
}
