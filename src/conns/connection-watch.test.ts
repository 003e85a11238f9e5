import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../agenttest/eventually.js';
import { startNatsServer } from '../agenttest/nats-server.js';
import type { NatsServer } from '../agenttest/nats-server.js';
import { ConnectionWatch } from './connection-watch.js';
import { redactServer } from './nats-connect.js';

let nats: NatsServer;

beforeAll(async () => {
  nats = await startNatsServer();
}, 30_000);

afterAll(async () => {
  await nats.stop();
});

describe('ConnectionWatch', () => {
  it('tells each drop once and each return once, with how long the connection was down', async () => {
    const connection: NatsConnection = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    const told: string[] = [];
    let clock = 1_000;
    const watch = new ConnectionWatch(
      connection,
      'watched',
      {
        dropped: (server) => told.push(`dropped ${server}`),
        restored: (server, downMs) => told.push(`restored ${server} after ${downMs}`),
      },
      () => clock,
    );
    try {
      expect(watch.notReady()).toBeUndefined();
      await nats.kill();
      await eventually(() => told.length === 1, 'the drop to be told');
      expect(told).toEqual([`dropped 127.0.0.1:${nats.port}`]);
      expect(watch.notReady()).toBe('the NATS connection (context watched) is down, reconnecting');
      // every failed reconnect attempt is a status event of its own: none is told again
      await new Promise((r) => setTimeout(r, 400));
      expect(told).toHaveLength(1);
      clock += 2_500;
      await nats.restart();
      await eventually(() => told.length === 2, 'the return to be told');
      expect(told[1]).toBe(`restored 127.0.0.1:${nats.port} after 2500`);
      expect(watch.notReady()).toBeUndefined();
    } finally {
      await connection.close();
    }
    expect(watch.notReady()).toBe('the NATS connection (context watched) is closed');
  }, 30_000);

  it('never names a password in a server', () => {
    expect(redactServer('nats://user:s3cret@127.0.0.1:4222')).toBe('nats://***@127.0.0.1:4222');
    expect(redactServer('127.0.0.1:4222')).toBe('127.0.0.1:4222');
  });
});
