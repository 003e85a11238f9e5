import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer } from './nats-server.js';
import type { NatsServer } from './nats-server.js';

describe('startNatsServer', () => {
  let server: NatsServer;
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('serves JetStream on a private loopback port', async () => {
    expect(server.url).toMatch(/^nats:\/\/127\.0\.0\.1:\d+$/);
    expect(server.port).not.toBe(4222);
    const nc = await connect({ servers: server.url });
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: 'probe', subjects: ['probe.>'] });
      const info = await jsm.streams.info('probe');
      expect(info.config.name).toBe('probe');
    } finally {
      await nc.close();
    }
  });

  it('keeps JetStream data across a kill and restart', async () => {
    await server.kill();
    await expect(connect({ servers: server.url, reconnect: false, timeout: 500 })).rejects.toThrow();
    await server.restart();
    const nc = await connect({ servers: server.url });
    try {
      const jsm = await jetstreamManager(nc);
      const info = await jsm.streams.info('probe');
      expect(info.config.name).toBe('probe');
    } finally {
      await nc.close();
    }
  });

  it('removes its store directory when stopped', async () => {
    const other = await startNatsServer();
    expect(existsSync(other.storeDir)).toBe(true);
    await other.stop();
    expect(existsSync(other.storeDir)).toBe(false);
  });
});
