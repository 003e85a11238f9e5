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
    const entry = this.#entry(id, contextId, messageId);
    entry.hops = hops;
    const last = this.#lastCompleted.get(contextId);
    if (last !== undefined) {
      entry.sessionId = last.sessionId;
      entry.continues = true;
    }
    this.#entries.set(id, entry);
    return { id, fresh: true };
  }

  /** The task of a context that has not ended, if any: a conversation takes one task at a time. */
  #activeIn(contextId: string): string | undefined {
    for (const entry of this.#entries.values()) if (entry.contextId === contextId && entry.phase !== 'ended') return entry.id;
    return undefined;
  }

  /** Gives up a claim whose task never reached the store. */
  unclaim(id: string): void {
    if (this.#entries.get(id)?.phase === 'new') this.#entries.delete(id);
  }

  /** Whether a message on an existing task answers its open question, repeats one, or comes at the wrong time. */
  follows(taskId: string, messageId: string): 'answer' | 'repeat' | 'busy' | 'unknown' {
    const entry = this.#entries.get(taskId);
    if (entry === undefined) return 'unknown';
    if (entry.seen.has(messageId)) return 'repeat';
    if (entry.phase === 'input-required' && entry.answer !== undefined) return 'answer';
    return entry.phase === 'ended' ? 'unknown' : 'busy';
  }

  /** Resolves once the task is waiting for input or has ended. */
  paused(taskId: string): Promise<void> {
    const entry = this.#entries.get(taskId);
    if (entry === undefined || entry.phase === 'input-required' || entry.phase === 'ended') return Promise.resolve();
    return new Promise((r) => entry.waiters.push(r));
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
    let entry = this.#entries.get(ctx.taskId);
    if (entry === undefined) {
      entry = this.#entry(ctx.taskId, ctx.contextId, message.messageId);
      this.#entries.set(entry.id, entry);
    }
    entry.bus = bus;
    entry.call = ctx.context;
    entry.attached++;
    try {
      bus.publish(AgentEvent.task(ctx.task ?? this.#fresh(entry, message)));
      if (entry.phase === 'new') this.#start(entry, message);
      else if (entry.phase === 'input-required' && entry.answer !== undefined) {
        entry.seen.add(message.messageId);
        const answer = entry.answer;
        entry.answer = undefined;
        this.#phase(entry, 'working');
        this.#publish(entry, AgentEvent.statusUpdate(statusUpdate(entry.id, entry.contextId, TaskState.TASK_STATE_WORKING)));
        answer(message);
      }
      await this.paused(entry.id);
    } finally {
      entry.attached--;
    }
  }

  cancelTask(taskId: string): Promise<void> {
    const entry = this.#entries.get(taskId);
    if (entry === undefined || entry.phase === 'ended') return Promise.resolve();
    entry.cancelled = true;
    // the handler reads the bus until the task ends: its terminal status is stored by it
    entry.attached++;
    entry.stop.abort(new Error('cancelled by the caller'));
    entry.answer?.(undefined);
    if (entry.work !== undefined) this.#queue.withdraw(entry.work);
    return Promise.resolve();
  }

  #fresh(entry: Entry, message: Message): Task {
    return {
      id: entry.id,
      contextId: entry.contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [],
      history: [message],
      metadata: undefined,
    };
  }

  #phase(entry: Entry, phase: Phase): void {
    entry.phase = phase;
    if (phase === 'input-required' || phase === 'ended') for (const wake of entry.waiters.splice(0)) wake();
  }

  /** Sends an event to whoever reads the bus; with no request reading it, stores it here. */
  #publish(entry: Entry, event: AgentExecutionEvent): void {
    entry.bus?.publish(event);
    const call = entry.call;
    if (entry.attached > 0 || call === undefined) return;
    const rm = new ResultManager(this.#opts.store, call);
    entry.writes = entry.writes.then(() => rm.processEvent(event)).catch(() => undefined);
  }

  #status(entry: Entry, state: TaskState, text?: string, data?: Record<string, unknown>, metadata?: Record<string, unknown>): void {
    const parts = text === undefined ? undefined : [textPart(text), ...(data === undefined ? [] : [dataPart(data)])];
    this.#publish(entry, AgentEvent.statusUpdate({ ...statusUpdate(entry.id, entry.contextId, state, parts), metadata }));
  }

  /** The last status; a run's token use travels in its metadata (`usage`), for a delegating caller to count. */
  #end(
    entry: Entry,
    state: TaskState,
    text: string | undefined,
    usage?: { readonly input: number; readonly output: number },
  ): Promise<void> {
    this.#status(
      entry,
      state,
      text,
      undefined,
      usage === undefined ? undefined : { usage: { input_tokens: usage.input, output_tokens: usage.output } },
    );
    this.#phase(entry, 'ended');
    return entry.writes;
  }

  #start(entry: Entry, message: Message): void {
    const prompt = messageText(message);
    if (prompt === '') {
      void this.#end(entry, TaskState.TASK_STATE_REJECTED, 'the message holds no text: send the task as a text part');
      return;
    }
    if (!this.#queue.open) {
      void this.#end(
        entry,
        TaskState.TASK_STATE_REJECTED,
        `agent ${this.#opts.identity} is shutting down and takes no new tasks; send it again once it is back`,
      );
      return;
    }
    this.#phase(entry, 'queued');
    const work = this.#work(entry, prompt);
    entry.work = work;
    this.#offer(work);
  }

  #asker(entry: Entry): Asker {
    return {
      canAsk: () => this.#queue.open && !entry.stop.signal.aborted,
      ask: (question: Question) =>
        new Promise<Message | undefined>((resolve) => {
          if (!this.#queue.open || entry.stop.signal.aborted) return resolve(undefined);
          const timer = setTimeout(() => entry.answer?.(undefined), this.#opts.questionTimeoutMs);
          entry.answer = (answer) => {
            clearTimeout(timer);
            entry.answer = undefined;
            if (answer === undefined && entry.phase === 'input-required') this.#phase(entry, 'working');
            resolve(answer);
          };
          this.#phase(entry, 'input-required');
          this.#publish(
            entry,
            AgentEvent.statusUpdate(statusUpdate(entry.id, entry.contextId, TaskState.TASK_STATE_INPUT_REQUIRED, questionParts(question))),
          );
        }),
    };
  }

  #work(entry: Entry, prompt: string): Work {
    return {
      label: `a2a task ${entry.id}`,
      ids: { session: entry.sessionId },
      input: entry.continues ? { resume: entry.sessionId, followUp: prompt } : { prompt, checkpoint: { runId: entry.sessionId } },
      prompter: new TaskPrompter(this.#asker(entry), 'the A2A caller'),
      ...(entry.hops.length === 0 ? {} : { hops: entry.hops }),
      signal: entry.stop.signal,
      runContext: (handle) => {
        this.#phase(entry, 'working');
        this.#status(entry, TaskState.TASK_STATE_WORKING);
        handle.subscribe({ emit: (event) => this.#progress(entry, event) });
      },
      done: (result) => this.#finish(entry, result),
    };
  }

  /** What the caller sees of the run as it goes: its prose, and each tool it calls. */
  #progress(entry: Entry, event: RunEvent): void {
    switch (event.type) {
      case 'text':
        if (!event.final && event.text.trim() !== '') this.#status(entry, TaskState.TASK_STATE_WORKING, event.text);
        return;
      case 'tool_call':
        entry.calls.set(event.id, event.name);
        this.#status(entry, TaskState.TASK_STATE_WORKING, `calling ${event.name}`, { tool_call: { id: event.id, name: event.name } });
        return;
      case 'tool_result': {
        const name = entry.calls.get(event.call_id);
        if (name === 'knowledge_search' && !event.is_error)
          for (const passage of passagesOf(event.output)) entry.retrieved.set(passage.ref, passage);
        return;
      }
      default:
        return;
    }
  }

  async #finish(entry: Entry, result: WorkResult): Promise<void> {
    entry.answer?.(undefined);
    const ending = taskEnding(result, {
      identity: this.#opts.identity,
      sessionId: entry.sessionId,
      cancelled: entry.cancelled,
      draining: !this.#queue.open,
    });
    if (result.kind === 'ran' && result.outcome.status === 'completed') {
      this.#artifacts(entry, result.outcome.answer);
      this.#lastCompleted.set(entry.contextId, entry);
    }
    await this.#end(entry, ending.state, ending.text, result.kind === 'ran' ? result.outcome.counters.usage : undefined);
  }

  #artifacts(entry: Entry, answer: string): void {
    this.#publish(
      entry,
      AgentEvent.artifactUpdate(
        artifactUpdate(entry.id, entry.contextId, {
          artifactId: 'answer',
          name: 'answer',
          description: 'The answer of the run',
          parts: [textPart(answer)],
        }),
      ),
    );
    const cited = citedIn(answer, entry.retrieved);
    if (cited.length === 0) return;
    const lines = cited.map((c) => `${c.ref}${c.section === undefined ? '' : ` (${c.section})`}${c.url === undefined ? '' : ` ${c.url}`}`);
    this.#publish(
      entry,
      AgentEvent.artifactUpdate(
        artifactUpdate(entry.id, entry.contextId, {
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
    for (const entry of this.#entries.values()) entry.answer?.(undefined);
    return Promise.resolve();
  }

  /** Every task's last state delivered and stored. */
  async settled(): Promise<void> {
    await Promise.all([...this.#entries.values()].map((e) => e.writes));
  }
}
