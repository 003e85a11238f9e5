/**
 * Whether a NATS connection is up right now, followed from the client's status events: a
 * readiness probe asks this rather than waiting on a request that may hang while the client
 * reconnects.
 */
import type { NatsConnection } from '@nats-io/transport-node';

export class ConnectionWatch {
  readonly #connection: NatsConnection;
  readonly #context: string;
  #connected = true;

  /** Starts following `connection` (borrowed, never closed here); `context` names it in reasons. */
  constructor(connection: NatsConnection, context: string) {
    this.#connection = connection;
    this.#context = context;
    void this.#follow();
  }

  async #follow(): Promise<void> {
    try {
      for await (const status of this.#connection.status()) {
        if (status.type === 'disconnect' || status.type === 'reconnecting' || status.type === 'staleConnection') this.#connected = false;
        else if (status.type === 'reconnect') this.#connected = true;
        else if (status.type === 'close') break;
      }
    } catch {
      // the iterator ends with the connection; isClosed() answers from then on
    }
  }

  /** Why the connection is not usable now, or `undefined` while it is connected. */
  notReady(): string | undefined {
    if (this.#connection.isClosed()) return `the NATS connection (context ${this.#context}) is closed`;
    if (!this.#connected) return `the NATS connection (context ${this.#context}) is down, reconnecting`;
    return undefined;
  }
}
