/**
 * Connections to the outside services agents use, built from operator-managed configuration
 * (NATS CLI contexts). Whoever builds a connection owns it; everything handed one borrows it.
 */
export { ConnError, CONN_ERROR_CODES } from './errors.js';
export type { ConnErrorCode } from './errors.js';
export { loadNatsContext, natsContextDir } from './nats-context.js';
export type { NatsContext } from './nats-context.js';
export { connectNats, connectionOptions, redactServer } from './nats-connect.js';
export type { ConnectNatsOptions, NatsConn } from './nats-connect.js';
export { ConnectionWatch } from './connection-watch.js';
export type { ConnectionListener } from './connection-watch.js';
