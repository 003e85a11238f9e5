/**
 * The served agent: takes work from channels and runs it on the runtime the host built once.
 *
 * One puller per channel takes a piece of work first and a slot second, so a slot never sits
 * reserved for a channel with nothing to do. Each channel has its own slots (its `workers`, or
 * the server-wide override). Runs borrow the runtime's provider, stores, knowledge reader and
 * imported tools; every served run is journaled, so a drained or killed worker's run resumes
 * elsewhere. The server registers no signal handler: the command turns interrupts into `drain`
 * (first) and `cancel` (second).
 */
import type { RunOutcome } from '../agent/outcome.js';
import { requireRunRuntime, startRun } from '../host/index.js';
import type { HostTelemetry, JournaledRuntime, RunHandle, RunInput } from '../host/index.js';
import { DENY_PROMPTER } from '../toolkit/invoke/deny-prompter.js';
import { messageOf } from '../agent/outcome.js';
import type { Channel, Settlement, Work, WorkIds, WorkResult } from './channel.js';
import { ServeError } from './errors.js';

/** Something besides the channels the server stops on drain (a tool service, a micro service). */
export interface Service {
  readonly name: string;
  close(): Promise<void>;
}

/** What the server reports as it goes, for the log; never arguments or answers. */
export type ServerNotice =
  | {
      readonly kind: 'started';
      readonly channel: string;
      readonly label: string;
      readonly runId: string | undefined;
      readonly ids: WorkIds;
    }
  | {
      readonly kind: 'ended';
      readonly channel: string;
      readonly label: string;
      readonly result: WorkResult;
      /** What became of the work: the channel's word when it gave one, else derived from `result`. */
      readonly settled: Settlement;
      readonly durationMs: number;
      readonly ids: WorkIds;
    }
  | { readonly kind: 'fault'; readonly channel: string; readonly error: Error }
  /** A channel stopped pulling because a dependency keeps failing; said once per pause. */
  | { readonly kind: 'paused'; readonly channel: string; readonly reason: string }
  | { readonly kind: 'resumed'; readonly channel: string };

export interface ServerOptions {
  readonly channels: readonly Channel[];
  /** Closed after every channel, in the order given. */
  readonly services?: readonly Service[];
  /** `--workers N`: replaces every channel's own slot count. */
  readonly workers?: number;
  /** The directory command tools run in. */
  readonly workDir?: string;
  /** The process's telemetry, built by the commands; not part of the package's API. @internal */
  readonly telemetry?: HostTelemetry;
  readonly notify?: (notice: ServerNotice) => void;
}

export interface Server {
  /** The slots each channel runs with, by channel name, after the override. */
  readonly slots: ReadonlyMap<string, number>;
  /** Runs in progress now. */
  readonly inFlight: number;
  /**
   * Why the server is not taking work now (draining, a channel paused), or empty while every
   * channel pulls: what a readiness probe reports.
   */
  notReady(): readonly string[];
  /**
   * Stops taking work: closes the hold once, then every channel and service in order, then waits
   * for the runs in flight. Idempotent; resolves with what `stopped` resolves with.
   */
  drain(): Promise<Error | undefined>;
  /** Cancels every run in flight now (the second interrupt). Starts a drain if none started. */
  cancel(): void;
  /**
   * Resolves once the server has drained: `undefined` after a requested drain, or the first
   * fault of a channel or service, which drained it (the caller exits non-zero so a supervisor
   * restarts the worker).
   */
  readonly stopped: Promise<Error | undefined>;
}

