/**
 * What the full-screen view does, apart from drawing it: the conversation's turns on run handles,
 * the transcript and its viewport, the status bar, one question at a time, search, folding,
 * copying, and the keys. The Ink view renders {@link ViewController.frame} and forwards keys here,
 * so every behaviour can be driven and checked without a terminal.
 */
import type { AgentEvent, QuestionEvent } from '../agent/events.js';
import { answerOf, messageOf } from '../agent/outcome.js';
import type { RunOutcome } from '../agent/outcome.js';
import { oneLine } from '../agent/sanitize.js';
import { walkReplay } from '../agent/replay.js';
import { twoStageInterrupt } from '../host/interrupt.js';
import type { QuestionAnswer, RunHandle } from '../host/index.js';
import type { RemoteRunHandle } from '../serve/index.js';
import { capLine } from '../render/cap.js';
import { cardLines } from './card.js';
import { barText, nextBarState, TokenTally } from './status-bar.js';
import type { BarEvent, BarState } from './status-bar.js';
import { Transcript } from './transcript.js';
import type { Row } from './transcript.js';
import { counted } from '../util/count.js';
import { helpLines, InputHistory, parseChatInput, unknownCommandLine } from './chat-input.js';
import { choicesFor, questionTitle, reasonedDecline } from './questions.js';
import { Thinking } from './thinking.js';
import type { Frame, KeyPress, Modal, ViewDeps, ViewResult } from './view-model.js';
import { Viewport } from './viewport.js';

export type { Frame, KeyPress, Modal, ViewDeps, ViewResult } from './view-model.js';

export class ViewController {
  #transcript: Transcript;
  #state: BarState = 'running';
  readonly #tally = new TokenTally();
  #handle: RunHandle | undefined;
  /** The handle a follow-up continues; undefined after `/clear`. */
  #conversation: RunHandle | undefined;
  readonly #handles: RunHandle[] = [];
  #turnActive = false;
  #outcome: RunOutcome | undefined;
  readonly #outcomes: RunOutcome[] = [];
  readonly #questions: QuestionEvent[] = [];
  #choice = 0;
  #answerText = '';
  /** The approval's decline-with-a-reason was chosen: the box takes the reason as text. */
  #typingReason = false;
  readonly #history = new InputHistory();
  /** The model `/model` chose, for the turns after it. */
  #model: string | undefined;
  readonly #thinking: Thinking;
  readonly #view: Viewport;
  #input = '';
  #folding: boolean;
  #width = 80;
  #height = 24;
  #notice = '';
  readonly #held: string[] = [];
  readonly #warnings: string[] = [];
  readonly #leftBehind: string[] = [];
  #interrupt: () => ReturnType<ReturnType<typeof twoStageInterrupt>>;
  #version = 0;
  readonly #listeners = new Set<() => void>();
  #leave: ((result: ViewResult) => void) | undefined;
  readonly #left: Promise<ViewResult>;

