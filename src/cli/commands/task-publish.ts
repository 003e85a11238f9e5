/**
 * The publish `fisk task submit` and `fisk task retry` share: it rides out a JetStream leader
 * election or a reconnect within a deadline, and never queues a job twice, since every attempt of
 * one submission carries one message id the stream's duplicate window recognises.
 */
import { jetstream } from '@nats-io/jetstream';
import type { PubAck } from '@nats-io/jetstream';
import { headers } from '@nats-io/transport-node';
import type { Config } from '../../config/index.js';
import type { NatsConn } from '../../conns/nats-connect.js';
import { isTransientNatsError } from '../../conns/transient.js';
import { isRetryableFailure } from '../../errors/index.js';
import { bindQueue } from '../../serve/index.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';

/** How long a submission keeps trying through a leader election or a reconnect. */
export const SUBMIT_DEADLINE_MS = 30_000;

/** Runs `fn` again while it fails in a way a later attempt may get past, until the deadline. */
export async function untilDeadline<T>(what: string, fn: () => Promise<T>, deadlineMs = SUBMIT_DEADLINE_MS): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  let pause = 100;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      const transient = isTransientNatsError(err) || isRetryableFailure(err);
      if (!transient || Date.now() + pause > deadline) {
        if (transient)
          throw new CliError(`${what} did not succeed within ${Math.round(deadlineMs / 1000)} s: ${(err as Error).message}`, EXIT.error, {
            cause: err,
          });
        throw err;
      }
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(pause * 2, 2_000);
    }
  }
}

/** The subject jobs are published on, found by binding the configured queue (retried through elections). */
export async function queueSubject(config: Config, conn: NatsConn): Promise<{ stream: string; subject: string }> {
  const jobs = config.expose.jobs as NonNullable<Config['expose']['jobs']>;
  try {
    const bound = await untilDeadline(`binding the work queue ${jobs.stream}`, () =>
      bindQueue(conn, jobs.stream, jobs.consumer === '' ? config.identity : jobs.consumer),
    );
    return { stream: jobs.stream, subject: bound.subject };
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError((err as Error).message, EXIT.config, { cause: err });
  }
}

/**
 * Publishes one job, retried through elections. Every attempt carries the same `msgId`, so the
 * stream's duplicate window keeps a retried publish whose first ack was lost from queuing twice.
 */
export async function publishJob(conn: NatsConn, subject: string, data: Uint8Array, msgId: string): Promise<PubAck> {
  const js = jetstream(conn.connection, conn.jetstream);
  return untilDeadline('publishing the job', () => {
    const h = headers();
    h.set('Nats-Msg-Id', msgId);
    return js.publish(subject, data, { headers: h, timeout: 5_000 });
  });
}
