/**
 * The A2A tasks of the HTTP channel: each task is one journaled served run, taken by the server
 * like any other channel's work (slots, drain, budgets). This is the `AgentExecutor` the SDK's
 * request handler drives, and the `Channel` the server pulls from:
 *
 * - a new task's run starts under a session id derived from the task id, which is derived from
 *   the caller's message id, so a retried request finds its task and never starts a second run;
 * - a question the run puts to the caller moves the task to `input-required`; the caller's next
 *   message on the task answers it and the run carries on;
 * - the answer, and the knowledge passages it cites, come back as artifacts;
 * - a cancel stops the run where it is; a drain refuses new tasks, fails the ones not started
 *   and gives up open questions, while the runs in flight finish.
 */
import { createHash } from 'node:crypto';
import { AgentEvent, ResultManager } from '@a2a-js/sdk/server';
import type {
  AgentExecutionEvent,
  AgentExecutor,
  ExecutionEventBus,
  RequestContext,
  ServerCallContext,
  TaskStore,
} from '@a2a-js/sdk/server';
import type { Message, Task } from '@a2a-js/sdk';
import type { AgentEvent as RunEvent } from '../../agent/events.js';
import type { Channel, Work, WorkResult } from '../channel.js';
import { passagesOf, citedIn } from './citations.js';
import type { CitedPassage } from './citations.js';
import { WorkQueue } from '../work-queue.js';
import { taskEnding } from './ending.js';
import { questionParts, TaskPrompter } from './questions.js';
import type { Asker, Question } from './questions.js';
import { artifactUpdate, dataPart, messageText, statusUpdate, TaskState, textPart } from './wire.js';

export interface TaskChannelOptions {
  readonly identity: string;
  readonly workers: number;
  /** How long a question waits for the caller's answer. */
  readonly questionTimeoutMs: number;
  readonly store: TaskStore;
}

type Phase = 'new' | 'queued' | 'working' | 'input-required' | 'ended';

interface Entry {
  readonly id: string;
  readonly contextId: string;
  /** The journal: the task's own, or, continuing a conversation, the one its context's last task completed. */
  sessionId: string;
  /** The task continues its context's conversation: its run resumes that journal with a further prompt. */
  continues: boolean;
  completed: boolean;
  phase: Phase;
  bus: ExecutionEventBus | undefined;
  call: ServerCallContext | undefined;
  /** SDK consumers reading the bus now (a send, a cancel); with none, events are stored here. */
  attached: number;
  /** Store writes made here, in order. */
  writes: Promise<void>;
  readonly seen: Set<string>;
  readonly stop: AbortController;
  cancelled: boolean;
  answer: ((m: Message | undefined) => void) | undefined;
  waiters: (() => void)[];
  work: Work | undefined;
  readonly calls: Map<string, string>;
  readonly retrieved: Map<string, CitedPassage>;
  /** The agents the task came through before this one. */
  hops: readonly string[];
}