/** A counting semaphore whose waiters can give up. */
class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#free = size;
  }

  /** Resolves true with a slot taken, or false when `signal` aborted first (nothing taken). */
  acquire(signals: readonly AbortSignal[]): Promise<boolean> {
    if (signals.some((s) => s.aborted)) return Promise.resolve(false);
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const grant = (): void => {
        for (const s of signals) s.removeEventListener('abort', give);
        resolve(true);
      };
      const give = (): void => {
        const i = this.#waiting.indexOf(grant);
        if (i >= 0) this.#waiting.splice(i, 1);
        for (const s of signals) s.removeEventListener('abort', give);
        resolve(false);
      };
      for (const s of signals) s.addEventListener('abort', give, { once: true });
      this.#waiting.push(grant);
    });
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next !== undefined) next();
    else this.#free++;
  }
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/** How a piece of work settled, as the server saw it, for a channel that did not say. */
export function settlementOf(result: WorkResult): Settlement {
  switch (result.kind) {
    case 'ran': {
      const outcome = result.outcome;
      switch (outcome.status) {
        case 'completed':
          return { outcome: 'completed' };
        case 'suspended':
          return { outcome: 'suspended', reason: messageOf(outcome) };
        case 'budget':
        case 'max_iterations':
        case 'error':
          return { outcome: 'failed', reason: `${outcome.status}: ${messageOf(outcome)}` };
        case 'aborted':
          return { outcome: 'cancelled', reason: messageOf(outcome) };
        case 'crashed':
          return { outcome: 'crashed', reason: messageOf(outcome) };
        default: {
          const never: never = outcome;
          return never;
        }
      }
    }
    case 'abandoned':
      return { outcome: 'returned' };
    case 'refused':
      return { outcome: 'refused', reason: result.error.message };
    case 'crashed':
      return { outcome: 'crashed', reason: result.error.message };
    default: {
      const never: never = result;
      return never;
    }
  }
}

/** A new prompt is always journaled: a served run must be resumable on another worker. */
function journaled(input: RunInput): RunInput {
  if ('resume' in input || input.checkpoint !== undefined) return input;
  return { ...input, checkpoint: {} };
}

/** The server behind `startServer`: one puller per channel, each with its own slots, over one runtime. */
class AgentServer implements Server {
  readonly slots = new Map<string, number>();
  readonly stopped: Promise<Error | undefined>;
  readonly #runtime: JournaledRuntime;
  readonly #options: ServerOptions;
  readonly #notify: (notice: ServerNotice) => void;
  readonly #metrics: HostTelemetry['telemetry'] | undefined;
  /** The channels not pulling now, with why. */
  readonly #paused = new Map<string, string>();
  // the hold: aborted once, on drain; every channel's next() and every wait for a slot watch it
  readonly #hold = new AbortController();
  readonly #cancelAll = new AbortController();
  readonly #handles = new Set<RunHandle>();
  readonly #runs = new Set<Promise<void>>();
  readonly #pullers: Promise<void>[] = [];
  #fault: Error | undefined;
  #draining: Promise<Error | undefined> | undefined;
  #resolveStopped!: (e: Error | undefined) => void;

