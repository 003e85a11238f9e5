/**
 * The one interface every a2a binding implements, and the registry bindings are chosen from by
 * name. A transport moves opaque bytes: it never decodes a body, and it reports a peer's
 * transport-level refusal (`rejected`, with the status code) apart from application answers,
 * which travel in-band inside the bytes.
 */
import { A2aError } from './errors.js';
import { DEFAULT_MAX_WAITING } from './protocol.js';

/** A request as the serving side receives it. */
export interface IncomingRequest {
  readonly subject: string;
  readonly data: Uint8Array;
  /** The inbox later messages of a reply set are published to; absent for a request that wants no reply. */
  readonly replyTo: string | undefined;
  /** The transport headers the request carried (the delegation chain, `HOPS_HEADER`); empty when none. */
  readonly headers: Readonly<Record<string, string>>;
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
  /** Advertised with the endpoint in the service description (`$SRV.INFO`). */
  readonly metadata?: Readonly<Record<string, string>>;
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
  /**
   * Slotted requests that may wait for a slot (default `DEFAULT_MAX_WAITING`); one more is refused
   * at once with a transport error (503), so a flood of callers meets a clear refusal instead of
   * a queue that grows without bound.
   */
  readonly maxWaiting?: number;
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
  requestStream(subject: string, data: Uint8Array, opts?: { readonly headers?: Readonly<Record<string, string>> }): Promise<ReplyStream>;
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
 * The serving path both bindings share. The slot is taken on the intake path, before a worker
 * starts: while every slot is busy a request waits, in arrival order, without starting, and the
 * slot a finishing call frees passes straight to the oldest waiting request. Requests of an
 * unslotted endpoint run one at a time in arrival order on the intake path itself, so such a
 * handler must answer quickly. A free slot starts the worker in the same turn the request
 * arrived in: an idle service adds no queueing to a call. The wait is bounded: with every slot
 * busy and `maxWaiting` requests already waiting, the next is refused as a transport error (503)
 * naming both numbers, so the pressure reaches the caller instead of this process's memory.
 */
export class ServingPath {
  private free: number;
  private readonly slots: number;
  private readonly maxWaiting: number;
  private readonly waiting: Array<{ readonly endpoint: EndpointSpec; readonly request: IncomingRequest }> = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly serial = new Map<EndpointSpec, Promise<void>>();
  private open = true;

  /** `slots`: slotted requests in flight at once (at least one); `maxWaiting`: how many may wait for one. */
  constructor(slots: number, maxWaiting: number = DEFAULT_MAX_WAITING) {
    this.slots = Math.max(1, Math.floor(slots));
    this.free = this.slots;
    this.maxWaiting = Math.max(0, Math.floor(maxWaiting));
  }

  /** Takes one request. After `stop` a request is refused as a transport error (503). */
  accept(endpoint: EndpointSpec, request: IncomingRequest): void {
    if (!this.open) {
      request.respondError(503, 'the service is stopping and takes no new requests');
      return;
    }
    if (!endpoint.slotted) {
      const before = this.serial.get(endpoint);
      const done: Promise<void> = (
        before === undefined ? runHandler(endpoint, request) : before.then(() => runHandler(endpoint, request))
      ).then(() => {
        if (this.serial.get(endpoint) === done) this.serial.delete(endpoint);
      });
      this.serial.set(endpoint, done);
      return;
    }
    if (this.free > 0) {
      this.free--;
      this.start(endpoint, request);
    } else if (this.waiting.length < this.maxWaiting) {
      this.waiting.push({ endpoint, request });
    } else {
      request.respondError(
        503,
        `the service is busy: all ${this.slots} of its slots are taken and ${this.waiting.length === 1 ? '1 call is' : `${this.waiting.length} calls are`} already waiting for one; try again later`,
      );
    }
  }

  /** Requests in flight or waiting for a slot. */
  get pending(): number {
    return this.inFlight.size + this.waiting.length;
  }

  private start(endpoint: EndpointSpec, request: IncomingRequest): void {
    const work: Promise<void> = runHandler(endpoint, request).then(() => {
      this.inFlight.delete(work);
      const next = this.waiting.shift();
      if (next === undefined) this.free++;
      else this.start(next.endpoint, next.request);
    });
    this.inFlight.add(work);
  }

  /**
   * Stops taking requests and resolves once every request already taken, waiting ones included,
   * has been answered.
   */
  async stop(): Promise<void> {
    this.open = false;
    while (this.inFlight.size > 0 || this.serial.size > 0) {
      await Promise.allSettled([...this.inFlight, ...this.serial.values()]);
    }
  }
}

/** Runs one handler; never rejects. */
function runHandler(endpoint: EndpointSpec, request: IncomingRequest): Promise<void> {
  let pending: Promise<void>;
  try {
    pending = endpoint.handle(request);
  } catch (err) {
    handlerFault(request, err);
    return Promise.resolve();
  }
  return pending.then(undefined, (err: unknown) => handlerFault(request, err));
}

/** A handler answers everything it can itself; whatever escapes is a fault on this side. */
function handlerFault(request: IncomingRequest, err: unknown): void {
  request.respondError(500, err instanceof Error ? err.message : String(err));
}
