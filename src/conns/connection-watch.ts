/**
 * Whether a NATS connection is up right now, followed from the client's status events: a
 * readiness probe asks this rather than waiting on a request that may hang while the client
 * reconnects, and a long-running server tells its operator when the connection drops and when
 * it is back.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { redactServer } from './nats-connect.js';

/** Told once when the connection drops, and once when it is back; `server` never holds a password. */
export interface ConnectionListener {
  /** The connection to `server` dropped; the client is reconnecting. */
  dropped(server: string): void;
  /** The client reconnected, to `server`, `downMs` after the drop. */
  restored(server: string, downMs: number): void;
}

export class ConnectionWatch {
  readonly #connection: NatsConnection;
  readonly #context: string;
  readonly #listener: ConnectionListener | undefined;
  readonly #now: () => number;
  #connected = true;
  #droppedAt = 0;

  /**
   * Starts following `connection` (borrowed, never closed here); `context` names it in reasons.
   * `listener` hears each drop and each return; `now` is the clock the outage is timed by.
   */
  constructor(connection: NatsConnection, context: string, listener?: ConnectionListener, now: () => number = Date.now) {
    this.#connection = connection;
    this.#context = context;
    this.#listener = listener;
    this.#now = now;
    void this.#follow();
  }

  async #follow(): Promise<void> {
    try {
      for await (const status of this.#connection.status()) {
        if (status.type === 'disconnect' || status.type === 'reconnecting' || status.type === 'staleConnection') {
          // a stale connection is followed by its disconnect: each outage is told once
          if (this.#connected) {
            this.#connected = false;
            this.#droppedAt = this.#now();
            this.#listener?.dropped(redactServer(status.type === 'disconnect' ? status.server : this.#connection.getServer()));
          }
        } else if (status.type === 'reconnect') {
          const was = this.#connected;
          this.#connected = true;
          if (!was) this.#listener?.restored(redactServer(status.server), this.#now() - this.#droppedAt);
        } else if (status.type === 'close') break;
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
