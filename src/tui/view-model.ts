/** The full-screen view's contracts: the keys it reads, what it needs around it, and what it draws and leaves. */
import type { RunOutcome } from '../agent/outcome.js';
import type { FollowUpOptions, RunHandle } from '../host/index.js';
import type { StartupCard } from './card.js';
import type { PaneReporter } from './multiplex.js';
import type { BarState } from './status-bar.js';
import type { Row } from './transcript.js';

/** The keys the controller reads, as Ink reports them. */
export interface KeyPress {
  readonly upArrow?: boolean;
  readonly downArrow?: boolean;
  readonly pageUp?: boolean;
  readonly pageDown?: boolean;
  readonly home?: boolean;
  readonly end?: boolean;
  readonly return?: boolean;
  readonly escape?: boolean;
  readonly ctrl?: boolean;
  readonly backspace?: boolean;
  readonly delete?: boolean;
  readonly tab?: boolean;
}

/** What the controller needs from the process around it. */
export interface ViewDeps {
  readonly identity: string;
  /** Starts a new conversation (the first, or after `/clear`) with its first prompt, on `/model`'s model when one was chosen. */
  readonly startSession: (prompt: string, options: FollowUpOptions) => Promise<RunHandle>;
  /** Rings the terminal bell (a question is waiting). */
  readonly bell: () => void;
  /** Puts text on the clipboard. */
  readonly copy: (text: string) => void;
  readonly pane?: PaneReporter;
  readonly verbose: boolean;
  /** Tool output starts unfolded (`--tool-output`). */
  readonly unfolded: boolean;
  /** What the view talks to, shown above the conversation; absent for none. */
  readonly card?: StartupCard;
  /** The command that resumes a suspended run, naming the configuration and state directory given. */
  readonly resumeHint?: (runId: string) => string;
  /** Whether `/model NAME` can switch the model (a local agent); a remote agent keeps its own. */
  readonly modelSwitch?: boolean;
  /** Sets out the model's finished text as markdown for a width; absent to show it as written. */
  readonly markdown?: (text: string, width: number) => string;
  /** The clock the thinking time is read from; `Date.now` by default. */
  readonly now?: () => number;
  /** Repeats `tick` until the returned stop is called (the spinner); an unref'd interval by default. */
  readonly every?: (ms: number, tick: () => void) => () => void;
}

/** One question on screen: its choices (No first) or a text field. */
export interface Modal {
  readonly title: string;
  readonly body: readonly string[];
  readonly choices: readonly string[];
  readonly selected: number;
  /** For a question that takes text: what has been typed. */
  readonly text?: string;
}

/** Everything one screen draws. */
export interface Frame {
  readonly rows: readonly (Row & { readonly current: boolean })[];
  readonly state: BarState;
  readonly bar: string;
  readonly barRight: string;
  readonly bottom: string;
  readonly modal: Modal | undefined;
}

/** What the view leaves behind, reprinted on the normal screen. */
export interface ViewResult {
  /** The last turn's outcome; undefined when no turn ran. */
  readonly outcome: RunOutcome | undefined;
  /** Every turn's outcome that ended while the view was up, oldest first (follow-ups and new conversations included). */
  readonly outcomes: readonly RunOutcome[];
  readonly handle: RunHandle | undefined;
  readonly warnings: readonly string[];
  /** Journaled conversations `/clear` walked away from, by run id. */
  readonly leftBehind: readonly string[];
  /** Every handle the view ended with (one per conversation), for the caller to close. */
  readonly handles: readonly RunHandle[];
}
