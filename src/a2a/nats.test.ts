import { connect } from '@nats-io/transport-node';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer } from '../agenttest/nats-server.js';
import type { NatsServer } from '../agenttest/nats-server.js';
import { A2aError } from './errors.js';
import { createTransport } from './registry.js';

let server: NatsServer;
let serving: NatsConnection;
const conns: NatsConnection[] = [];
beforeAll(async () => {
  server = await startNatsServer();
  serving = await connect({ servers: server.url });
  conns.push(serving);
});
afterAll(async () => {
  for (const c of conns) if (!c.isClosed()) await c.close();
  await server.stop();
});

async function calling(): Promise<NatsConnection> {
  const c = await connect({ servers: server.url });
  conns.push(c);
  return c;
}

const text = (data: Uint8Array): string => new TextDecoder().decode(data);
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

async function failure(p: Promise<unknown>): Promise<A2aError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof A2aError) return err;
    throw err;
  }
  throw new Error('expected a failure');
}

describe('nats transport requests', () => {
  it('matches each reply to its own request when replies come back in another order', async () => {
    const held: Msg[] = [];
    const sub = serving.subscribe('mux.reverse', {
      callback: (_err, msg) => {
        held.push(msg);
        // answer all of them at once, newest first
        if (held.length === 40) for (const m of held.reverse()) m.respond(bytes(`re:${text(m.data)}`));
      },
    });
    await serving.flush();
    const t = createTransport('nats', { connection: await calling(), timeoutMs: 5000 });
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => t.request('mux.reverse', bytes(String(i)))));
    expect(replies.map(text)).toEqual(Array.from({ length: 40 }, (_, i) => `re:${i}`));
    sub.unsubscribe();
  });

  it('gives up at the deadline, ignores the late reply, and keeps working', async () => {
    let calls = 0;
    let first: Msg | undefined;
    const sub = serving.subscribe('mux.slow', {
      callback: (_err, msg) => {
        calls++;
        // the first request is answered only after its deadline, the rest at once
        if (calls === 1) first = msg;
        else msg.respond(bytes(`on time ${calls}`));
      },
    });
    await serving.flush();
    const t = createTransport('nats', { connection: await calling(), timeoutMs: 5000 });
    const err = await failure(t.request('mux.slow', bytes('x'), { timeoutMs: 100 }));
    // the request went out and may have been acted on: lost, not unavailable
    expect([err.code, err.message]).toEqual(['lost', 'remote agent did not answer: no reply on mux.slow within 100 ms']);
    // the late reply goes out before the next request does, so it reaches the caller first
    first?.respond(bytes('late'));
    expect(text(await t.request('mux.slow', bytes('y')))).toBe('on time 2');
    sub.unsubscribe();
  });

  it('reports nobody subscribed as no responders, at once rather than at the deadline', async () => {
    // a deadline past the test's own timeout: an answer at all means it came before the deadline,
    // and a deadline would have said "lost"
    const t = createTransport('nats', { connection: await calling(), timeoutMs: 600_000 });
    const err = await failure(t.request('mux.nobody', bytes('x')));
    expect([err.code, err.message]).toEqual(['unavailable', 'remote agent unavailable: no responders on mux.nobody']);
  });

  it('fails a waiting request when its connection closes, without waiting for the deadline', async () => {
    const sub = serving.subscribe('mux.never', { callback: () => undefined });
    await serving.flush();
    const nc = await calling();
    const t = createTransport('nats', { connection: nc, timeoutMs: 60_000 });
    const waiting = failure(t.request('mux.never', bytes('x')));
    await nc.flush();
    await nc.close();
    const err = await waiting;
    expect(err.code).toBe('lost');
    expect(err.message).toMatch(/^remote agent did not answer on mux\.never: /);
    // a request the closed connection could not even send reached nobody
    const after = await failure(t.request('mux.never', bytes('y')));
    expect(after.code).toBe('unavailable');
    sub.unsubscribe();
  });

  it('refuses a timeout that is not a positive number of milliseconds', async () => {
    const t = createTransport('nats', { connection: await calling() });
    const err = await failure(t.request('mux.any', bytes('x'), { timeoutMs: 0 }));
    expect(err.message).toBe('the a2a request timeout must be a positive number of milliseconds, not 0');
  });
});

describe('nats transport requests under subject permissions', () => {
  it('fails a request the account may not publish at once, naming the violation, and keeps the connection', async () => {
    const guarded = await startNatsServer({
      config: `authorization {
  users = [
    { user: "caller", password: "caller-pw", permissions: { publish: { deny: ["forbidden.>"] } } }
    { user: "server", password: "server-pw" }
  ]
}
`,
    });
    try {
      const srv = await connect({ servers: guarded.url, user: 'server', pass: 'server-pw' });
      srv.subscribe('forbidden.x', {
        callback: (_e, m) => {
          m.respond(bytes('should not happen'));
        },
      });
      srv.subscribe('allowed.x', {
        callback: (_e, m) => {
          m.respond(bytes('fine'));
        },
      });
      await srv.flush();
      const nc = await connect({ servers: guarded.url, user: 'caller', pass: 'caller-pw' });
      // a deadline past the test's own timeout: the refusal has to come from the server, not the clock
      const transport = createTransport('nats', { connection: nc, timeoutMs: 600_000 });
      const err = await failure(transport.request('forbidden.x', bytes('x')));
      expect(err.code).toBe('unavailable');
      expect(err.message).toMatch(/^remote agent unavailable: .*Permissions Violation for Publish to "forbidden\.x"/i);
      expect(text(await transport.request('allowed.x', bytes('y')))).toBe('fine');
      await nc.close();
      await srv.close();
    } finally {
      await guarded.stop();
    }
  });
});
