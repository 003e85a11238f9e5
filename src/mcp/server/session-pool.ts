/**
 * The open client sessions of the streamable HTTP listener, capped and expiring: a session with no
 * request open and none arriving for the idle limit is closed, and a newcomer over the cap takes
 * the place of the session idle longest, so clients that vanish without closing cannot pile up.
 */
import type { ServerResponse } from 'node:http';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** One open client session: its transport and whether it is in use. */
interface SessionState {
  readonly transport: StreamableHTTPServerTransport;
  /** Requests of this session still open (a held-open event stream counts). */
  open: number;
  /** When the last request of this session ended or began. */
  lastSeen: number;
}

export class SessionPool {
  /** Open sessions allowed at once. */
  readonly max: number;
  readonly #idleMs: number;
  readonly #sessions = new Map<string, SessionState>();
  readonly #sweep: NodeJS.Timeout;
  /** Sessions still initializing, counted against the cap so simultaneous newcomers cannot all slip under it. */
  #starting = 0;

  constructor(max: number, idleMs: number) {
    this.max = max;
    this.#idleMs = idleMs;
    this.#sweep = setInterval(() => this.#expire(), Math.min(60_000, Math.max(50, Math.floor(idleMs / 4))));
    this.#sweep.unref();
  }

  /** Open sessions. */
  get size(): number {
    return this.#sessions.size;
  }

  /** The transport of open session `id`, counted as in use until `res` closes; undefined for a session it does not hold. */
  use(id: string, res: ServerResponse): StreamableHTTPServerTransport | undefined {
    const state = this.#sessions.get(id);
    if (state === undefined) return undefined;
    this.#track(state, res);
    return state.transport;
  }

  /** Makes room for one more session: the longest-idle ones go; `false` when the rest are in use. */
  makeRoom(): boolean {
    while (this.#sessions.size + this.#starting >= this.max) {
      let oldest: [string, SessionState] | undefined;
      for (const entry of this.#sessions) {
        if (entry[1].open === 0 && (oldest === undefined || entry[1].lastSeen < oldest[1].lastSeen)) oldest = entry;
      }
      if (oldest === undefined) return false;
      this.#sessions.delete(oldest[0]);
      void oldest[1].transport.close();
    }
    return true;
  }

  /** Runs a new session's first request, counting the session against the cap while it initializes. */
  async starting(initialize: () => Promise<void>): Promise<void> {
    this.#starting++;
    try {
      await initialize();
    } finally {
      this.#starting--;
    }
  }

  /** Holds a session once its transport has an id, in use until `res`, the request that opened it, closes. */
  add(id: string, transport: StreamableHTTPServerTransport, res: ServerResponse): void {
    const state: SessionState = { transport, open: 0, lastSeen: Date.now() };
    this.#sessions.set(id, state);
    this.#track(state, res);
  }

  /** Lets go of a session whose transport closed, unless its id is held by another transport. */
  forget(transport: StreamableHTTPServerTransport): void {
    if (transport.sessionId !== undefined && this.#sessions.get(transport.sessionId)?.transport === transport)
      this.#sessions.delete(transport.sessionId);
  }

  /** Stops expiring sessions. */
  stopSweeping(): void {
    clearInterval(this.#sweep);
  }

  /** Closes every session, ending held-open event streams and aborting anything left over. */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.#sessions.values()].map((s) => s.transport.close()));
    this.#sessions.clear();
  }

  #track(state: SessionState, res: ServerResponse): void {
    state.open++;
    state.lastSeen = Date.now();
    res.once('close', () => {
      state.open--;
      state.lastSeen = Date.now();
    });
  }

  #expire(): void {
    const now = Date.now();
    for (const s of this.#sessions.values()) if ((s.open > 0 ? 0 : now - s.lastSeen) >= this.#idleMs) void s.transport.close();
  }
}
