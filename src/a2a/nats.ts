/**
 * The NATS binding: core request-reply through a micro service. No streams, no KV, no consumers.
 * The service is named for the identity and uses it as the queue group, so processes sharing an
 * identity share load; it registers version `0.0.0` because the agent card carries the real one,
 * and it answers the standard `$SRV.PING`, `$SRV.INFO` and `$SRV.STATS` requests.
 */
import { createInbox } from '@nats-io/transport-node';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { ServiceErrorCodeHeader, ServiceErrorHeader, Svcm } from '@nats-io/services';
import type { ServiceMsg } from '@nats-io/services';
import { A2aError } from './errors.js';
import { DEFAULT_TIMEOUT_MS } from './protocol.js';
import { PullQueue, ServingPath } from './transport.js';
import type { IncomingRequest, ReplyStream, ServiceHandle, ServiceSpec, Subscription, Transport, TransportOptions } from './transport.js';

/** A header value carries no line breaks or control characters and stays short. */
function headerSafe(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, 1024);
}

/** The transport error a reply carries in its headers, if any. */
function replyError(msg: Msg, subject: string): A2aError | undefined {
  const h = msg.headers;
  if (h === undefined) return undefined;
  const serviceCode = h.get(ServiceErrorCodeHeader);
  if (serviceCode !== '') {
    const status = Number.parseInt(serviceCode, 10);
    return new A2aError('rejected', `remote agent refused the message: ${serviceCode} ${h.get(ServiceErrorHeader)}`, Number.isNaN(status) ? {} : { status });
  }
  if (h.code === 503) return new A2aError('unavailable', `remote agent unavailable: no responders on ${subject}`);
  if (h.hasError) return new A2aError('unavailable', `remote agent unavailable: ${h.code} ${h.description} on ${subject}`);
  return undefined;
}

function requestFailure(err: unknown, subject: string, timeoutMs: number): A2aError {
  const e = err as Error & { isNoResponders?: () => boolean };
  if (typeof e.isNoResponders === 'function' && e.isNoResponders()) {
    return new A2aError('unavailable', `remote agent unavailable: no responders on ${subject}`, { cause: err });
  }
  if (e.name === 'TimeoutError' || (e.cause as Error | undefined)?.name === 'TimeoutError') {
    return new A2aError('unavailable', `remote agent unavailable: no reply on ${subject} within ${timeoutMs} ms`, { cause: err });
  }
  return new A2aError('unavailable', `remote agent unavailable: ${e.message}`, { cause: err });
}

class NatsTransport implements Transport {
  readonly name = 'nats';

  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs: number,
  ) {}

  async request(subject: string, data: Uint8Array, opts?: { readonly timeoutMs?: number }): Promise<Uint8Array> {
    const timeout = opts?.timeoutMs ?? this.timeoutMs;
    let msg: Msg;
    try {
      msg = await this.nc.request(subject, data, { timeout });
    } catch (err) {
      throw requestFailure(err, subject, timeout);
    }
    const refused = replyError(msg, subject);
    if (refused !== undefined) throw refused;
    return msg.data;
  }

  async requestStream(subject: string, data: Uint8Array): Promise<ReplyStream> {
    // the connection's own inbox prefix, so a context that restricts inboxes still gets replies
    const inbox = createInbox((this.nc as unknown as { options?: { inboxPrefix?: string } }).options?.inboxPrefix ?? '');
    const q = new PullQueue<Msg>();
    const sub = this.nc.subscribe(inbox, { callback: (_err, msg) => q.push(msg) });
    await this.nc.flush();
    this.nc.publish(subject, data, { reply: inbox });
    return {
      next: async (timeoutMs: number) => {
        const got = await q.pull(timeoutMs);
        if (got === undefined) throw new A2aError('unavailable', `remote agent unavailable: no reply on ${subject} within ${timeoutMs} ms`);
        if (got.done === true) throw new A2aError('closed', `reply stream for ${subject} is closed`);
        const refused = replyError(got.value, subject);
        if (refused !== undefined) throw refused;
        return got.value.data;
      },
      close: () => {
        sub.unsubscribe();
        q.close();
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
    const service = await new Svcm(this.nc as unknown as ConstructorParameters<typeof Svcm>[0]).add({
      name: spec.name,
      version: spec.version,
      description: spec.description,
      queue: spec.name,
    });
    const path = new ServingPath(spec.slots);
    for (const endpoint of spec.endpoints) {
      service.addEndpoint(endpoint.name, {
        subject: endpoint.subject,
        queue: spec.name,
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

function incoming(msg: ServiceMsg): IncomingRequest {
  let answered = false;
  return {
    subject: msg.subject,
    data: msg.data,
    replyTo: msg.reply === '' ? undefined : msg.reply,
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
