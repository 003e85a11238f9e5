/** Driving a real tmux pane from a test: a server on its own socket, one pane, and a wait for what it shows. */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../../src/agenttest/eventually.js';

/** Whether tmux is installed; the tests that need it are skipped without it. */
export const hasTmux = ((): boolean => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
})();

export interface TmuxPane {
  /** Runs a tmux command on this server and returns what it printed. */
  readonly run: (...args: string[]) => string;
  /** The pane's text as shown now. */
  readonly screen: () => string;
  /** Waits until `test` holds for the pane's text (or anything else it checks), and returns the text. */
  readonly until: (test: (screen: string) => boolean, what: string) => Promise<string>;
  /** Ends the server, if it runs, and removes its socket, which tmux leaves behind when it exits. */
  readonly stop: () => void;
}

/** The pane `pane` on the tmux server at socket `socket`. */
export function tmuxPane(socket: string, pane: string): TmuxPane {
  const run = (...args: string[]): string =>
    execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const screen = (): string => run('capture-pane', '-p', '-t', pane);
  const stop = (): void => {
    try {
      run('kill-server');
    } catch {
      // never started, or already gone
    }
    // where tmux keeps the sockets of `-L` servers: $TMUX_TMPDIR (else /tmp), tmux-<uid>
    rmSync(join(process.env['TMUX_TMPDIR'] ?? '/tmp', `tmux-${process.getuid?.() ?? 0}`, socket), { force: true });
  };
  return {
    run,
    screen,
    stop,
    until: (test, what) => {
      // a loaded machine can take a while to start the CLI; the wait is generous, the check exact
      return eventually(
        () => {
          const shown = screen();
          return test(shown) && shown;
        },
        `the pane to show ${what}`,
        { timeoutMs: 200_000, intervalMs: 20, observed: screen },
      );
    },
  };
}
