import { Kvm } from '@nats-io/kv';
import type { KV } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer } from '../../agenttest/nats-server.js';
import type { NatsServer } from '../../agenttest/nats-server.js';
import { MemoryError } from '../errors.js';
import { MAX_ENTRIES, MAX_ENTRY_BYTES } from '../limits.js';
import { Scope } from '../scope.js';
import { memoryTools } from '../tools.js';
import { JetStreamStore } from './jetstream-store.js';

let server: NatsServer;
let nc: NatsConnection;
let other: NatsConnection;
let kv: KV;
let n = 0;
const bucket = 'mem';

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  other = await connect({ servers: server.url });
  kv = await new Kvm(nc).create(bucket, { history: 3 });
});

afterAll(async () => {
  await nc.close();
  await other.close();
  await server.stop();
});

async function failure(p: Promise<unknown>): Promise<MemoryError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(MemoryError);
    return err as MemoryError;
  }
  throw new Error('expected the call to fail');
}

function prefix(): string {
  return `agent${++n}`;
}

describe('binding the bucket', () => {
  it('refuses a missing bucket with the command that creates it, and creates nothing', async () => {
    const err = await failure(JetStreamStore.open({ nats: nc, bucket: 'absent', prefix: 'p', context: 'prod' }));
    expect(err.code).toBe('bucket_missing');
    expect(err.message).toContain('nats kv add absent --history 1 --storage file --replicas 1 --context prod');
    expect(err.message).toContain('harness.memory.options.bucket');
    const names: string[] = [];
    for await (const s of new Kvm(nc).list()) names.push(s.bucket);
    expect(names).not.toContain('absent');
  });

  it('refuses a bucket with a TTL', async () => {
    await new Kvm(nc).create('withttl', { ttl: 60_000 });
    const err = await failure(JetStreamStore.open({ nats: nc, bucket: 'withttl', prefix: 'p' }));
    expect(err.code).toBe('bucket_unsuitable');
    expect(err.message).toMatch(/TTL/u);
  });

  it('refuses a bucket whose values are smaller than the largest entry, and takes one just large enough', async () => {
    await new Kvm(nc).create('small', { maxValueSize: MAX_ENTRY_BYTES - 1 });
    const err = await failure(JetStreamStore.open({ nats: nc, bucket: 'small', prefix: 'p' }));
    expect(err.code).toBe('bucket_unsuitable');
    expect(err.message).toContain(String(MAX_ENTRY_BYTES));
    await new Kvm(nc).create('enough', { maxValueSize: MAX_ENTRY_BYTES });
    await expect(JetStreamStore.open({ nats: nc, bucket: 'enough', prefix: 'p' })).resolves.toBeInstanceOf(JetStreamStore);
  });

  it('refuses an illegal bucket name or prefix before contacting the server', async () => {
    expect((await failure(JetStreamStore.open({ nats: nc, bucket: 'a.b', prefix: 'p' }))).message).toMatch(/bucket/u);
    expect((await failure(JetStreamStore.open({ nats: nc, bucket, prefix: 'a..b' }))).code).toBe('invalid_key');
  });

  it('gives up binding after its timeout when the server is gone, leaving the connection to its owner', async () => {
    const lonely = await startNatsServer();
    const conn = await connect({ servers: lonely.url, maxReconnectAttempts: -1, reconnectTimeWait: 50 });
    try {
      await lonely.kill();
      const err = await failure(JetStreamStore.open({ nats: conn, bucket, prefix: 'p', bindTimeoutMs: 300 }));
      expect(err.code).toBe('unavailable');
      expect(conn.isClosed()).toBe(false);
    } finally {
      await conn.close();
      await lonely.stop();
    }
  });
});

describe('keys and prefixes', () => {
  it('stores under <prefix>.<key> and keeps prefixes apart', async () => {
    const p1 = prefix();
    const p2 = prefix();
    const a = await JetStreamStore.open({ nats: nc, bucket, prefix: p1 });
    const b = await JetStreamStore.open({ nats: nc, bucket, prefix: p2 });
    await a.create('notes.x', 'from a', 'A');
    await b.create('notes.x', 'from b', 'B');
    expect((await kv.get(`${p1}.notes.x`))?.string()).toContain('from a');
    expect(await a.list()).toEqual([{ key: 'notes.x', description: 'from a' }]);
    expect((await b.read('notes.x')).content).toBe('B');
    expect(a.info()).toEqual({ backend: 'jetstream', location: `${bucket}/${p1}` });
  });

  it('uses a flat keyspace with an empty prefix', async () => {
    const raw = await new Kvm(nc).create('flat');
    const flat = await JetStreamStore.open({ nats: nc, bucket: 'flat', prefix: '' });
    await flat.create('top', 'flat key', 'x');
    expect((await raw.get('top'))?.operation).toBe('PUT');
    expect(await flat.list()).toEqual([{ key: 'top', description: 'flat key' }]);
    expect(flat.info().location).toBe('flat');
  });
});

