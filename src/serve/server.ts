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
  | { readonly kind: 'started'; readonly channel: string; readonly label: string; readonly runId: string | undefined; readonly ids: WorkIds }
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
  const notify = opts.notify ?? ((): void => undefined);
  const metrics = opts.telemetry?.telemetry;
  /** The channels not pulling now, with why. */
  const paused = new Map<string, string>();
  // the hold: aborted once, on drain; every channel's next() and every wait for a slot watch it
  const hold = new AbortController();
  const cancelAll = new AbortController();
  const handles = new Set<RunHandle>();
  const runs = new Set<Promise<void>>();
  const slots = new Map<string, number>();
  let fault: Error | undefined;
  let draining: Promise<Error | undefined> | undefined;
  let resolveStopped!: (e: Error | undefined) => void;
  const stopped = new Promise<Error | undefined>((r) => (resolveStopped = r));

  const onFault = (channel: string, err: unknown): void => {
    const error = asError(err);
    notify({ kind: 'fault', channel, error });
    fault ??= error;
    void drain();
  };

  /** Runs one piece of work in a slot already taken; `done` is awaited before the slot is freed. */
  /** Asks the channel how the work settled, and reports it; the slot is freed after this. */
  const settle = async (channel: Channel, work: Work, result: WorkResult, durationMs: number, why?: string): Promise<void> => {
    let said: Settlement | void = undefined;
    try {
      said = await work.done(result);
    } catch (err) {
      onFault(channel.name, new Error(`channel ${channel.name} could not report how ${work.label} ended: ${asError(err).message}`, { cause: err }));
    }
    const derived = said ?? settlementOf(result);
    const reason = why === undefined ? derived.reason : derived.reason === undefined ? why : `${derived.reason} (${why})`;
    const settled: Settlement = reason === undefined ? { outcome: derived.outcome } : { outcome: derived.outcome, reason };
    metrics?.recordServedWork(channel.name, settled.outcome);
    notify({ kind: 'ended', channel: channel.name, label: work.label, result, settled, durationMs, ids: work.ids ?? {} });
  };

  /** Why work that never ran was not run. */
  const unstarted = (work: Work): string =>
    hold.signal.aborted || cancelAll.signal.aborted ? 'the worker was stopping before it started' : work.signal?.aborted === true ? 'its sender gave up before it started' : 'it was not started';

  const run = async (channel: Channel, work: Work): Promise<void> => {
    const began = Date.now();
    let counted = false;
    let handle: RunHandle | undefined;
    let result: WorkResult = { kind: 'abandoned' };
    const detach: (() => void)[] = [];
    try {
      if (work.signal?.aborted === true || cancelAll.signal.aborted) {
        result = { kind: 'abandoned' };
      } else {
        try {
          handle = await startRun(runtime, journaled(work.input), {
            prompter: work.prompter ?? DENY_PROMPTER,
            ...(work.budget === undefined ? {} : { budget: work.budget }),
            ...(opts.workDir === undefined ? {} : { workDir: opts.workDir }),
            ...(opts.telemetry === undefined ? {} : { telemetry: opts.telemetry }),
            ...(work.stream === true ? { stream: true } : {}),
            ...(work.hops === undefined ? {} : { hops: work.hops }),
          });
        } catch (err) {
          handle = undefined;
          result = { kind: 'refused', error: asError(err) };
        }
        if (handle !== undefined) {
          const h = handle;
          handles.add(h);
          metrics?.recordServedInFlight(channel.name, 1);
          counted = true;
          const watch = (signal: AbortSignal | undefined, act: () => void): void => {
            if (signal === undefined) return;
            if (signal.aborted) return act();
            signal.addEventListener('abort', act, { once: true });
            detach.push(() => signal.removeEventListener('abort', act));
          };
          watch(work.park, () => h.suspend());
          watch(work.signal, () => h.cancel());
          watch(cancelAll.signal, () => h.cancel());
          notify({ kind: 'started', channel: channel.name, label: work.label, runId: h.runId, ids: { ...work.ids, ...(work.ids?.session === undefined && h.runId !== undefined ? { session: h.runId } : {}) } });
          work.runContext?.(h);
          const outcome: RunOutcome = await h.outcome;
          result = { kind: 'ran', runId: h.runId, outcome };
        }
      }
    } catch (err) {
      result = { kind: 'crashed', error: asError(err) };
    } finally {
      for (const d of detach) d();
    }
    if (counted) metrics?.recordServedInFlight(channel.name, -1);
    if (handle !== undefined) {
      handles.delete(handle);
      try {
        // the journal is released before done, so a follow-up the channel starts can claim it
        await handle.close();
      } catch (err) {
        if (result.kind === 'ran') result = { kind: 'crashed', error: asError(err) };
      }
    }
    await settle(channel, work, result, Date.now() - began, result.kind === 'abandoned' ? unstarted(work) : undefined);
  };

  const abandon = (channel: Channel, work: Work): Promise<void> => settle(channel, work, { kind: 'abandoned' }, 0, unstarted(work));

  /** Counts what a piece of work brings with it as it is taken: its wait in the queue, a retry. */
  const taken = (channel: Channel, work: Work): void => {
    if (work.queuedAt !== undefined) metrics?.recordQueueLag(channel.name, (Date.now() - work.queuedAt) / 1000);
    if (work.attempt !== undefined && work.attempt > 1) metrics?.recordServedRetry(channel.name);
  };

  const pull = async (channel: Channel): Promise<void> => {
    const pool = new Slots(slots.get(channel.name) ?? 1);
    for (;;) {
      let work: Work | undefined;
      try {
        work = await channel.next(hold.signal);
      } catch (err) {
        if (!hold.signal.aborted) onFault(channel.name, err);
        return;
      }
      if (work === undefined) {
        // a channel that ends by itself before a drain has failed: nothing more will come in
        if (!hold.signal.aborted) onFault(channel.name, new Error(`channel ${channel.name} stopped handing out work`));
        return;
      }
      const w = work;
      taken(channel, w);
      const signals = w.signal === undefined ? [hold.signal] : [hold.signal, w.signal];
      if (!(await pool.acquire(signals))) {
        const p = abandon(channel, w);
        runs.add(p);
        void p.finally(() => runs.delete(p));
        continue;
      }
      const p = run(channel, w).finally(() => pool.release());
      runs.add(p);
      void p.finally(() => runs.delete(p));
    }
  };

  const services = opts.services ?? [];
  const pullers: Promise<void>[] = [];

  const drain = (): Promise<Error | undefined> => {
    draining ??= (async () => {
      hold.abort(new Error('draining'));
      // each channel closes its own intake first, so nothing is acknowledged that will not run
      for (const c of opts.channels) {
        try {
          await c.close();
        } catch (err) {
          fault ??= new Error(`channel ${c.name} did not close cleanly: ${asError(err).message}`, { cause: err });
        }
      }
      for (const s of services) {
        try {
          await s.close();
        } catch (err) {
          fault ??= new Error(`${s.name} did not close cleanly: ${asError(err).message}`, { cause: err });
        }
      }
      await Promise.allSettled(pullers);
      while (runs.size > 0) await Promise.allSettled([...runs]);
      await Promise.allSettled(opts.channels.map((c) => c.settled?.() ?? Promise.resolve()));
      resolveStopped(fault);
      return fault;
    })();
    return draining;
  };

  for (const c of opts.channels) slots.set(c.name, Math.max(1, opts.workers ?? c.workers));
  for (const c of opts.channels) {
    c.watchPause?.({
      paused(reason) {
        if (paused.has(c.name)) return;
        paused.set(c.name, reason);
        metrics?.recordPullPause(c.name);
        notify({ kind: 'paused', channel: c.name, reason });
      },
      resumed() {
        if (!paused.delete(c.name)) return;
        notify({ kind: 'resumed', channel: c.name });
      },
    });
  }
  for (const c of opts.channels) pullers.push(pull(c));

  return {
    slots,
    get inFlight() {
      return handles.size;
    },
    notReady() {
      const why: string[] = [];
      if (hold.signal.aborted) why.push(fault === undefined ? 'draining' : `stopping: ${fault.message}`);
      for (const [name, reason] of paused) why.push(`${name} paused: ${reason}`);
      return why;
    },
    drain,
    cancel() {
      cancelAll.abort(new Error('cancelled'));
      for (const h of handles) h.cancel();
      void drain();
    },
    stopped,
  };
}
