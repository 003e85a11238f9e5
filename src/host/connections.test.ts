import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer } from '../agenttest/nats-server.js';
import type { NatsServer } from '../agenttest/nats-server.js';
import { ConnectionPool } from './connections.js';

let nats: NatsServer;
let home: string;

beforeAll(async () => {
  nats = await startNatsServer();
  home = mkdtempSync(join(tmpdir(), 'fisk-pool-'));
  mkdirSync(join(home, 'nats', 'context'), { recursive: true });
  writeFileSync(join(home, 'nats', 'context', 'pooled.json'), JSON.stringify({ url: nats.url }));
}, 30_000);

afterAll(async () => {
  await nats.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('ConnectionPool', () => {
  it("opens its connections never to give up reconnecting: an outage longer than the client's own limit is ridden out", async () => {
    const pool = new ConnectionPool({ HOME: home, XDG_CONFIG_HOME: home }, 'fisk-ai pooled');
    expect(pool.opened('pooled')).toBeUndefined();
    try {
      const { connection } = await pool.connection('pooled');
      expect(pool.opened('pooled')).toBeDefined();
      // the client gives up after maxReconnectAttempts (10 by default, about 20 s) and closes the
      // connection for good; a served agent's must keep trying however long NATS is away
      expect((connection as unknown as { options: { maxReconnectAttempts?: number } }).options.maxReconnectAttempts).toBe(-1);
    } finally {
      await pool.close();
    }
  });
});