  constructor(private readonly deps: ViewDeps) {
    this.#transcript = this.#newTranscript();
    this.#thinking = new Thinking(deps, () => this.#changed());
    this.#view = new Viewport({
      rows: () => this.#rows(),
      height: () => this.#viewHeight(this.#modal()),
      search: (q) => this.#transcript.search(q),
    });
    if (deps.card !== undefined) for (const line of cardLines(deps.card)) this.#transcript.add('card', line);
    this.#folding = !deps.unfolded;
    this.#interrupt = this.#newInterrupt();
    this.#left = new Promise((resolve) => (this.#leave = resolve));
  }

  /** Resolves when the person leaves the view. */
  get left(): Promise<ViewResult> {
    return this.#left;
  }

  get version(): number {
    return this.#version;
  }

  get state(): BarState {
    return this.#state;
  }

  get transcript(): Transcript {
    return this.#transcript;
  }

  /** Registers a redraw; returns the removal. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  readonly getVersion = (): number => this.#version;

  resize(columns: number, rows: number): void {
    if (columns === this.#width && rows === this.#height) return;
    this.#width = Math.max(10, columns);
    this.#height = Math.max(4, rows);
    this.#changed();
  }

  /** Shows a turn: its events as they come, its questions one at a time, and its end. */
  attach(handle: RunHandle, prompt?: string): void {
    if (prompt !== undefined) this.#transcript.add('prompt', `> ${prompt}`);
    const start = handle.start;
    if (start.kind === 'resumed') {
      // the bar counts on from what the journaled turns used
      if (start.usage !== undefined) this.#tally.seed(start.usage);
      for (const change of start.changes) {
        const warning = `resuming under a changed configuration (--force): ${change.line}`;
        this.#transcript.add('warning', `warning: ${warning}`, 'yellow');
        // reprinted on the normal screen with the other warnings
        this.#warnings.push(oneLine(warning));
      }
      walkReplay(start.replay, start.prompts ?? [], {
        prompt: (text) =>
          this.#transcript.add(
            'prompt',
            text
              .split('\n')
              .map((l) => `> ${l}`)
              .join('\n'),
          ),
        event: (e) => this.#transcript.addEvent(e),
      });
      this.#transcript.add('note', `resuming run ${start.runId} at iteration ${start.nextIteration + 1}`, 'dim');
    }
    this.#handle = handle;
    this.#conversation = handle;
    this.#turnActive = true;
    this.#interrupt = this.#newInterrupt();
    this.#bar({ type: 'prompt_sent' });
    this.deps.pane?.report('working');
    handle.subscribe({ emit: (e) => this.#event(e) });
    void handle.outcome.then((o) => this.#ended(handle, o));
    this.#changed();
  }

  /** Opens on the input row with no turn running: the person types the first prompt. */
  awaitPrompt(): void {
    this.#turnActive = false;
    this.#state = 'awaiting input';
    this.deps.pane?.report('idle');
    this.#changed();
  }

  /** One key press (or a paste, or mouse reports) as Ink reports it. */
  key(input: string, key: KeyPress): void {
    this.#notice = '';
    if (key.ctrl === true && input === 'c') return this.#onInterrupt();
    if (input.includes('[<') && this.#view.mouse(input)) return this.#changed();
    if (this.#questions.length > 0) return this.#modalKey(input, key);
    if (this.#view.searching) {
      this.#view.searchKey(input, key);
      return this.#changed();
    }
    if (this.#view.scrollKey(input, key, !this.#turnActive)) return this.#changed();
    if (key.ctrl === true) return this.#ctrlKey(input);
    if (!this.#turnActive) return this.#inputKey(input, key);
    this.#commandKey(input, key);
  }

  /** What to draw now. */
  frame(): Frame {
    const modal = this.#modal();
    const height = this.#viewHeight(modal);
    const visible = this.#view.window(this.#rows(), height);
    const right = [...this.#view.labels(), this.#folding ? 'folding on' : 'folding off'].join(' · ');
    const bar = `${barText(this.#state, this.deps.identity, this.#tally.total)}${this.#thinking.text()}`;
    return { rows: visible, state: this.#state, bar, barRight: ` ${right} `, bottom: this.#bottom(), modal };
  }

  /** The tokens apart, for tests and the exit summary. */
  get tokens(): TokenTally {
    return this.#tally;
  }

  get following(): boolean {
    return this.#view.following;
  }

  /** Whether a turn is running (the person can only leave it through the interrupt). */
  get turnActive(): boolean {
    return this.#turnActive;
  }

  /** Cancels the running turn, if any (the view is going away without the person leaving it). */
  cancelTurn(): void {
    if (this.#turnActive) this.#handle?.cancel();
  }

  /** An interrupt from outside the keys (SIGTERM): the same steps as Ctrl-C. */
  interrupt(): void {
    this.#onInterrupt();
  }

  /** Leaves the view (the last interrupt, or Ctrl-D at an empty input row). */
  leave(): void {
    if (this.#state === 'complete' || this.#state === 'awaiting input') this.#state = 'complete';
    const handles = [...this.#handles];
    if (this.#conversation !== undefined && !handles.includes(this.#conversation)) handles.push(this.#conversation);
    this.#leave?.({
      outcome: this.#outcome,
      outcomes: [...this.#outcomes],
      handle: this.#handle,
      warnings: [...this.#warnings],
      leftBehind: [...this.#leftBehind],
      handles,
    });
    this.#changed();
  }

  #newTranscript(): Transcript {
    return new Transcript({
      verbose: this.deps.verbose,
      width: () => this.#width,
      ...(this.deps.markdown === undefined ? {} : { markdown: this.deps.markdown }),
    });
  }

  #newInterrupt(): () => ReturnType<ReturnType<typeof twoStageInterrupt>> {
    // the stop requests leave the draw loop at once: a cancel that waited would swallow the next press
    return twoStageInterrupt(() => {
      const handle = this.#turnActive ? this.#handle : undefined;
      if (handle === undefined) return undefined;
      return {
        ...handle,
        runId: resumeKey(handle),
        suspend: () => setImmediate(() => handle.suspend()),
        cancel: () => setImmediate(() => handle.cancel()),
      };
    });
  }

  #event(event: AgentEvent): void {
    if (event.type === 'status') this.#tally.live(event.usage.input_tokens, event.usage.output_tokens);
    // the spinner runs from the moment a model call starts until anything else happens
    this.#thinking.set(event.type === 'status' && event.phase === 'model_call');
    if (event.type === 'warning') this.#warnings.push(oneLine(event.text));
    if (event.type === 'question' && event.id !== undefined) {
      this.#questions.push(event);
      if (this.#questions.length === 1) this.#asking();
    }
    this.#transcript.addEvent(event);
    this.#changed();
  }

  #asking(): void {
    this.#choice = 0;
    this.#answerText = '';
    this.#typingReason = false;
    this.#bar({ type: 'question' });
    this.deps.pane?.report('blocked');
    this.deps.bell();
  }

  #ended(handle: RunHandle, outcome: RunOutcome): void {
    if (handle !== this.#handle) return;
    this.#tally.settle(outcome.counters.usage);
    this.#outcome = outcome;
    this.#outcomes.push(outcome);
    this.#turnActive = false;
    this.#thinking.set(false);
    this.#questions.splice(0);
    const tail = messageOf(outcome);
    const command = handle.runId === undefined ? undefined : (this.deps.resumeHint?.(handle.runId) ?? `fisk run --resume ${handle.runId}`);
    const resume = command === undefined ? '' : `; resume with ${command}`;
    // a journaled turn stopped by a failure or a limit is resumable too, once its cause is fixed
    const mended = command === undefined ? '' : `; once the cause is fixed, resume it with ${command}`;
    if (outcome.status === 'suspended') this.#transcript.add('note', `suspended${tail === '' ? '' : `: ${oneLine(tail)}`}${resume}`, 'dim');
    else if (outcome.status !== 'completed' && tail !== '')
      this.#transcript.add(
        'warning',
        `${outcome.status === 'crashed' ? '' : 'stopped: '}${oneLine(tail)}${outcome.status === 'aborted' ? resume : mended}`,
        'red',
      );
    // answers the run outlived are said here, between the turn and the input row
    for (const held of this.#held.splice(0)) this.#transcript.add('note', held, 'dim');
    this.#bar({ type: 'turn_ended', status: outcome.status });
    this.#bar({ type: 'input_ready' });
    this.deps.pane?.report('idle');
    if (outcome.status === 'completed' && answerOf(outcome) === '') this.#transcript.add('note', '(the model gave an empty answer)', 'dim');
    this.#changed();
  }

  #onInterrupt(): void {
    if (!this.#turnActive) {
      if (this.#input !== '') {
        this.#input = '';
        return this.#changed();
      }
      return this.leave();
    }
    // the modal owns its keys, but not this one. The open question is left unanswered rather than
    // declined on the person's behalf, and the run is cancelled: a suspend would wait for a
    // boundary the unanswered question never reaches
    const open = this.#questions.length > 0;
    if (open) {
      this.#questions.splice(0);
      this.#typingReason = false;
      this.#transcript.add('note', 'the question was left unanswered', 'dim');
    }
    let step = this.#interrupt();
    if (open && step === 'suspending') step = this.#interrupt();
    switch (step) {
      case 'suspending':
        this.#bar({ type: 'suspend_requested' });
        this.#transcript.add('note', 'suspend requested; finishing the current step, press Ctrl-C again to abort', 'dim');
        break;
      case 'cancelling':
        this.#transcript.add('note', 'cancelling the run; press Ctrl-C again to quit now', 'dim');
        break;
      case 'exit':
        this.leave();
        return;
    }
    this.#changed();
  }

  #answer(value: QuestionAnswer): void {
    this.#typingReason = false;
    const question = this.#questions.shift();
    if (question === undefined || question.id === undefined) return;
    const delivered = this.#handle?.answer(question.id, value) ?? false;
    if (!delivered)
      this.#held.push(
        `an answer (${describe(value)}) came after the run stopped waiting for "${capLine(oneLine(question.text), 60)}"; it was not used`,
      );
    if (this.#questions.length > 0) this.#asking();
    else {
      this.#bar({ type: 'answered' });
      if (this.#turnActive) this.deps.pane?.report('working');
    }
    this.#changed();
  }

  #modalKey(input: string, key: KeyPress): void {
    const question = this.#questions[0] as QuestionEvent;
    const set = choicesFor(question);
    if (key.escape === true) return this.#answer(set.declined);
    if (question.kind === 'input' || this.#typingReason) {
      const send = (): void => this.#answer(this.#typingReason ? reasonedDecline(this.#answerText) : this.#answerText);
      if (key.return === true) return send();
      if (key.backspace === true || key.delete === true) this.#answerText = Array.from(this.#answerText).slice(0, -1).join('');
      else if (key.ctrl !== true && input !== '') {
        this.#answerText += input.replace(/[\r\n]+/g, ' ').trimEnd();
        if (/[\r\n]$/.test(input)) return send();
      }
      return this.#changed();
    }
    const count = set.labels.length;
    const pick = (index: number): void => {
      if (index === set.withReason) {
        // the decline waits for the words that go with it
        this.#typingReason = true;
        this.#answerText = '';
        return this.#changed();
      }
      this.#answer(set.values[index] ?? set.declined);
    };
    if (key.return === true) return pick(this.#choice);
    if (key.upArrow === true || input === 'k') this.#choice = (this.#choice + count - 1) % Math.max(1, count);
    else if (key.downArrow === true || input === 'j' || key.tab === true) this.#choice = (this.#choice + 1) % Math.max(1, count);
    else if (/^[1-9]$/.test(input) && Number(input) <= count) return pick(Number(input) - 1);
    this.#changed();
  }

  #ctrlKey(input: string): void {
    switch (input) {
      case 'f':
        this.#view.startSearch();
        break;
      case 'n':
        this.#view.jump(1);
        break;
      case 'p':
        this.#view.jump(-1);
        break;
      case 'o':
        this.#folding = !this.#folding;
        break;
      case 'y':
        this.#copy();
        break;
      case 'l':
        // drops the scrollback, keeps the conversation
        this.#transcript = this.#newTranscript();
        this.#view.restart();
        break;
      case 'd':
        if (!this.#turnActive && this.#input === '') return this.leave();
        break;
      default:
        break;
    }
    this.#changed();
  }

  #commandKey(input: string, key: KeyPress): void {
    if (key.escape === true) this.#view.setQuery('');
    else if (input === '/') this.#view.startSearch();
    else if (input === 'n') this.#view.jump(1);
    else if (input === 'N') this.#view.jump(-1);
    else if (input === 'f') this.#folding = !this.#folding;
    else if (input === 'y') this.#copy();
    this.#changed();
  }

  #inputKey(input: string, key: KeyPress): void {
    if (key.return === true) return this.#submit();
    if (key.escape === true) {
      // Esc clears what is typed, and the search with it
      this.#input = '';
      this.#view.setQuery('');
    } else if (key.upArrow === true) this.#input = this.#history.previous(this.#input);
    else if (key.downArrow === true) this.#input = this.#history.next(this.#input);
    else if (key.backspace === true || key.delete === true) this.#input = Array.from(this.#input).slice(0, -1).join('');
    else if (/[\r\n]$/.test(input)) {
      // a line typed faster than the keys are read arrives whole, its Enter included
      this.#input += input.replace(/[\r\n]+/g, ' ').trimEnd();
      return this.#submit();
    } else if (input !== '') this.#input += input.replace(/[\r\n]+/g, ' ');
    this.#changed();
  }

  #submit(): void {
    const text = this.#input.trim();
    this.#input = '';
    if (text === '') return this.#changed();
    this.#history.add(text);
    const typed = parseChatInput(text);
    switch (typed.kind) {
      case 'prompt':
        return this.#send(typed.text);
      case 'help':
        this.#transcript.add('note', helpLines().join('\n'), 'dim');
        break;
      case 'clear':
        this.#clearConversation();
        break;
      case 'exit':
        return this.leave();
      case 'model':
        if (this.deps.modelSwitch !== true)
          this.#transcript.add('warning', 'warning: /model works for an agent run here; a remote agent uses its own model', 'yellow');
        else {
          this.#model = typed.name;
          this.#transcript.add('note', `the next prompts use the model ${oneLine(typed.name)}`, 'dim');
        }
        break;
      case 'model_usage':
        this.#transcript.add('warning', 'warning: /model takes one model name, such as /model claude-sonnet-4-6', 'yellow');
        break;
      case 'unknown':
        this.#transcript.add('warning', `warning: ${unknownCommandLine(oneLine(typed.command))}`, 'yellow');
        break;
      default: {
        const never: never = typed;
        return never;
      }
    }
    this.#changed();
  }

  #clearConversation(): void {
    // drops the conversation, keeps the scrollback
    const previous = this.#conversation;
    if (previous !== undefined) {
      this.#handles.push(previous);
      if (previous.runId !== undefined) this.#leftBehind.push(previous.runId);
    }
    this.#conversation = undefined;
    this.#transcript.add('note', '── a new conversation starts with the next prompt ──', 'dim');
  }

  #send(text: string): void {
    const before = this.#state;
    this.#bar({ type: 'prompt_sent' });
    // working is reported on submission, before the turn is accepted
    this.deps.pane?.report('working');
    this.#turnActive = true;
    this.#changed();
    const conversation = this.#conversation;
    const model = this.#model === undefined ? {} : { model: this.#model };
    const next = conversation === undefined ? this.deps.startSession(text, model) : conversation.followUp(text, model);
    next.then(
      (handle) => this.attach(handle, text),
      (err: unknown) => {
        this.#transcript.add('prompt', `> ${text}`);
        this.#transcript.add('warning', `warning: ${oneLine(err instanceof Error ? err.message : String(err))}`, 'yellow');
        this.#turnActive = false;
        // nothing started: the bar goes back to what it said before the prompt
        this.#state = before;
        this.deps.pane?.report('idle');
        this.#changed();
      },
    );
  }

  #copy(): void {
    const text = this.#transcript.copyText(this.#folding);
    this.deps.copy(text);
    const lineCount = text === '' ? 0 : text.split('\n').length;
    this.#notice = `copied ${counted(lineCount, 'line')}${this.#folding ? ' (folded blocks left out)' : ''}`;
  }

  #bar(event: BarEvent): void {
    this.#state = nextBarState(this.#state, event);
  }

  #rows(): Row[] {
    const revealed = this.#view.revealed();
    return this.#transcript.rows({ width: this.#width, folding: this.#folding, ...(revealed === undefined ? {} : { revealed }) });
  }

  #modal(): Modal | undefined {
    const question = this.#questions[0];
    if (question === undefined) return undefined;
    const set = choicesFor(question);
    const width = Math.max(10, this.#width - 6);
    const text = capLine(oneLine(question.text), width * 3);
    const body: string[] = [];
    for (let i = 0; i < text.length; i += width) body.push(text.slice(i, i + width));
    const title = questionTitle(question, this.#typingReason);
    if (this.#typingReason) return { title, body, choices: [], selected: -1, text: this.#answerText };
    return { title, body, choices: set.labels, selected: this.#choice, ...(question.kind === 'input' ? { text: this.#answerText } : {}) };
  }

  #viewHeight(modal: Modal | undefined): number {
    // the status bar and the bottom row, plus the modal's frame when a question is up
    const modalRows = modal === undefined ? 0 : 4 + modal.body.length + Math.max(1, modal.choices.length);
    return Math.max(1, this.#height - 2 - modalRows);
  }

  #bottom(): string {
    if (this.#view.searching) return `/${this.#view.query}`;
    if (this.#notice !== '') return this.#notice;
    if (this.#questions.length > 0) return 'Enter answers · Esc declines · Ctrl-C stops the run';
    if (!this.#turnActive) return `> ${this.#input}█`;
    return 'Ctrl-C stop · / search · n next · f fold · y copy · G follow';
  }

  #changed(): void {
    this.#version++;
    for (const listener of this.#listeners) listener();
  }
}

function describe(value: QuestionAnswer): string {
  if (value === null) return 'declined';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'object') return `declined: ${oneLine(value.reason)}`;
  return oneLine(value);
}

/**
 * What carries on the run a stop leaves behind, which decides whether the first Ctrl-C parks it:
 * a journaled run's id, or the conversation a delegated run's follow-up continues.
 */
function resumeKey(h: RunHandle): string | undefined {
  if (h.runId !== undefined) return h.runId;
  const remote = 'remote' in h ? (h as RemoteRunHandle) : undefined;
  return remote === undefined || remote.conversation === '' ? undefined : remote.conversation;
}
