/**
 * The conversation a browser shows: one run handle at a time, its events kept in order so every tab
 * (and a reloaded page) renders the same stream from the start. One open tab controls it (see
 * `TabControl`); any other tab watches read-only. When the controlling tab goes away, every question
 * it left open is answered "no": a closed page never approves anything.
 */
import { answerOf, messageOf } from '../agent/outcome.js';
import type { RunOutcome } from '../agent/outcome.js';
import { stripControl } from '../agent/sanitize.js';
import { startRun } from '../host/index.js';
import type { HostTelemetry, QuestionAnswer, RunHandle, RunRuntime } from '../host/index.js';
import { loadRun } from '../runstate/index.js';
import { TabControl } from './control.js';
import { pageEvent, replayedRun } from './page-events.js';
import type { AnsweredBy, StampedEvent, TabEvent, WebEvent } from './wire.js';

/** A refusal the server answers with its status code and message. */
export class RequestRefused extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** An answer as the page shows it, its words cleaned as the terminal cleans them. */
function shown(value: QuestionAnswer): QuestionAnswer {
  if (typeof value === 'string') return stripControl(value);
  if (value !== null && typeof value === 'object') return { decision: value.decision, reason: stripControl(value.reason) };
  return value;
}

interface Tab {
  readonly send: (event: StampedEvent | TabEvent) => void;
}

export interface ConversationOptions {
  readonly runtime: RunRuntime;
  readonly workDir: string;
  readonly telemetry?: HostTelemetry;
}

export class Conversation {
  readonly #opts: ConversationOptions;
  readonly #tabs = new Map<string, Tab>();
  readonly #control = new TabControl(() => this.#announce());
  #log: StampedEvent[] = [];
  #handle: RunHandle | undefined;
  #busy = false;
  #lastStatus: RunOutcome['status'] | undefined;
  /** A reopened suspended run that may be resumed. */
  #resumable: string | undefined;
  /** A reopened completed run: the next prompt continues it as a follow-up. */
  #continuable: string | undefined;
  readonly #open = new Set<string>();

  constructor(opts: ConversationOptions) {
    this.#opts = opts;
  }

