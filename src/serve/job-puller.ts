/**
 * Pulls jobs one at a time from the durable consumer and fails loudly when pulling can no longer
 * work: the connection closed for good, the consumer or its stream deleted (checked whenever a
 * pull fails or comes back empty, since a pull on a deleted consumer may simply time out), or
 * pulls failing without a break for longer than a bound. A supervisor then restarts the worker.
 */
import { JetStreamApiCodes, JetStreamApiError, jetstreamManager } from '@nats-io/jetstream';
import type { Consumer, JsMsg } from '@nats-io/jetstream';
import type { NatsConn } from '../conns/nats-connect.js';

/** How long one pull waits on the server before asking again. */
const PULL_EXPIRES_MS = 5_000;

export interface JobPullerOptions {
  readonly nats: NatsConn;
  readonly stream: string;
  readonly consumerName: string;
  readonly consumer: Consumer;
  /** Pulls failing without a break for this long end the worker (ms). */
  readonly unreachableAfterMs: number;
  /** Aborted when the channel closes. */
  readonly closing: AbortSignal;
  /** The commands that recreate the stream and the consumer, for the error that stops the worker. */
  readonly recreate: { readonly stream: string; readonly consumer: string };
  /** Gives a message fetched for a pull nobody waits on back to the queue. */
  readonly handBack: (msg: JsMsg) => void;
}

const apiCode = (err: unknown): number | undefined => (err instanceof JetStreamApiError ? err.code : undefined);

export class JobPuller {
  readonly #o: JobPullerOptions;
  #pending: Promise<JsMsg | null> | undefined;
  #troubleSince: number | undefined;
  #lastTrouble = '';

  constructor(options: JobPullerOptions) {
    this.#o = options;
  }

  /**
   * Throws the loud error when the stream or the consumer is gone. Resolves with the failure when
   * the queue could not be asked (the caller counts it as trouble), else undefined.
   */
  async #checkQueue(): Promise<unknown> {
    const { nats, stream, consumerName } = this.#o;
    let code: number | undefined;
    try {
      const jsm = await jetstreamManager(nats.connection, { ...nats.jetstream, timeout: 5_000 });
      await jsm.consumers.info(stream, consumerName);
      return undefined;
    } catch (err) {
      code = apiCode(err);
      if (code !== JetStreamApiCodes.ConsumerNotFound && code !== JetStreamApiCodes.StreamNotFound) return err ?? new Error('no answer');
    }
    const streamGone = await jetstreamManager(nats.connection, { ...nats.jetstream, timeout: 5_000 })
      .then((jsm) => jsm.streams.info(stream))
      .then(
        () => false,
        (err: unknown) => apiCode(err) === JetStreamApiCodes.StreamNotFound,
      );
    if (streamGone || code === JetStreamApiCodes.StreamNotFound) {
      throw new Error(
        `the jobs stream ${stream} is gone; this worker stops. Recreate it with: ${this.#o.recreate.stream} and then ${this.#o.recreate.consumer}`,
      );
    }
    throw new Error(
      `the jobs consumer ${consumerName} on stream ${stream} is gone; this worker stops. Recreate it with: ${this.#o.recreate.consumer}`,
    );
  }

  #trouble(err: unknown): void {
    this.#troubleSince ??= Date.now();
    this.#lastTrouble = err instanceof Error ? err.message : String(err);
    const outFor = Date.now() - this.#troubleSince;
    if (outFor > this.#o.unreachableAfterMs) {
      throw new Error(
        `cannot pull jobs from ${this.#o.stream} via NATS context ${this.#o.nats.context.name} for ${Math.round(outFor / 1000)} s (${this.#lastTrouble}); this worker stops so a supervisor can restart it`,
        { cause: err },
      );
    }
  }

  /** The next message, or null once `signal` or the channel's close aborted. */
  async next(signal: AbortSignal): Promise<JsMsg | null> {
    const { nats, consumer, closing } = this.#o;
    let quiet = 250;
    for (;;) {
      if (signal.aborted || closing.aborted) return null;
      if (nats.connection.isClosed())
        throw new Error(`the NATS connection to context ${nats.context.name} closed and could not be restored; this worker stops`);
      this.#pending ??= consumer.next({ expires: PULL_EXPIRES_MS });
      const mine = this.#pending;
      let on = (): void => undefined;
      const stop = new Promise<'stop'>((resolve) => {
        on = (): void => resolve('stop');
        signal.addEventListener('abort', on, { once: true });
        closing.addEventListener('abort', on, { once: true });
      });
      let got: JsMsg | null | 'stop';
      try {
        got = await Promise.race([mine, stop]);
      } catch (err) {
        this.#pending = undefined;
        await this.#checkQueue();
        this.#trouble(err);
        await new Promise((r) => setTimeout(r, quiet).unref());
        quiet = Math.min(quiet * 2, 5_000);
        continue;
      } finally {
        signal.removeEventListener('abort', on);
        closing.removeEventListener('abort', on);
      }
      if (got === 'stop') {
        // a message that arrives for the abandoned pull goes straight back to the queue
        void mine.then((m) => (m === null ? undefined : this.#o.handBack(m))).catch(() => undefined);
        this.#pending = undefined;
        return null;
      }
      this.#pending = undefined;
      if (got !== null) {
        this.#troubleSince = undefined;
        return got;
      }
      // an empty pull: the queue is idle, its consumer was deleted and nothing says so, or the
      // server is out of reach; only a queue that answered ends the trouble
      const unanswered = await this.#checkQueue();
      if (unanswered !== undefined) {
        this.#trouble(unanswered);
        continue;
      }
      this.#troubleSince = undefined;
      quiet = 250;
    }
  }
}
