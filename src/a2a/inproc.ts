/**
 * The in-process binding: subjects on a bus inside one process, with the same request, reply-set,
 * queue-group and error semantics as the NATS binding, so one conformance suite covers both.
 */
import { randomBytes } from 'node:crypto';
import { A2aError } from './errors.js';
import { DEFAULT_TIMEOUT_MS } from './protocol.js';
import { PullQueue, ServingPath } from './transport.js';
import type { IncomingRequest, ReplyStream, ServiceHandle, ServiceSpec, Subscription, Transport, TransportOptions } from './transport.js';

/** What travels on the bus: a body, or a transport error in place of one. */
type Delivery =
  | {
      readonly kind: 'data';
      readonly data: Uint8Array;
      readonly replyTo: string | undefined;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'error'; readonly status: number; readonly description: string };

interface Listener {
  readonly queue: string | undefined;
  deliver(d: Delivery): void;
}

/** A subject space shared by the transports of one process. */
export class InprocBus {
  private readonly listeners = new Map<string, Set<Listener>>();
  private rr = 0;

  listen(subject: string, listener: Listener): () => void {
    let set = this.listeners.get(subject);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(subject, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(subject);
    };
  }

  /** Delivers to every plain listener and to one member of each queue group; false when nobody listens. */
  publish(subject: string, d: Delivery): boolean {
    const set = this.listeners.get(subject);
    if (set === undefined || set.size === 0) return false;
    const groups = new Map<string, Listener[]>();
    for (const l of set) {
      if (l.queue === undefined) l.deliver(d);
      else groups.set(l.queue, [...(groups.get(l.queue) ?? []), l]);
    }
    for (const members of groups.values()) members[this.rr++ % members.length]?.deliver(d);
    return true;
  }

  inbox(): string {
    return `_INBOX.${randomBytes(12).toString('hex')}`;
  }
}

class InprocTransport implements Transport {
  readonly name = 'inproc';

  constructor(
    private readonly bus: InprocBus,
    private readonly timeoutMs: number,
  ) {}

  async request(subject: string, data: Uint8Array, opts?: { readonly timeoutMs?: number }): Promise<Uint8Array> {
    const stream = await this.requestStream(subject, data);
    try {
      return await stream.next(opts?.timeoutMs ?? this.timeoutMs);
    } catch (err) {
      // someone took the request and never answered: it may have acted on it
      if (err instanceof A2aError && err.code === 'unavailable')
        throw new A2aError('lost', err.message.replace('remote agent unavailable', 'remote agent did not answer'), { cause: err });
      throw err;
    } finally {
      stream.close();
    }
  }

  requestStream(
    subject: string,
    data: Uint8Array,
    opts: { readonly headers?: Readonly<Record<string, string>> } = {},
  ): Promise<ReplyStream> {
    const inbox = this.bus.inbox();
    const queue = new PullQueue<Delivery>();
    const stop = this.bus.listen(inbox, { queue: undefined, deliver: (d) => queue.push(d) });
    if (
      !this.bus.publish(subject, { kind: 'data', data, replyTo: inbox, ...(opts.headers === undefined ? {} : { headers: opts.headers }) })
    ) {
      stop();
      return Promise.reject(new A2aError('unavailable', `remote agent unavailable: no responders on ${subject}`));
    }
    return Promise.resolve({
      next: async (timeoutMs: number) => {
        const got = await queue.pull(timeoutMs);
        if (got === undefined) throw new A2aError('unavailable', `remote agent unavailable: no reply on ${subject} within ${timeoutMs} ms`);
        if (got.done === true) throw new A2aError('closed', `reply stream for ${subject} is closed`);
        const d = got.value;
        if (d.kind === 'error')
          throw new A2aError('rejected', `remote agent refused the message: ${d.status} ${d.description}`, { status: d.status });
        return d.data;
      },
      close: () => {
        stop();
        queue.close();
      },
    });
  }

  publish(subject: string, data: Uint8Array): Promise<void> {
    this.bus.publish(subject, { kind: 'data', data, replyTo: undefined });
    return Promise.resolve();
  }

  subscribe(subject: string, handler: (data: Uint8Array) => void): Promise<Subscription> {
    const stop = this.bus.listen(subject, {
      queue: undefined,
      deliver: (d) => {
        if (d.kind === 'data') handler(d.data);
      },
    });
    return Promise.resolve({ close: stop });
  }

  serve(spec: ServiceSpec): Promise<ServiceHandle> {
    const path = new ServingPath(spec.slots, spec.maxWaiting);
    // the service description, as the micro framework answers `$SRV.INFO.<name>` on NATS
    const info = new TextEncoder().encode(
      JSON.stringify({
        type: 'io.nats.micro.v1.info_response',
        name: spec.name,
        version: spec.version,
        description: spec.description,
        endpoints: spec.endpoints.map((e) => ({ name: e.name, subject: e.subject, queue_group: spec.name, metadata: e.metadata ?? null })),
      }),
    );
    const stopInfo = this.bus.listen(`$SRV.INFO.${spec.name}`, {
      queue: undefined,
      deliver: (d) => {
        if (d.kind === 'data' && d.replyTo !== undefined) this.bus.publish(d.replyTo, { kind: 'data', data: info, replyTo: undefined });
      },
    });
    const stops = spec.endpoints.map((endpoint) =>
      this.bus.listen(endpoint.subject, {
        queue: spec.name,
        deliver: (d) => {
          if (d.kind === 'data') path.accept(endpoint, this.incoming(endpoint.subject, d.data, d.replyTo, d.headers ?? {}));
        },
      }),
    );
    return Promise.resolve({
      stop: async () => {
        stopInfo();
        for (const s of stops) s();
        await path.stop();
      },
    });
  }

  private incoming(
    subject: string,
    data: Uint8Array,
    replyTo: string | undefined,
    headers: Readonly<Record<string, string>>,
  ): IncomingRequest {
    let answered = false;
    const send = (d: Delivery): boolean => {
      if (answered || replyTo === undefined) return false;
      answered = true;
      return this.bus.publish(replyTo, d);
    };
    return {
      subject,
      data,
      replyTo,
      headers,
      respond: (body) => send({ kind: 'data', data: body, replyTo: undefined }),
      respondError: (status, description) => send({ kind: 'error', status, description }),
    };
  }
}

/** Builds the in-process binding; `options.bus` is required (use one bus per simulated network). */
export function createInprocTransport(options: TransportOptions): Transport {
  if (!(options.bus instanceof InprocBus)) throw new A2aError('registry', 'the inproc transport needs an InprocBus in options.bus');
  return new InprocTransport(options.bus, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
}
