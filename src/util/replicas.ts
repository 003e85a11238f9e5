/**
 * How many replicas a stream or bucket should have on the NATS server a connection reached: three
 * on a server that is part of a cluster (a node can be lost without losing data), one on a server
 * on its own, where more cannot be placed. Every provisioning command fisk-ai prints, and
 * `fisk provision`, start from this.
 */

/** The part of a NATS connection this reads: the INFO the server sent. */
export interface ServerInfoHolder {
  readonly info?: { readonly cluster?: string | undefined } | undefined;
}

/** Whether the connected server says it belongs to a cluster. */
export function inCluster(connection: ServerInfoHolder): boolean {
  const cluster = connection.info?.cluster;
  return typeof cluster === 'string' && cluster !== '';
}

/** The replica count to provision with: 3 on a cluster, 1 otherwise. */
export function suggestedReplicas(connection: ServerInfoHolder): number {
  return inCluster(connection) ? 3 : 1;
}