/** A task id derived from the agent and the caller's message id, in the UUID layout. */
export function taskIdFor(identity: string, messageId: string): string {
  const h = createHash('sha256').update(`fisk-ai a2a-http task\0${identity}\0${messageId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** The journal a task's run is kept in. */
export function sessionIdFor(taskId: string): string {
  return `a2a-http-${createHash('sha256').update(`fisk-ai a2a-http session\0${taskId}`).digest('hex').slice(0, 32)}`;
}

export class TaskChannel implements Channel, AgentExecutor {
  readonly name = 'a2a http';
  readonly workers: number;
  readonly #opts: TaskChannelOptions;
  readonly #entries = new Map<string, Entry>();
  /** By context id, the last task whose run completed: the conversation a further task continues. */
  readonly #lastCompleted = new Map<string, Entry>();
  readonly #queue = new WorkQueue();

  constructor(opts: TaskChannelOptions) {
    this.#opts = opts;
    this.workers = opts.workers;
  }

  get open(): boolean {
    return this.#queue.open;
  }

  /**
   * The task a message id names, and whether it is new; a new one is claimed at once. A new task in
   * a conversation whose last task completed continues its journal; one in a conversation with a
   * task still open is not claimed (`busy` names that task).
   */
  claim(
    messageId: string,
    contextId: string,
    hops: readonly string[] = [],
  ): { readonly id: string; readonly fresh: boolean; readonly busy?: string } {
    const id = taskIdFor(this.#opts.identity, messageId);
    if (this.#entries.has(id)) return { id, fresh: false };
    const busy = this.#activeIn(contextId);
    if (busy !== undefined) return { id, fresh: false, busy };
    const e = this.#entry(id, contextId, messageId);
    e.hops = hops;
    const last = this.#lastCompleted.get(contextId);
    if (last !== undefined) {
      e.sessionId = last.sessionId;
      e.continues = true;
    }
    this.#entries.set(id, e);
    return { id, fresh: true };
  }

  /** The task of a context that has not ended, if any: a conversation takes one task at a time. */
  #activeIn(contextId: string): string | undefined {
    for (const e of this.#entries.values()) if (e.contextId === contextId && e.phase !== 'ended') return e.id;
    return undefined;
  }

  /** Gives up a claim whose task never reached the store. */
  unclaim(id: string): void {
    if (this.#entries.get(id)?.phase === 'new') this.#entries.delete(id);
  }

  /** Whether a message on an existing task answers its open question, repeats one, or comes at the wrong time. */
  follows(taskId: string, messageId: string): 'answer' | 'repeat' | 'busy' | 'unknown' {
    const e = this.#entries.get(taskId);
    if (e === undefined) return 'unknown';
    if (e.seen.has(messageId)) return 'repeat';
    if (e.phase === 'input-required' && e.answer !== undefined) return 'answer';
    return e.phase === 'ended' ? 'unknown' : 'busy';
  }

  /** Resolves once the task is waiting for input or has ended. */
  paused(taskId: string): Promise<void> {
    const e = this.#entries.get(taskId);
    if (e === undefined || e.phase === 'input-required' || e.phase === 'ended') return Promise.resolve();
    return new Promise((r) => e.waiters.push(r));
  }

  #entry(id: string, contextId: string, messageId: string): Entry {
    return {
      id,
      contextId,
      sessionId: sessionIdFor(id),
      continues: false,
      completed: false,
      phase: 'new',
      bus: undefined,
      call: undefined,
      attached: 0,
      writes: Promise.resolve(),
      seen: new Set([messageId]),
      stop: new AbortController(),
      cancelled: false,
      answer: undefined,
      waiters: [],
      work: undefined,
      calls: new Map(),
      retrieved: new Map(),
      hops: [],
    };
  }

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const message = ctx.userMessage;
    let e = this.#entries.get(ctx.taskId);
    if (e === undefined) {
      e = this.#entry(ctx.taskId, ctx.contextId, message.messageId);
      this.#entries.set(e.id, e);
    }
    e.bus = bus;
    e.call = ctx.context;
    e.attached++;
    try {
      bus.publish(AgentEvent.task(ctx.task ?? this.#fresh(e, message)));
      if (e.phase === 'new') this.#start(e, message);
      else if (e.phase === 'input-required' && e.answer !== undefined) {
        e.seen.add(message.messageId);
        const answer = e.answer;
        e.answer = undefined;
        this.#phase(e, 'working');
        this.#publish(e, AgentEvent.statusUpdate(statusUpdate(e.id, e.contextId, TaskState.TASK_STATE_WORKING)));
        answer(message);
      }
      await this.paused(e.id);
    } finally {
      e.attached--;
    }
  }

  cancelTask(taskId: string): Promise<void> {
    const e = this.#entries.get(taskId);
    if (e === undefined || e.phase === 'ended') return Promise.resolve();
    e.cancelled = true;
    // the handler reads the bus until the task ends: its terminal status is stored by it
    e.attached++;
    e.stop.abort(new Error('cancelled by the caller'));
    e.answer?.(undefined);
    if (e.work !== undefined) this.#queue.withdraw(e.work);
    return Promise.resolve();
  }

  #fresh(e: Entry, message: Message): Task {
    return {
      id: e.id,
      contextId: e.contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [],
      history: [message],
      metadata: undefined,
    };
  }

  #phase(e: Entry, phase: Phase): void {
    e.phase = phase;
    if (phase === 'input-required' || phase === 'ended') for (const w of e.waiters.splice(0)) w();
  }

  /** Sends an event to whoever reads the bus; with no request reading it, stores it here. */
  #publish(e: Entry, event: AgentExecutionEvent): void {
    e.bus?.publish(event);
    const call = e.call;
    if (e.attached > 0 || call === undefined) return;
    const rm = new ResultManager(this.#opts.store, call);
    e.writes = e.writes.then(() => rm.processEvent(event)).catch(() => undefined);
  }

  #status(e: Entry, state: TaskState, text?: string, data?: Record<string, unknown>, metadata?: Record<string, unknown>): void {
    const parts = text === undefined ? undefined : [textPart(text), ...(data === undefined ? [] : [dataPart(data)])];
    this.#publish(e, AgentEvent.statusUpdate({ ...statusUpdate(e.id, e.contextId, state, parts), metadata }));
  }

  /** The last status; a run's token use travels in its metadata (`usage`), for a delegating caller to count. */
  #end(e: Entry, state: TaskState, text: string | undefined, usage?: { readonly input: number; readonly output: number }): Promise<void> {
    this.#status(
      e,
      state,
      text,
      undefined,
      usage === undefined ? undefined : { usage: { input_tokens: usage.input, output_tokens: usage.output } },
    );
    this.#phase(e, 'ended');
    return e.writes;
  }

  #start(e: Entry, message: Message): void {
    const prompt = messageText(message);
    if (prompt === '') {
      void this.#end(e, TaskState.TASK_STATE_REJECTED, 'the message holds no text: send the task as a text part');
      return;
    }
    if (!this.#queue.open) {
      void this.#end(
        e,
        TaskState.TASK_STATE_REJECTED,
        `agent ${this.#opts.identity} is shutting down and takes no new tasks; send it again once it is back`,
      );
      return;
    }
    this.#phase(e, 'queued');
    const work = this.#work(e, prompt);
    e.work = work;
    this.#offer(work);
  }

  #asker(e: Entry): Asker {
    return {
      canAsk: () => this.#queue.open && !e.stop.signal.aborted,
      ask: (q: Question) =>
        new Promise<Message | undefined>((resolve) => {
          if (!this.#queue.open || e.stop.signal.aborted) return resolve(undefined);
          const timer = setTimeout(() => e.answer?.(undefined), this.#opts.questionTimeoutMs);
          e.answer = (m) => {
            clearTimeout(timer);
            e.answer = undefined;
            if (m === undefined && e.phase === 'input-required') this.#phase(e, 'working');
            resolve(m);
          };
          this.#phase(e, 'input-required');
          this.#publish(e, AgentEvent.statusUpdate(statusUpdate(e.id, e.contextId, TaskState.TASK_STATE_INPUT_REQUIRED, questionParts(q))));
        }),
    };
  }

  #work(e: Entry, prompt: string): Work {
    return {
      label: `a2a task ${e.id}`,
      ids: { session: e.sessionId },
      input: e.continues ? { resume: e.sessionId, followUp: prompt } : { prompt, checkpoint: { runId: e.sessionId } },
      prompter: new TaskPrompter(this.#asker(e), 'the A2A caller'),
      ...(e.hops.length === 0 ? {} : { hops: e.hops }),
      signal: e.stop.signal,
      runContext: (handle) => {
        this.#phase(e, 'working');
        this.#status(e, TaskState.TASK_STATE_WORKING);
        handle.subscribe({ emit: (event) => this.#progress(e, event) });
      },
      done: (result) => this.#finish(e, result),
    };
  }

  /** What the caller sees of the run as it goes: its prose, and each tool it calls. */
  #progress(e: Entry, event: RunEvent): void {
    switch (event.type) {
      case 'text':
        if (!event.final && event.text.trim() !== '') this.#status(e, TaskState.TASK_STATE_WORKING, event.text);
        return;
      case 'tool_call':
        e.calls.set(event.id, event.name);
        this.#status(e, TaskState.TASK_STATE_WORKING, `calling ${event.name}`, { tool_call: { id: event.id, name: event.name } });
        return;
      case 'tool_result': {
        const name = e.calls.get(event.call_id);
        if (name === 'knowledge_search' && !event.is_error) for (const p of passagesOf(event.output)) e.retrieved.set(p.ref, p);
        return;
      }
      default:
        return;
    }
  }

  async #finish(e: Entry, result: WorkResult): Promise<void> {
    e.answer?.(undefined);
    const ending = taskEnding(result, {
      identity: this.#opts.identity,
      sessionId: e.sessionId,
      cancelled: e.cancelled,
      draining: !this.#queue.open,
    });
    if (result.kind === 'ran' && result.outcome.status === 'completed') {
      this.#artifacts(e, result.outcome.answer);
      this.#lastCompleted.set(e.contextId, e);
    }
    await this.#end(e, ending.state, ending.text, result.kind === 'ran' ? result.outcome.counters.usage : undefined);
  }

  #artifacts(e: Entry, answer: string): void {
    this.#publish(
      e,
      AgentEvent.artifactUpdate(
        artifactUpdate(e.id, e.contextId, {
          artifactId: 'answer',
          name: 'answer',
          description: 'The answer of the run',
          parts: [textPart(answer)],
        }),
      ),
    );
    const cited = citedIn(answer, e.retrieved);
    if (cited.length === 0) return;
    const lines = cited.map((c) => `${c.ref}${c.section === undefined ? '' : ` (${c.section})`}${c.url === undefined ? '' : ` ${c.url}`}`);
    this.#publish(
      e,
      AgentEvent.artifactUpdate(
        artifactUpdate(e.id, e.contextId, {
          artifactId: 'citations',
          name: 'citations',
          description: 'The knowledge passages the answer rests on',
          parts: [textPart(lines.join('\n')), dataPart({ citations: cited })],
        }),
      ),
    );
  }

  #offer(work: Work): void {
    this.#queue.offer(work);
  }

  next(signal: AbortSignal): Promise<Work | undefined> {
    return this.#queue.next(signal);
  }

  close(): Promise<void> {
    if (!this.#queue.open) return Promise.resolve();
    this.#queue.close();
    // an open question is given up: the run stops at its gate and the task fails, saying why
    for (const e of this.#entries.values()) e.answer?.(undefined);
    return Promise.resolve();
  }

  /** Every task's last state delivered and stored. */
  async settled(): Promise<void> {
    await Promise.all([...this.#entries.values()].map((e) => e.writes));
  }
}