  constructor(runtime: JournaledRuntime, options: ServerOptions) {
    this.#runtime = runtime;
    this.#options = options;
    this.#notify = options.notify ?? ((): void => undefined);
    this.#metrics = options.telemetry?.telemetry;
    this.stopped = new Promise<Error | undefined>((resolve) => (this.#resolveStopped = resolve));
    for (const channel of options.channels) this.slots.set(channel.name, Math.max(1, options.workers ?? channel.workers));
    for (const channel of options.channels) this.#watchPause(channel);
    for (const channel of options.channels) this.#pullers.push(this.#pull(channel));
  }

  get inFlight(): number {
    return this.#handles.size;
  }

  notReady(): readonly string[] {
    const why: string[] = [];
    if (this.#hold.signal.aborted) why.push(this.#fault === undefined ? 'draining' : `stopping: ${this.#fault.message}`);
    for (const [name, reason] of this.#paused) why.push(`${name} paused: ${reason}`);
    return why;
  }

  drain(): Promise<Error | undefined> {
    return (this.#draining ??= this.#drain());
  }

  cancel(): void {
    this.#cancelAll.abort(new Error('cancelled'));
    for (const handle of this.#handles) handle.cancel();
    void this.drain();
  }

  #watchPause(channel: Channel): void {
    channel.watchPause?.({
      paused: (reason) => {
        if (this.#paused.has(channel.name)) return;
        this.#paused.set(channel.name, reason);
        this.#metrics?.recordPullPause(channel.name);
        this.#notify({ kind: 'paused', channel: channel.name, reason });
      },
      resumed: () => {
        if (!this.#paused.delete(channel.name)) return;
        this.#notify({ kind: 'resumed', channel: channel.name });
      },
    });
  }

  /** Takes work from one channel until the hold closes: a piece of work first, a slot second. */
  async #pull(channel: Channel): Promise<void> {
    const pool = new Slots(this.slots.get(channel.name) ?? 1);
    const hold = this.#hold.signal;
    for (;;) {
      let work: Work | undefined;
      try {
        work = await channel.next(hold);
      } catch (err) {
        if (!hold.aborted) this.#onFault(channel.name, err);
        return;
      }
      if (work === undefined) {
        // a channel that ends by itself before a drain has failed: nothing more will come in
        if (!hold.aborted) this.#onFault(channel.name, new Error(`channel ${channel.name} stopped handing out work`));
        return;
      }
      const taken = work;
      this.#taken(channel, taken);
      const signals = taken.signal === undefined ? [hold] : [hold, taken.signal];
      if (!(await pool.acquire(signals))) {
        this.#track(this.#abandon(channel, taken));
        continue;
      }
      this.#track(this.#run(channel, taken).finally(() => pool.release()));
    }
  }

  /** Keeps a piece of work counted until it settles, so a drain waits for it. */
  #track(settling: Promise<void>): void {
    this.#runs.add(settling);
    void settling.finally(() => this.#runs.delete(settling));
  }

  /** Counts what a piece of work brings with it as it is taken: its wait in the queue, a retry. */
  #taken(channel: Channel, work: Work): void {
    if (work.queuedAt !== undefined) this.#metrics?.recordQueueLag(channel.name, (Date.now() - work.queuedAt) / 1000);
    if (work.attempt !== undefined && work.attempt > 1) this.#metrics?.recordServedRetry(channel.name);
  }

  #onFault(channel: string, err: unknown): void {
    const error = asError(err);
    this.#notify({ kind: 'fault', channel, error });
    this.#fault ??= error;
    void this.drain();
  }

  /** Runs one piece of work in a slot already taken; the slot is freed once it has settled. */
  async #run(channel: Channel, work: Work): Promise<void> {
    const began = Date.now();
    let handle: RunHandle | undefined;
    let result: WorkResult = { kind: 'abandoned' };
    try {
      if (!(work.signal?.aborted === true || this.#cancelAll.signal.aborted)) {
        const started = await this.#start(work);
        if ('refused' in started) result = started.refused;
        else {
          handle = started.handle;
          result = await this.#follow(channel, work, handle);
        }
      }
    } catch (err) {
      result = { kind: 'crashed', error: asError(err) };
    }
    if (handle !== undefined) {
      this.#handles.delete(handle);
      try {
        // the journal is released before done, so a follow-up the channel starts can claim it
        await handle.close();
      } catch (err) {
        if (result.kind === 'ran') result = { kind: 'crashed', error: asError(err) };
      }
    }
    await this.#settle(channel, work, result, Date.now() - began, result.kind === 'abandoned' ? this.#unstarted(work) : undefined);
  }

  /** Starts the run a piece of work asks for, journaled; a run that cannot start is refused work. */
  async #start(work: Work): Promise<{ readonly handle: RunHandle } | { readonly refused: WorkResult }> {
    const options = this.#options;
    try {
      const handle = await startRun(this.#runtime, journaled(work.input), {
        prompter: work.prompter ?? DENY_PROMPTER,
        ...(work.budget === undefined ? {} : { budget: work.budget }),
        ...(options.workDir === undefined ? {} : { workDir: options.workDir }),
        ...(options.telemetry === undefined ? {} : { telemetry: options.telemetry }),
        ...(work.stream === true ? { stream: true } : {}),
        ...(work.hops === undefined ? {} : { hops: work.hops }),
      });
      return { handle };
    } catch (err) {
      return { refused: { kind: 'refused', error: asError(err) } };
    }
  }

  /** Follows a started run to its outcome, suspending or cancelling it as the sender or the server asks. */
  async #follow(channel: Channel, work: Work, handle: RunHandle): Promise<WorkResult> {
    this.#handles.add(handle);
    this.#metrics?.recordServedInFlight(channel.name, 1);
    const detach: (() => void)[] = [];
    const watch = (signal: AbortSignal | undefined, act: () => void): void => {
      if (signal === undefined) return;
      if (signal.aborted) return act();
      signal.addEventListener('abort', act, { once: true });
      detach.push(() => signal.removeEventListener('abort', act));
    };
    try {
      watch(work.park, () => handle.suspend());
      watch(work.signal, () => handle.cancel());
      watch(this.#cancelAll.signal, () => handle.cancel());
      const session = work.ids?.session === undefined && handle.runId !== undefined ? { session: handle.runId } : {};
      this.#notify({ kind: 'started', channel: channel.name, label: work.label, runId: handle.runId, ids: { ...work.ids, ...session } });
      work.runContext?.(handle);
      const outcome: RunOutcome = await handle.outcome;
      return { kind: 'ran', runId: handle.runId, outcome };
    } finally {
      for (const detachOne of detach) detachOne();
      this.#metrics?.recordServedInFlight(channel.name, -1);
    }
  }

  #abandon(channel: Channel, work: Work): Promise<void> {
    return this.#settle(channel, work, { kind: 'abandoned' }, 0, this.#unstarted(work));
  }

  /** Why work that never ran was not run. */
  #unstarted(work: Work): string {
    if (this.#hold.signal.aborted || this.#cancelAll.signal.aborted) return 'the worker was stopping before it started';
    return work.signal?.aborted === true ? 'its sender gave up before it started' : 'it was not started';
  }

  /** Asks the channel how the work settled, and reports it; the slot is freed after this. */
  async #settle(channel: Channel, work: Work, result: WorkResult, durationMs: number, why?: string): Promise<void> {
    let said: Settlement | void = undefined;
    try {
      said = await work.done(result);
    } catch (err) {
      this.#onFault(
        channel.name,
        new Error(`channel ${channel.name} could not report how ${work.label} ended: ${asError(err).message}`, { cause: err }),
      );
    }
    const derived = said ?? settlementOf(result);
    const reason = why === undefined ? derived.reason : derived.reason === undefined ? why : `${derived.reason} (${why})`;
    const settled: Settlement = reason === undefined ? { outcome: derived.outcome } : { outcome: derived.outcome, reason };
    this.#metrics?.recordServedWork(channel.name, settled.outcome);
    this.#notify({ kind: 'ended', channel: channel.name, label: work.label, result, settled, durationMs, ids: work.ids ?? {} });
  }

  /** Closes the hold, then every channel and service in order, then waits for the runs in flight. */
  async #drain(): Promise<Error | undefined> {
    this.#hold.abort(new Error('draining'));
    // each channel closes its own intake first, so nothing is acknowledged that will not run
    for (const channel of this.#options.channels) {
      try {
        await channel.close();
      } catch (err) {
        this.#fault ??= new Error(`channel ${channel.name} did not close cleanly: ${asError(err).message}`, { cause: err });
      }
    }
    for (const service of this.#options.services ?? []) {
      try {
        await service.close();
      } catch (err) {
        this.#fault ??= new Error(`${service.name} did not close cleanly: ${asError(err).message}`, { cause: err });
      }
    }
    await Promise.allSettled(this.#pullers);
    while (this.#runs.size > 0) await Promise.allSettled([...this.#runs]);
    await Promise.allSettled(this.#options.channels.map((c) => c.settled?.() ?? Promise.resolve()));
    this.#resolveStopped(this.#fault);
    return this.#fault;
  }
}

/**
 * Starts pulling work from every channel. Throws `ServeError` for a server that cannot start, and
 * HostError `usage` for a runtime not opened journaled in `run` mode.
 */
export function startServer(given: JournaledRuntime, opts: ServerOptions): Server {
  if (opts.channels.length === 0) throw new ServeError('no_endpoint', 'the server was given no channel to take work from');
  // a caller the type checker did not see may still pass a runtime of another mode, or one unjournaled
  const runtime = requireRunRuntime(given, 'a served agent', true);
  if (opts.workers !== undefined && (!Number.isInteger(opts.workers) || opts.workers < 1)) {
    throw new ServeError('no_endpoint', `--workers must be a whole number of at least 1, not ${String(opts.workers)}`);
  }
  const names = new Set<string>();
  for (const c of opts.channels) {
    if (names.has(c.name)) throw new ServeError('no_endpoint', `two channels are both named ${JSON.stringify(c.name)}`);
    names.add(c.name);
  }
  return new AgentServer(runtime, opts);
}
