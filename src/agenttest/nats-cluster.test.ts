import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsCluster } from './nats-cluster.js';
import type { NatsCluster } from './nats-cluster.js';

describe('startNatsCluster', () => {
  let cluster: NatsCluster;
  beforeAll(async () => {
    cluster = await startNatsCluster();
  }, 30_000);
  afterAll(async () => {
    await cluster.stop();
  });

  it('serves a replicated stream that survives its leader being killed', async () => {
    expect(cluster.nodes.map((n) => n.name)).toEqual(['n1', 'n2', 'n3']);
    expect(cluster.url.split(',')).toHaveLength(3);
    const nc = await connect({ servers: cluster.url.split(','), reconnectTimeWait: 100 });
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: 'R3', subjects: ['r3.>'], num_replicas: 3 });
      const js = jetstream(nc);
      await js.publish('r3.a', 'one');
      const leader = await cluster.streamLeader('R3');
      await leader.kill();
      expect(leader.running).toBe(false);
      const next = await cluster.streamLeader('R3');
      expect(next.name).not.toBe(leader.name);
      await js.publish('r3.a', 'two', { timeout: 5_000 });
      expect((await jsm.streams.info('R3')).state.messages).toBe(2);
      await leader.restart();
      expect(leader.running).toBe(true);
      expect(() => cluster.node('n9')).toThrow(/no node "n9"/u);
    } finally {
      await nc.close();
    }
  }, 60_000);
});
