/**
 * The NATS binding: core request-reply through a micro service. No streams, no KV, no consumers.
 * The service is named for the identity and uses it as the queue group, so processes sharing an
 * identity share load; it registers version `0.0.0` because the agent card carries the real one,
 * and it answers the standard `$SRV.PING`, `$SRV.INFO` and `$SRV.STATS` requests.
 */
import { randomBytes } from 'node:crypto';
import type { Msg, NatsConnection, Subscription as NatsSubscription } from '@nats-io/transport-node';
import type { ServiceMsg } from '@nats-io/services';
import { A2aError } from './errors.js';
import { DEFAULT_TIMEOUT_MS } from './protocol.js';
import { PullQueue, ServingPath } from './transport.js';
import type { IncomingRequest, ReplyStream, ServiceHandle, ServiceSpec, Subscription, Transport, TransportOptions } from './transport.js';

/** The headers the NATS micro framework sets on an error reply (as `@nats-io/services` names them). */
const SERVICE_ERROR_CODE_HEADER = 'Nats-Service-Error-Code';
const SERVICE_ERROR_HEADER = 'Nats-Service-Error';

/**
 * A fresh inbox subject under the connection's prefix (`_INBOX` unless the context sets one), as
 * the client's own createInbox makes them; made here so a process that never serves or calls over
 * NATS loads none of the NATS client packages for this module.
 */
function createInbox(prefix: string): string {
  return `${prefix === '' ? '_INBOX' : prefix}.${randomBytes(16).toString('base64url')}`;
}

/** A header value carries no line breaks or control characters and stays short. */
function headerSafe(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, 1024);
}

/** The transport error a reply carries in its headers, if any. */
function replyError(msg: Msg, subject: string): A2aError | undefined {
  const h = msg.headers;
  if (h === undefined) return undefined;
  const serviceCode = h.get(SERVICE_ERROR_CODE_HEADER);
  if (serviceCode !== '') {
    const status = Number.parseInt(serviceCode, 10);
    return new A2aError(
      'rejected',
      `remote agent refused the message: ${serviceCode} ${h.get(SERVICE_ERROR_HEADER)}`,
      Number.isNaN(status) ? {} : { status },
    );
  }
  if (h.code === 503) return new A2aError('unavailable', `remote agent unavailable: no responders on ${subject}`);
  if (h.hasError) return new A2aError('unavailable', `remote agent unavailable: ${h.code} ${h.description} on ${subject}`);
  return undefined;
}

function requestFailure(err: unknown): A2aError {
  if (err instanceof A2aError) return err;
  return new A2aError('unavailable', `remote agent unavailable: ${(err as Error).message}`, { cause: err });
}