describe('read before update', () => {
  it('refuses an update of a key this scope never read, and one seen only in a listing', async () => {
    const store = await JetStreamStore.open({ nats: nc, bucket, prefix: prefix() });
    await store.create('k', 'd', 'v1');
    expect((await failure(store.update('k', 'd', 'v2'))).code).toBe('stale');
    const scope = new Scope();
    await store.list({ scope });
    expect((await failure(store.update('k', 'd', 'v2', { scope }))).code).toBe('stale');
    expect((await store.read('k')).content).toBe('v1');
  });

  it('refuses the second of two agents updating one key from the same read: no lost update', async () => {
    const p = prefix();
    const one = await JetStreamStore.open({ nats: nc, bucket, prefix: p });
    const two = await JetStreamStore.open({ nats: other, bucket, prefix: p });
    await one.create('shared', 'd', 'base');
    const s1 = new Scope();
    const s2 = new Scope();
    await one.read('shared', { scope: s1 });
    await two.read('shared', { scope: s2 });
    await one.update('shared', 'd', 'from one', { scope: s1 });
    const err = await failure(two.update('shared', 'd', 'from two', { scope: s2 }));
    expect(err.code).toBe('stale');
    expect((await one.read('shared')).content).toBe('from one');
    // Reading again grants the authority back.
    await two.read('shared', { scope: s2 });
    await two.update('shared', 'd', 'from two', { scope: s2 });
    expect((await one.read('shared')).content).toBe('from two');
  });

  it('lets exactly one of two simultaneous updates through', async () => {
    const p = prefix();
    const one = await JetStreamStore.open({ nats: nc, bucket, prefix: p });
    const two = await JetStreamStore.open({ nats: other, bucket, prefix: p });
    await one.create('hot', 'd', 'base');
    const s1 = new Scope();
    const s2 = new Scope();
    await one.read('hot', { scope: s1 });
    await two.read('hot', { scope: s2 });
    const results = await Promise.allSettled([one.update('hot', 'd', 'one', { scope: s1 }), two.update('hot', 'd', 'two', { scope: s2 })]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect((rejected?.reason as MemoryError).code).toBe('stale');
  });

  it('refuses an update with a revision from before a delete and re-create', async () => {
    const store = await JetStreamStore.open({ nats: nc, bucket, prefix: prefix() });
    const twin = await JetStreamStore.open({ nats: other, bucket, prefix: `agent${n}` });
    await store.create('k', 'd', 'v1');
    const scope = new Scope();
    await store.read('k', { scope });
    await twin.delete('k');
    await twin.create('k', 'd', 'recreated');
    expect((await failure(store.update('k', 'd', 'v2', { scope }))).code).toBe('stale');
    expect((await store.read('k')).content).toBe('recreated');
  });

  it('carries its authority across a suspend through the scope snapshot', async () => {
    const store = await JetStreamStore.open({ nats: nc, bucket, prefix: prefix() });
    await store.create('k', 'd', 'v1');
    const before = new Scope();
    await store.read('k', { scope: before });
    const resumed = Scope.restore(JSON.parse(JSON.stringify(before.snapshot())));
    await store.update('k', 'd', 'v2', { scope: resumed });
    expect((await store.read('k')).content).toBe('v2');
  });

  it('writes without a read when the check is turned off', async () => {
    const store = await JetStreamStore.open({ nats: nc, bucket, prefix: prefix(), requireReadBeforeUpdate: false });
    await store.create('k', 'd', 'v1');
    await store.update('k', 'd', 'v2');
    await store.update('new', 'd', 'fresh');
    expect((await store.read('k')).content).toBe('v2');
    expect((await store.read('new')).content).toBe('fresh');
  });
});

describe('the memory tools on JetStream', () => {
  it('tell the model to read and retry when it overwrites without reading, then succeed after a read', async () => {
    const store = await JetStreamStore.open({ nats: nc, bucket, prefix: prefix() });
    await store.create('k', 'someone else wrote this', 'v1');
    const tools = memoryTools(store, new Scope());
    const run = async (name: string, input: unknown): Promise<{ output: string; isError: boolean }> => {
      const t = tools.find((x) => x.name === name);
      const out = await t?.execute(JSON.stringify(input), {}, new AbortController().signal);
      if (out?.status !== 'completed') throw new Error('expected a completed outcome');
      return out;
    };
    const refused = await run('memory_write', { key: 'k', description: 'mine', content: 'v2', overwrite: true });
    expect(refused.isError).toBe(true);
    expect(JSON.parse(refused.output)).toMatchObject({ error: 'stale', key: 'k' });
    const exists = await run('memory_write', { key: 'k', description: 'mine', content: 'v2' });
    expect(JSON.parse(exists.output)).toMatchObject({ error: 'exists', existing_description: 'someone else wrote this' });
    // The exists refusal's own read does not grant authority.
    expect((await run('memory_write', { key: 'k', description: 'mine', content: 'v2', overwrite: true })).isError).toBe(true);
    await run('memory_read', { key: 'k' });
    expect((await run('memory_write', { key: 'k', description: 'mine', content: 'v2', overwrite: true })).isError).toBe(false);
    expect(await store.read('k')).toEqual({ description: 'mine', content: 'v2' });
  });
});

describe('capacity per run', () => {
  it('counts once per run and keeps the tally through creates and deletes', async () => {
    const p = prefix();
    const store = await JetStreamStore.open({ nats: nc, bucket, prefix: p });
    for (let i = 0; i < MAX_ENTRIES - 2; i += 128) {
      await Promise.all(Array.from({ length: Math.min(128, MAX_ENTRIES - 2 - i) }, (_, j) => kv.put(`${p}.seed${i + j}`, 'x')));
    }
    const scope = new Scope();
    await store.create('a', 'd', 'c', { scope });
    await store.create('b', 'd', 'c', { scope });
    expect((await failure(store.create('c', 'd', 'c', { scope }))).code).toBe('full');
    expect(await store.delete('a', { scope })).toBe(true);
    await store.create('c', 'd', 'c', { scope });
    expect((await failure(store.create('d', 'd', 'c', { scope }))).code).toBe('full');
    // Without a scope every create counts afresh.
    expect((await failure(store.create('d', 'd', 'c'))).code).toBe('full');
  });
});
