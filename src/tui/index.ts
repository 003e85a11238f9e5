/**
 * The full-screen view of `fisk run`: takes the terminal, shows a run handle's turns until the
 * person leaves, and gives the terminal back. Teardown has one path: whatever ends the view (the
 * person leaving, an exception, the process exiting), the screen is restored once and the standard
 * error held meanwhile is written out after it.
 */
import { applyTerminalColours, loadInk } from './ink.js';
import { createElement } from 'react';
import type { FollowUpOptions, RunHandle } from '../host/index.js';
import { ViewController } from './controller.js';
import type { ViewResult } from './controller.js';
import { detectMultiplexer, PaneReporter } from './multiplex.js';
import type { StartupCard } from './card.js';
import type { StderrBuffer } from './screen.js';
import { Screen } from './screen.js';
import { FullScreen } from './view.js';

export { ViewController } from './controller.js';
export type { Frame, KeyPress, Modal, ViewDeps, ViewResult } from './controller.js';
export { Screen, StderrBuffer } from './screen.js';
export { detectMultiplexer, PaneReporter, PANE_STATES, TMUX_STATE_OPTION } from './multiplex.js';
export type { Delivery, Multiplexer, PaneState, Runner } from './multiplex.js';
export { BAR_STATES, barColours, barText, nextBarState, TokenTally } from './status-bar.js';
export type { BarEvent, BarState, TokenCounts } from './status-bar.js';
export { Transcript, THINKING_FOLD_ROWS } from './transcript.js';
export { FullScreen } from './view.js';
export { cardLines, CARD_TOOL_NAMES, localCard, telemetryOfHost } from './card.js';
export type { CardTelemetry, StartupCard } from './card.js';
export { chatOutcome } from './chat-outcome.js';

export { shouldUseFullScreen } from './select.js';

export interface FullScreenOptions {
  /**
   * The first turn, already started (so a run that cannot start says so on the normal screen);
   * absent to open on the input row and wait for the person's first prompt.
   */
  readonly handle?: RunHandle;
  /** The prompt the first turn was started with, shown above it; absent for a resume. */
  readonly prompt?: string;
  readonly identity: string;
  /** What the view talks to, shown above the conversation. */
  readonly card?: StartupCard;
  /** Starts a new conversation: the first when no handle is given, and after `/clear`. */
  readonly startSession: (prompt: string, options: FollowUpOptions) => Promise<RunHandle>;
  /** The command that resumes a suspended run, shown in the view. */
  readonly resumeHint?: (runId: string) => string;
  /** `/model NAME` can switch the model. */
  readonly modelSwitch?: boolean;
  readonly verbose: boolean;
  /** Tool output starts unfolded. */
  readonly toolOutput: boolean;
  /** `harness.no_bell`: no bell when a question waits. */
  readonly noBell: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Draw in colour where the terminal takes it; false for `--no-color` (the state word still says everything). */
  readonly color?: boolean;
  readonly stdout: NodeJS.WriteStream;
  readonly stdin: NodeJS.ReadStream;
  /** Standard error, held while the view runs; absent to leave it alone (tests). */
  readonly stderr?: StderrBuffer;
  /** Installs an interrupt handler (SIGTERM; Ctrl-C arrives as a key) and returns its removal. */
  readonly onInterrupt?: (handler: () => void) => () => void;
}

/** What the view ended with, and whether a turn was still running when the person left. */
export interface FullScreenResult extends ViewResult {
  readonly abandoned: boolean;
}

/** Runs the view until the person leaves; the terminal is restored before this resolves or throws. */
export async function runFullScreen(options: FullScreenOptions): Promise<FullScreenResult> {
  const stderr = options.stderr;
  const screen = new Screen({ stdout: options.stdout, stdin: options.stdin }, stderr);
  const pane = new PaneReporter(detectMultiplexer(options.env), options.identity, (bytes) => options.stdout.write(bytes));
  // answers are set out as markdown where colour is on; --no-color shows them as written
  const markdown = options.color === false ? undefined : (await import('../render/markdown.js')).renderMarkdown;
  const controller = new ViewController({
    identity: options.identity,
    startSession: options.startSession,
    bell: () => {
      if (!options.noBell) options.stdout.write('\u0007');
    },
    // OSC 52: the terminal puts the text on the system clipboard
    copy: (text) => options.stdout.write(`\u001b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\u0007`),
    pane,
    verbose: options.verbose,
    unfolded: options.toolOutput,
    ...(options.card === undefined ? {} : { card: options.card }),
    ...(options.resumeHint === undefined ? {} : { resumeHint: options.resumeHint }),
    ...(options.modelSwitch === undefined ? {} : { modelSwitch: options.modelSwitch }),
    ...(markdown === undefined ? {} : { markdown }),
  });
  const { render } = await loadInk();
  let removeInterrupt: (() => void) | undefined;
  try {
    screen.enter();
    screen.onRestore(applyTerminalColours(options.stdout, options.env, options.color !== false));
    const ink = render(createElement(FullScreen, { controller }), {
      stdout: options.stdout,
      stdin: options.stdin,
      stderr: process.stderr,
      exitOnCtrlC: false,
      patchConsole: false,
    });
    screen.onRestore(() => {
      ink.unmount();
      ink.cleanup();
    });
    removeInterrupt = options.onInterrupt?.(() => controller.interrupt());
    if (options.handle === undefined) controller.awaitPrompt();
    else controller.attach(options.handle, options.prompt);
    // a view that fails to draw ends the wait too, rather than leaving the run behind a dead screen
    const failed = ink.waitUntilExit().then(
      () => Promise.reject(new Error('the full-screen view stopped before the run was left')),
      (err: unknown) => Promise.reject(err instanceof Error ? err : new Error(String(err))),
    );
    let result: ViewResult;
    try {
      result = await Promise.race([controller.left, failed]);
    } catch (err) {
      controller.cancelTurn();
      throw err;
    }
    pane.report('idle');
    await pane.settled();
    return { ...result, abandoned: controller.turnActive };
  } finally {
    removeInterrupt?.();
    screen.restore();
  }
}