  /**
   * Adds a tab: it is told whether it controls, then receives everything so far, then what follows.
   * `claim` is the key the tab kept from an earlier connection, if any.
   */
  attach(tab: string, send: Tab['send'], claim?: string): void {
    this.#tabs.set(tab, { send });
    this.#control.attach(tab, claim);
    send(this.#controlEvent(tab));
    for (const event of this.#log) send(event);
  }

  /** Removes a tab; a controlling tab's open questions are declined and control passes on. */
  detach(tab: string): void {
    this.#tabs.delete(tab);
    if (!this.#control.detach(tab)) return;
    for (const id of [...this.#open]) this.#answer(id, null, 'no_page');
    this.#announce();
  }

  get busy(): boolean {
    return this.#busy;
  }

  #controlEvent(tab: string): TabEvent {
    const key = this.#control.keyFor(tab);
    return {
      type: 'control',
      tab,
      control: this.#control.controller === tab,
      busy: this.#busy,
      agent: this.#opts.runtime.config.identity,
      now: Date.now(),
      ...(key === undefined ? {} : { key }),
    };
  }

  #announce(): void {
    for (const [id, tab] of this.#tabs) tab.send(this.#controlEvent(id));
  }

  #emit(event: WebEvent | { readonly type: 'reset' }): void {
    if (event.type === 'question' && event.id !== undefined) this.#open.add(event.id);
    if (event.type === 'reset') {
      this.#log = [];
      for (const tab of this.#tabs.values()) tab.send(event);
      return;
    }
    const stamped: StampedEvent = { ...event, at: Date.now() };
    this.#log.push(stamped);
    for (const tab of this.#tabs.values()) tab.send(stamped);
  }

  #mustControl(tab: string): void {
    if (!this.#tabs.has(tab)) throw new RequestRefused(409, 'this page is not connected; reload it');
    if (this.#control.controller !== tab)
      throw new RequestRefused(409, 'read-only: another tab controls this agent; use that tab or close it');
  }

  #mustBeIdle(): void {
    if (this.#busy) throw new RequestRefused(409, 'a run is in progress; wait for it to end or cancel it');
  }

  /** Starts a run with `prompt`, or continues the conversation when the last turn completed. */
  async prompt(tab: string, prompt: string): Promise<void> {
    this.#mustControl(tab);
    this.#mustBeIdle();
    const text = prompt.trim();
    if (text === '') throw new RequestRefused(400, 'the prompt is empty; type a question first');
    this.#busy = true;
    this.#announce();
    try {
      const previous = this.#handle;
      let handle: RunHandle;
      const continuable = this.#continuable;
      if (previous !== undefined && this.#lastStatus === 'completed') {
        handle = await previous.followUp(text);
      } else if (previous === undefined && continuable !== undefined) {
        // the conversation replayed on the page goes on: the prompt is journaled as its next turn
        handle = await startRun(this.#opts.runtime, { resume: continuable, followUp: text }, this.#startOptions());
        this.#continuable = undefined;
      } else {
        await this.#release();
        this.#emit({ type: 'reset' });
        handle = await startRun(this.#opts.runtime, { prompt: text, checkpoint: {} }, this.#startOptions());
      }
      this.#emit({ type: 'prompt', text: stripControl(text) });
      this.#follow(handle, false);
    } catch (err) {
      this.#busy = false;
      this.#announce();
      throw new RequestRefused(400, err instanceof Error ? err.message : String(err));
    }
  }

  /** Resumes the suspended run reopened last. */
  async resume(tab: string, runId: string): Promise<void> {
    this.#mustControl(tab);
    this.#mustBeIdle();
    if (this.#resumable !== runId)
      throw new RequestRefused(409, `run ${JSON.stringify(runId)} is not the reopened suspended run; reopen it first`);
    this.#busy = true;
    this.#announce();
    try {
      await this.#release();
      const handle = await startRun(this.#opts.runtime, { resume: runId }, this.#startOptions());
      this.#resumable = undefined;
      this.#follow(handle, true);
    } catch (err) {
      this.#busy = false;
      this.#announce();
      throw new RequestRefused(400, err instanceof Error ? err.message : String(err));
    }
  }

  #startOptions(): Parameters<typeof startRun>[2] {
    return {
      prompter: 'handle',
      stream: true,
      workDir: this.#opts.workDir,
      ...(this.#opts.telemetry === undefined ? {} : { telemetry: this.#opts.telemetry }),
    };
  }

  #follow(handle: RunHandle, resumed: boolean): void {
    this.#handle = handle;
    this.#lastStatus = undefined;
    this.#emit({ type: 'run', runId: handle.runId, resumed });
    handle.subscribe({
      emit: (event) => {
        this.#emit(pageEvent(event));
        // with no page open nobody can answer: that is a no, never a wait for someone to come back
        if (event.type === 'question' && event.id !== undefined && this.#control.controller === undefined)
          this.#answer(event.id, null, 'no_page');
      },
    });
    void handle.outcome.then((outcome) => {
      this.#lastStatus = outcome.status;
      this.#open.clear();
      this.#emit({
        type: 'outcome',
        status: outcome.status,
        answer: outcome.status === 'completed' ? answerOf(outcome) : '',
        message: messageOf(outcome),
        runId: handle.runId,
      });
      this.#busy = false;
      this.#announce();
    });
  }

  #answer(id: string, value: QuestionAnswer, by: AnsweredBy): boolean {
    if (!this.#open.delete(id)) return false;
    this.#handle?.answer(id, value);
    this.#emit({ type: 'answered', id, answer: shown(value), by });
    return true;
  }

  /** Answers a question the run asked. */
  answer(tab: string, id: string, value: QuestionAnswer): void {
    this.#mustControl(tab);
    if (!this.#answer(id, value, 'page'))
      throw new RequestRefused(404, `no question ${JSON.stringify(id)} is waiting; it may have been answered already`);
  }

  cancel(tab: string): void {
    this.#mustControl(tab);
    if (!this.#busy) throw new RequestRefused(409, 'no run is in progress');
    this.#handle?.cancel();
  }

  suspend(tab: string): void {
    this.#mustControl(tab);
    if (!this.#busy) throw new RequestRefused(409, 'no run is in progress');
    this.#handle?.suspend();
  }

  /** Starts afresh: the next prompt begins a new session. */
  async clear(tab: string): Promise<void> {
    this.#mustControl(tab);
    this.#mustBeIdle();
    await this.#release();
    this.#resumable = undefined;
    this.#continuable = undefined;
    this.#emit({ type: 'reset' });
  }

  /** Replays a journaled run through the page's renderer. */
  async reopen(tab: string, runId: string): Promise<void> {
    this.#mustControl(tab);
    this.#mustBeIdle();
    const store = this.#opts.runtime.sessions;
    if (store === undefined) throw new RequestRefused(404, 'no session store is open');
    let run;
    try {
      run = await loadRun(store, runId);
    } catch (err) {
      throw new RequestRefused(404, err instanceof Error ? err.message : String(err));
    }
    await this.#release();
    this.#emit({ type: 'reset' });
    replayedRun(run, {
      prompt: (text) => this.#emit({ type: 'prompt', text }),
      event: (e) => this.#emit(e),
      decision: (d) => this.#emit(d),
    });
    const resumable = run.status !== 'completed';
    this.#resumable = resumable ? run.runId : undefined;
    this.#continuable = resumable ? undefined : run.runId;
    this.#emit({ type: 'reopened', runId: run.runId, status: run.status, resumable });
  }

  async #release(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    this.#lastStatus = undefined;
    await handle?.close();
  }

  /** Ends the run in progress and releases the handle. */
  async close(): Promise<void> {
    this.#control.close();
    this.#handle?.cancel();
    await this.#release();
  }
}
