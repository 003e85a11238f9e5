/**
 * The one interface every a2a binding implements, and the registry bindings are chosen from by
 * name. A transport moves opaque bytes: it never decodes a body, and it reports a peer's
 * transport-level refusal (`rejected`, with the status code) apart from application answers,
 * which travel in-band inside the bytes.
 */
import { A2aError } from './errors.js';

/** A request as the serving side receives it. */
export interface IncomingRequest {
  readonly subject: string;
  readonly data: Uint8Array;
  /** The inbox later messages of a reply set are published to; absent for a request that wants no reply. */
  readonly replyTo: string | undefined;
  /** Sends the single reply. Later calls are ignored and return false. */
  respond(data: Uint8Array): boolean;
  /** Answers with a transport error (the micro error headers on NATS), never in-band. */
  respondError(status: number, description: string): boolean;
}

export interface EndpointSpec {
  /** The micro endpoint name (`discovery`, `tool`, `prompt`). */
  readonly name: string;
  readonly subject: string;
  /**
   * Whether a request takes one of the service's slots. A slotted request's slot is acquired on
   * the intake path before the handler starts and released when its promise settles; an unslotted
   * handler is awaited on the intake path itself, so it must answer quickly.
   */
  readonly slotted: boolean;
  handle(request: IncomingRequest): Promise<void>;
}

export interface ServiceSpec {
  /** The service name and queue group: the agent identity, so processes sharing it share load. */
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly endpoints: readonly EndpointSpec[];
  /** Slotted requests in flight at once (at least one). */
  readonly slots: number;
}

export interface ServiceHandle {
  /** Stops taking requests; resolves once requests in flight have finished. */
  stop(): Promise<void>;
}

/** A subscription to a subject; `close` is idempotent. */
export interface Subscription {
  close(): void;
}

/** The messages of one reply set, pulled one at a time with a wait limit on each. */
export interface ReplyStream {
  /**
   * The next body, or throws `A2aError` `unavailable` when none arrives within `timeoutMs`, and
   * `rejected` when the peer answered with a transport error.
   */
  next(timeoutMs: number): Promise<Uint8Array>;
  close(): void;
}

export interface Transport {
  readonly name: string;
  /** One request, one reply. Throws `unavailable` (nobody answered in time) or `rejected`. */
  request(subject: string, data: Uint8Array, opts?: { readonly timeoutMs?: number }): Promise<Uint8Array>;
  /** A request whose reply set arrives on one inbox, opened before the request is sent. */
  requestStream(subject: string, data: Uint8Array): Promise<ReplyStream>;
  publish(subject: string, data: Uint8Array): Promise<void>;
  /** Resolves once the subscription is live, so a message published after it cannot be missed. */
  subscribe(subject: string, handler: (data: Uint8Array) => void): Promise<Subscription>;
  serve(spec: ServiceSpec): Promise<ServiceHandle>;
}

/** What a factory may be given; each binding says which fields it needs and refuses their absence. */
export interface TransportOptions {
  /** The NATS connection (borrowed: the transport never closes it). */
  readonly connection?: unknown;
  /** The in-process bus. */
  readonly bus?: unknown;
  /** The default request timeout. */
  readonly timeoutMs?: number;
}

export type TransportFactory = (options: TransportOptions) => Transport;

const registry = new Map<string, TransportFactory>();

/** Registers a binding. Throws `registry` for an empty name, a missing factory or a taken name. */
export function registerTransport(name: string, factory: TransportFactory): void {
  if (name.trim() === '') throw new A2aError('registry', 'a transport needs a name');
  if (typeof factory !== 'function') throw new A2aError('registry', `transport ${JSON.stringify(name)} has no factory`);
  if (registry.has(name)) throw new A2aError('registry', `transport ${JSON.stringify(name)} is already registered`);
  registry.set(name, factory);
}

/** Builds a transport by its registered name. */
export function createTransport(name: string, options: TransportOptions): Transport {
  const factory = registry.get(name);
  if (factory === undefined) {
    throw new A2aError('registry', `unknown a2a transport ${JSON.stringify(name)}; known: ${[...registry.keys()].sort().join(', ')}`);
  }
  return factory(options);
}

export function transportNames(): string[] {
  return [...registry.keys()].sort();
}

/** A counting semaphore. */
export class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(count: number) {
    this.free = Math.max(1, Math.floor(count));
  }

  acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.free++;
  }
}

/** An unbounded queue read by one consumer with a per-read time limit. */
export class PullQueue<T> {
  private readonly items: T[] = [];
  private waiter: ((v: IteratorResult<T>) => void) | undefined;
  private closed = false;

  push(item: T): void {
    if (this.closed) return;
    const w = this.waiter;
    if (w !== undefined) {
      this.waiter = undefined;
      w({ value: item, done: false });
    } else this.items.push(item);
  }

  close(): void {
    this.closed = true;
    const w = this.waiter;
    this.waiter = undefined;
    w?.({ value: undefined, done: true });
  }

  /** The next item; `done` once closed and drained. A `timeoutMs` resolves to `undefined` on expiry. */
  pull(timeoutMs?: number): Promise<IteratorResult<T> | undefined> {
    if (this.items.length > 0) return Promise.resolve({ value: this.items.shift() as T, done: false });
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      this.waiter = (v) => {
        if (timer !== undefined) clearTimeout(timer);
        resolve(v);
      };
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          this.waiter = undefined;
          resolve(undefined);
        }, timeoutMs);
      }
    });
  }
}

/**
 * The serving path both bindings share: take a request, take a slot, then start the worker. The
 * slot is taken before the worker starts, so with every slot busy intake stops reading and the
 * pressure reaches the transport instead of piling requests up in memory.
 */
/** Where the serving path reads requests from: pulled one at a time, so not pulling is back-pressure. */
export interface Intake {
  pull(): Promise<IteratorResult<IncomingRequest> | undefined>;
}

export async function serveLoop(intake: Intake, endpoint: EndpointSpec, slots: Slots, inFlight: Set<Promise<void>>): Promise<void> {
  for (;;) {
    const next = await intake.pull();
    if (next === undefined || next.done === true) return;
    const request = next.value;
    if (!endpoint.slotted) {
      await runHandler(endpoint, request);
      continue;
    }
    await slots.acquire();
    const work = runHandler(endpoint, request).finally(() => {
      slots.release();
      inFlight.delete(work);
    });
    inFlight.add(work);
  }
}

async function runHandler(endpoint: EndpointSpec, request: IncomingRequest): Promise<void> {
  try {
    await endpoint.handle(request);
  } catch (err) {
    // a handler answers everything it can itself; whatever escapes is a fault on this side
    request.respondError(500, err instanceof Error ? err.message : String(err));
  }
}
