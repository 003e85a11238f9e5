/**
 * Telling a terminal multiplexer what the run is doing (working, idle, or blocked on a person), so
 * somebody watching several agents in panes can see which one wants them. The pane is labelled with
 * the agent's identity rather than the program's name.
 *
 * Best effort, always: `report` returns before anything is sent, a newer report replaces an unsent
 * older one, a failed delivery is dropped, and nothing thrown while sending escapes, because an
 * error there would end the process with the terminal still in raw mode.
 */
import { execFile } from 'node:child_process';

export const PANE_STATES = ['working', 'idle', 'blocked'] as const;
export type PaneState = (typeof PANE_STATES)[number];

/** How one multiplexer is told: each step is a program and its argv, or bytes for the terminal. */
export interface Multiplexer {
  readonly name: 'tmux' | 'zellij' | 'wezterm';
  /** The deliveries that label the pane with `identity` and show `state`. */
  deliveries(identity: string, state: PaneState): Delivery[];
}

export type Delivery = { readonly program: string; readonly args: readonly string[] } | { readonly write: string };

/** The tmux user option a pane's state is kept in (`#{@fisk_ai_state}` in a status format). */
export const TMUX_STATE_OPTION = '@fisk_ai_state';

const base64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

/** Strips anything that could end or escape a title or an argument meant as plain text. */
function label(text: string): string {
  // eslint-disable-next-line no-control-regex -- a label carries no control characters
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').slice(0, 120);
}

/**
 * The multiplexer this process runs in, read from the environment: the first that named itself
 * claims the process. Outside any pane, none.
 */
export function detectMultiplexer(env: Readonly<Record<string, string | undefined>>): Multiplexer | undefined {
  const set = (name: string): boolean => (env[name] ?? '') !== '';
  if (set('TMUX')) {
    const pane = env['TMUX_PANE'] ?? '';
    const target = pane === '' ? [] : ['-t', pane];
    return {
      name: 'tmux',
      deliveries: (identity, state) => [
        { program: 'tmux', args: ['select-pane', ...target, '-T', label(identity)] },
        { program: 'tmux', args: ['set-option', '-p', ...target, TMUX_STATE_OPTION, state] },
      ],
    };
  }
  if (set('ZELLIJ') || set('ZELLIJ_SESSION_NAME')) {
    return {
      name: 'zellij',
      deliveries: (identity, state) => [{ program: 'zellij', args: ['action', 'rename-pane', `${label(identity)} (${state})`] }],
    };
  }
  if (set('WEZTERM_PANE')) {
    return {
      name: 'wezterm',
      // a user variable and the pane title, both written as escape sequences to the terminal
      deliveries: (identity, state) => [
        { write: `\u001b]1337;SetUserVar=fisk_ai_state=${base64(state)}\u0007\u001b]2;${label(identity)}\u0007` },
      ],
    };
  }
  return undefined;
}

/** Runs a program and reports whether it succeeded; never throws. */
export type Runner = (program: string, args: readonly string[]) => Promise<boolean>;

const execRunner: Runner = (program, args) =>
  new Promise((resolve) => {
    try {
      const child = execFile(program, [...args], { timeout: 2000, windowsHide: true }, (err) => resolve(err === null));
      child.on('error', () => resolve(false));
    } catch {
      resolve(false);
    }
  });

/** Sends pane states one at a time, newest wins. */
export class PaneReporter {
  #pending: PaneState | undefined;
  #sending = false;
  #last: PaneState | undefined;
  #idle: Promise<void> = Promise.resolve();
  #settle: (() => void) | undefined;

  constructor(
    private readonly multiplexer: Multiplexer | undefined,
    private readonly identity: string,
    private readonly terminal: (bytes: string) => void,
    private readonly run: Runner = execRunner,
  ) {}

  /** Queues `state` and returns at once; a state not yet sent is replaced. */
  report(state: PaneState): void {
    if (this.multiplexer === undefined) return;
    this.#pending = state;
    if (this.#sending) return;
    this.#sending = true;
    this.#idle = new Promise((resolve) => (this.#settle = resolve));
    setImmediate(() => void this.#drain());
  }

  /** Resolves once nothing is waiting to be sent (for an orderly exit and for tests). */
  settled(): Promise<void> {
    return this.#idle;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#pending !== undefined) {
        const state = this.#pending;
        this.#pending = undefined;
        if (state === this.#last) continue;
        this.#last = state;
        for (const d of this.multiplexer?.deliveries(this.identity, state) ?? []) {
          if ('write' in d) this.terminal(d.write);
          else await this.run(d.program, d.args);
        }
      }
    } catch {
      // a report that cannot be sent is dropped: it never fails the run
    } finally {
      this.#sending = false;
      this.#settle?.();
    }
  }
}
