/**
 * The session stores as the package offers them to embedders: everything in `index.ts` and the
 * JetStream backend. Code inside the tree imports `index.ts` (or the JetStream modules directly),
 * so a process that keeps its sessions in files never loads the NATS client.
 */
export * from './index.js';
export { jetstreamSessionStore } from './jetstream/store.js';
export { checkStream, streamAddCommand } from './jetstream/stream-check.js';
