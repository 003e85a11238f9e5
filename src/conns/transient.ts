/**
 * Which failures of the NATS client and of JetStream a later attempt may get past: a request that
 * timed out, a connection that dropped or is reconnecting, nobody answering the JetStream API (a
 * stream or the meta group between leaders), or a server-side 5xx. Decided from the error's class
 * and status, never its text, so each store can mark its own errors retryable where it makes them.
 */
import { JetStreamApiError, JetStreamError } from '@nats-io/jetstream';
import {
  ClosedConnectionError,
  ConnectionError,
  DrainingConnectionError,
  NoRespondersError,
  RequestError,
  TimeoutError,
} from '@nats-io/transport-node';

/** How deep a chain of causes is followed. */
const MAX_DEPTH = 6;

function transientHere(err: unknown): boolean {
  if (err instanceof TimeoutError || err instanceof NoRespondersError || err instanceof ConnectionError) return true;
  if (err instanceof ClosedConnectionError || err instanceof DrainingConnectionError) return true;
  if (err instanceof RequestError) return err.isNoResponders();
  if (err instanceof JetStreamApiError) return err.status === 408 || err.status >= 500;
  // a pull's status (408 request timeout, 503 no responders); 409s are about the consumer itself
  if (err instanceof JetStreamError && 'code' in err && typeof err.code === 'number') return err.code === 408 || err.code >= 500;
  return false;
}

/** Whether `err`, or an error it was caused by, is a NATS or JetStream failure worth retrying. */
export function isTransientNatsError(err: unknown): boolean {
  let at: unknown = err;
  for (let i = 0; i < MAX_DEPTH && at !== undefined && at !== null; i++) {
    if (transientHere(at)) return true;
    at = at instanceof Error ? at.cause : undefined;
  }
  return false;
}
