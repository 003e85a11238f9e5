/**
 * One NATS connection per context, shared by every store and peer of a runtime that needs it. A
 * store or a peer borrows the connection; only the pool closes it, when the runtime closes.
 */
import type { NatsConn } from '../conns/nats-connect.js';

/** The NATS client loads with the first connection, so a runtime that needs none never pays for it. */
async function connectNats(
  context: string,
  opts: { readonly env: Readonly<Record<string, string | undefined>>; readonly name: string },
): Promise<NatsConn> {
  const { connectNats: connect } = await import('../conns/nats-connect.js');
  // the runtime lives as long as its process and closes its connections itself: an outage of
  // any length is ridden out, never turned into a connection closed for good
  return connect(context, { ...opts, keepReconnecting: true });
}

/** Connections by context name, opened on first use. */
export class ConnectionPool {
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #name: string;
  readonly #open = new Map<string, Promise<NatsConn>>();

  constructor(env: Readonly<Record<string, string | undefined>>, name: string) {
    this.#env = env;
    this.#name = name;
  }

  /** The connection for `context`, connecting once; a failed connect is not cached. */
  connection(context: string): Promise<NatsConn> {
    let conn = this.#open.get(context);
    if (conn === undefined) {
      conn = connectNats(context, { env: this.#env, name: this.#name });
      this.#open.set(context, conn);
      conn.catch(() => this.#open.delete(context));
    }
    return conn;
  }

  /** The connection for `context` if one was asked for already (it may still be connecting); never connects. */
  opened(context: string): Promise<NatsConn> | undefined {
    return this.#open.get(context);
  }

  /** Closes every connection opened here. Idempotent. */
  async close(): Promise<void> {
    const all = [...this.#open.values()];
    this.#open.clear();
    await Promise.all(
      all.map(async (p) => {
        try {
          const c = (await p).connection;
          if (!c.isClosed()) await c.close();
        } catch {
          // a connection that never opened has nothing to close
        }
      }),
    );
  }
}
