/**
 * The conversation a browser shows: one run handle at a time, its events kept in order so every tab
 * (and a reloaded page) renders the same stream from the start. The first open tab controls it;
 * any other tab watches read-only. When the controlling tab goes away, every question it left open
 * is answered "no": a closed page never approves anything.
 */
import type { AgentEvent } from '../agent/events.js';
import { answerOf, messageOf } from '../agent/outcome.js';
import type { RunOutcome } from '../agent/outcome.js';
import { startRun } from '../host/index.js';
import type { HostTelemetry, QuestionAnswer, RunHandle, Runtime } from '../host/index.js';
import { loadRun } from '../runstate/index.js';
import { transcriptEvents } from '../cli/commands/session.js';
import { revealInvisible } from '../util/shell-quote.js';

/** What the page receives: the run's own events (a crash without its stack) and the conversation's. */
export type WebEvent =
  | Exclude<AgentEvent, { type: 'crash' }>
  | { readonly type: 'crash'; readonly message: string }
  | { readonly type: 'prompt'; readonly text: string }
  | { readonly type: 'run'; readonly runId: string | undefined; readonly resumed: boolean }
  | { readonly type: 'answered'; readonly id: string }
  | { readonly type: 'outcome'; readonly status: RunOutcome['status']; readonly answer: string; readonly message: string; readonly runId: string | undefined }
  | { readonly type: 'reopened'; readonly runId: string; readonly status: string; readonly resumable: boolean }
  | { readonly type: 'error'; readonly message: string };

/** Sent to one tab only. */
export type TabEvent = { readonly type: 'control'; readonly tab: string; readonly control: boolean; readonly busy: boolean; readonly agent: string } | { readonly type: 'reset' };

/** A refusal the server answers with its status code and message. */
export class RequestRefused extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

interface Tab {
  readonly send: (event: WebEvent | TabEvent) => void;
}

export interface ConversationOptions {
  readonly runtime: Runtime;
  readonly workDir: string;
  readonly telemetry?: HostTelemetry;
}

export class Conversation {
  readonly #opts: ConversationOptions;
  readonly #tabs = new Map<string, Tab>();
  #controller: string | undefined;
  #log: (WebEvent | TabEvent)[] = [];
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

  /** Adds a tab: it is told whether it controls, then receives everything so far, then what follows. */
  attach(tab: string, send: Tab['send']): void {
    this.#tabs.set(tab, { send });
    this.#controller ??= tab;
    send(this.#controlEvent(tab));
    for (const e of this.#log) send(e);
  }

  /** Removes a tab; a controlling tab's open questions are declined and control passes on. */
  detach(tab: string): void {
    this.#tabs.delete(tab);
    if (this.#controller !== tab) return;
    for (const id of [...this.#open]) this.#answer(id, null);
    this.#controller = this.#tabs.keys().next().value;
    this.#announce();
  }

  get busy(): boolean {
    return this.#busy;
  }

  #controlEvent(tab: string): TabEvent {
    return { type: 'control', tab, control: this.#controller === tab, busy: this.#busy, agent: this.#opts.runtime.config.identity };
  }

  #announce(): void {
    for (const [id, t] of this.#tabs) t.send(this.#controlEvent(id));
  }

  #emit(event: WebEvent | TabEvent): void {
    if (event.type === 'question' && event.id !== undefined) this.#open.add(event.id);
    if (event.type === 'reset') this.#log = [];
    else this.#log.push(event);
    for (const t of this.#tabs.values()) t.send(event);
  }

  #mustControl(tab: string): void {
    if (!this.#tabs.has(tab)) throw new RequestRefused(409, 'this page is not connected; reload it');
    if (this.#controller !== tab) throw new RequestRefused(409, 'read-only: another tab controls this agent; use that tab or close it');
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
      this.#emit({ type: 'prompt', text });
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
    if (this.#resumable !== runId) throw new RequestRefused(409, `run ${JSON.stringify(runId)} is not the reopened suspended run; reopen it first`);
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
    return { prompter: 'handle', stream: true, workDir: this.#opts.workDir, ...(this.#opts.telemetry === undefined ? {} : { telemetry: this.#opts.telemetry }) };
  }

  #follow(handle: RunHandle, resumed: boolean): void {
    this.#handle = handle;
    this.#lastStatus = undefined;
    this.#emit({ type: 'run', runId: handle.runId, resumed });
    handle.subscribe({
      emit: (event) => {
        // the stack is for the operator's terminal, never for a page
        if (event.type === 'crash') this.#emit({ type: 'crash', message: event.message });
        // an approval shows the command with invisible characters spelled out, as the terminal does:
        // a character that vanished on the page would still reach the command
        else if (event.type === 'question' && event.kind === 'approval') this.#emit({ ...event, text: revealInvisible(event.text) });
        else this.#emit(event);
        // with no page open nobody can answer: that is a no, never a wait for someone to come back
        if (event.type === 'question' && event.id !== undefined && this.#controller === undefined) this.#answer(event.id, null);
      },
    });
    void handle.outcome.then((outcome) => {
      this.#lastStatus = outcome.status;
      this.#open.clear();
      this.#emit({ type: 'outcome', status: outcome.status, answer: outcome.status === 'completed' ? answerOf(outcome) : '', message: messageOf(outcome), runId: handle.runId });
      this.#busy = false;
      this.#announce();
    });
  }

  #answer(id: string, value: QuestionAnswer): boolean {
    if (!this.#open.delete(id)) return false;
    this.#handle?.answer(id, value);
    this.#emit({ type: 'answered', id });
    return true;
  }

  /** Answers a question the run asked. */
  answer(tab: string, id: string, value: QuestionAnswer): void {
    this.#mustControl(tab);
    if (!this.#answer(id, value)) throw new RequestRefused(404, `no question ${JSON.stringify(id)} is waiting; it may have been answered already`);
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
    for (const e of transcriptEvents(run)) this.#emit(e.role === 'user' && e.event.type === 'text' ? { type: 'prompt', text: e.event.text } : e.event);
    const resumable = run.status !== 'completed';
    this.#resumable = resumable ? run.runId : undefined;
    this.#continuable = resumable ? undefined : run.runId;
    this.#emit({ type: 'reopened', runId: run.runId, status: run.status, resumable });
  }

  async #release(): Promise<void> {
    const h = this.#handle;
    this.#handle = undefined;
    this.#lastStatus = undefined;
    await h?.close();
  }

  /** Ends the run in progress and releases the handle. */
  async close(): Promise<void> {
    this.#handle?.cancel();
    await this.#release();
  }
}