/** One request waiting for its reply on the shared inbox. */
interface Waiting {
  readonly subject: string;
  readonly timeoutMs: number;
  readonly resolve: (msg: Msg) => void;
  readonly reject: (err: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Request-reply over one wildcard inbox subscription per transport: a request is a publish with
 * a reply subject under that inbox, a map entry and a timer, and nothing else. (The client's own
 * `request` builds two error objects with stack traces for every call, which costs more than the
 * rest of a round trip.) A reply with no body and status 503 is the server saying nobody
 * listens; a publish the account may not make fails the request that made it; a closed
 * connection or a lost inbox subscription fails every waiting request.
 */
class RequestMux {
  private inbox = '';
  private sub: NatsSubscription | undefined;
  private readonly waiting = new Map<string, Waiting>();
  private seq = 0;
  private watching = false;

  constructor(private readonly nc: NatsConnection) {}

  request(subject: string, data: Uint8Array, timeoutMs: number): Promise<Msg> {
    if (this.sub === undefined) this.open();
    const token = (++this.seq).toString(36);
    return new Promise<Msg>((resolve, reject) => {
      const w: Waiting = { subject, timeoutMs, resolve, reject, timer: undefined };
      w.timer = setTimeout(() => this.expire(token), timeoutMs);
      this.waiting.set(token, w);
      try {
        this.nc.publish(subject, data, { reply: `${this.inbox}${token}` });
      } catch (err) {
        this.settle(token, w);
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }

  private open(): void {
    // the connection's own inbox prefix, so a context that restricts inboxes still gets replies
    const prefix = (this.nc as unknown as { options?: { inboxPrefix?: string } }).options?.inboxPrefix ?? '';
    this.inbox = `${createInbox(prefix)}.`;
    const sub = this.nc.subscribe(`${this.inbox}*`, {
      callback: (err, msg) => {
        if (err !== null) {
          this.failAll(err);
          return;
        }
        const token = msg.subject.slice(this.inbox.length);
        const w = this.waiting.get(token);
        if (w === undefined) return;
        this.settle(token, w);
        w.resolve(msg);
      },
    });
    this.sub = sub;
    // a subscription that ends (connection closed, permission revoked) takes its waiting requests along
    const ended = (err: unknown): void => {
      if (this.sub === sub) this.sub = undefined;
      this.failAll(err instanceof Error ? err : new Error('the connection closed'));
    };
    sub.closed.then(ended, ended);
    if (!this.watching) {
      this.watching = true;
      void this.watchPermissions();
    }
  }

  /** A publish the account may not make is reported on the connection's status, naming the subject. */
  private async watchPermissions(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type !== 'error') continue;
      const e = s.error as Error & { operation?: string; subject?: string };
      if (e.name !== 'PermissionViolationError' || e.operation !== 'publish') continue;
      for (const [token, w] of this.waiting) {
        if (w.subject === e.subject) {
          this.settle(token, w);
          w.reject(e);
          break;
        }
      }
    }
  }

  private settle(token: string, w: Waiting): void {
    this.waiting.delete(token);
    clearTimeout(w.timer);
  }

  private expire(token: string): void {
    const w = this.waiting.get(token);
    if (w === undefined) return;
    this.waiting.delete(token);
    // the request went out: the peer may have acted on it and died, or still be working
    w.reject(new A2aError('lost', `remote agent did not answer: no reply on ${w.subject} within ${w.timeoutMs} ms`));
  }

  /** Every waiting request was published already, so each is lost rather than refused. */
  private failAll(err: Error): void {
    for (const [token, w] of this.waiting) {
      this.settle(token, w);
      w.reject(new A2aError('lost', `remote agent did not answer on ${w.subject}: ${err.message}`, { cause: err }));
    }
  }
}

class NatsTransport implements Transport {
  readonly name = 'nats';

  private readonly mux: RequestMux;

  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs: number,
  ) {
    this.mux = new RequestMux(nc);
  }

  async request(subject: string, data: Uint8Array, opts?: { readonly timeoutMs?: number }): Promise<Uint8Array> {
    const timeout = opts?.timeoutMs ?? this.timeoutMs;
    if (!(timeout > 0)) throw new A2aError('registry', `the a2a request timeout must be a positive number of milliseconds, not ${timeout}`);
    let msg: Msg;
    try {
      msg = await this.mux.request(subject, data, timeout);
    } catch (err) {
      throw requestFailure(err);
    }
    const refused = replyError(msg, subject);
    if (refused !== undefined) throw refused;
    return msg.data;
  }

  async requestStream(
    subject: string,
    data: Uint8Array,
    opts: { readonly headers?: Readonly<Record<string, string>> } = {},
  ): Promise<ReplyStream> {
    // the connection's own inbox prefix, so a context that restricts inboxes still gets replies
    const inbox = createInbox((this.nc as unknown as { options?: { inboxPrefix?: string } }).options?.inboxPrefix ?? '');
    const queue = new PullQueue<Msg>();
    const sub = this.nc.subscribe(inbox, { callback: (_err, msg) => queue.push(msg) });
    await this.nc.flush();
    const given = Object.entries(opts.headers ?? {});
    if (given.length === 0) this.nc.publish(subject, data, { reply: inbox });
    else {
      // the client library loads only for a request that carries headers (a delegation chain)
      const { headers: natsHeaders } = await import('@nats-io/transport-node');
      const requestHeaders = natsHeaders();
      for (const [name, value] of given) requestHeaders.set(name, value);
      this.nc.publish(subject, data, { reply: inbox, headers: requestHeaders });
    }
    return {
      next: async (timeoutMs: number) => {
        const got = await queue.pull(timeoutMs);
        if (got === undefined) throw new A2aError('unavailable', `remote agent unavailable: no reply on ${subject} within ${timeoutMs} ms`);
        if (got.done === true) throw new A2aError('closed', `reply stream for ${subject} is closed`);
        const refused = replyError(got.value, subject);
        if (refused !== undefined) throw refused;
        return got.value.data;
      },
      close: () => {
        sub.unsubscribe();
        queue.close();
      },
    };
  }

  async publish(subject: string, data: Uint8Array): Promise<void> {
    this.nc.publish(subject, data);
    await this.nc.flush();
  }

  async subscribe(subject: string, handler: (data: Uint8Array) => void): Promise<Subscription> {
    const sub = this.nc.subscribe(subject, { callback: (_err, msg) => handler(msg.data) });
    await this.nc.flush();
    return { close: () => sub.unsubscribe() };
  }

  async serve(spec: ServiceSpec): Promise<ServiceHandle> {
    // the services package is built against its own copy of the core client; the connection is the same object
    const { Svcm } = await import('@nats-io/services');
    const service = await new Svcm(this.nc as unknown as ConstructorParameters<typeof Svcm>[0]).add({
      name: spec.name,
      version: spec.version,
      description: spec.description,
      queue: spec.name,
    });
    const path = new ServingPath(spec.slots, spec.maxWaiting);
    for (const endpoint of spec.endpoints) {
      service.addEndpoint(endpoint.name, {
        subject: endpoint.subject,
        queue: spec.name,
        ...(endpoint.metadata === undefined ? {} : { metadata: { ...endpoint.metadata } }),
        // the subscription's own errors stop the service (the micro framework closes it on one)
        handler: (err, msg) => {
          if (err === null) path.accept(endpoint, incoming(msg));
        },
      });
    }
    await this.nc.flush();
    return {
      stop: async () => {
        await service.stop();
        await path.stop();
      },
    };
  }
}

/** The request's headers as a record, the last value of each kept. */
function headerRecord(msg: ServiceMsg): Record<string, string> {
  const out: Record<string, string> = {};
  const h = msg.headers;
  if (h === undefined) return out;
  for (const k of h.keys()) out[k] = h.get(k);
  return out;
}

function incoming(msg: ServiceMsg): IncomingRequest {
  let answered = false;
  return {
    subject: msg.subject,
    data: msg.data,
    replyTo: msg.reply === '' ? undefined : msg.reply,
    headers: headerRecord(msg),
    respond: (body) => {
      if (answered) return false;
      answered = true;
      return msg.respond(body);
    },
    respondError: (status, description) => {
      if (answered) return false;
      answered = true;
      return msg.respondError(status, headerSafe(description));
    },
  };
}

/** Builds the NATS binding over a borrowed connection (`options.connection`). */
export function createNatsTransport(options: TransportOptions): Transport {
  const nc = options.connection as NatsConnection | undefined;
  if (nc === undefined || typeof (nc as { request?: unknown }).request !== 'function') {
    throw new A2aError('registry', 'the nats transport needs a NATS connection in options.connection');
  }
  return new NatsTransport(nc, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
}
