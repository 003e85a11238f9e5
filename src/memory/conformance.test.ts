/**
 * One conformance suite for the Store contract, run against every backend: the file backend on a
 * temp directory and the JetStream KV backend on a private nats-server.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kvm } from '@nats-io/kv';
import type { KV } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer } from '../agenttest/nats-server.js';
import type { NatsServer } from '../agenttest/nats-server.js';
import { MemoryError } from './errors.js';
import { FileStore } from './file/file-store.js';
import { JetStreamStore } from './jetstream/jetstream-store.js';
import { MAX_CONTENT_BYTES, MAX_ENTRIES } from './limits.js';
import { Scope } from './scope.js';
import { serializeEntry } from './serialize.js';
import type { Store } from './store.js';

/** A backend under test: fresh isolated stores, a second view of the same backing, raw seeding. */
interface Backing {
  readonly store: Store;
  /** Another store on the same backing, as a second process would open it. */
  readonly twin: Store;
  /** Writes stored text directly, bypassing the store (a hand-written entry). */
  seed(key: string, text: string): Promise<void>;
}

interface Harness {
  readonly name: string;
  readonly backend: string;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  fresh(): Promise<Backing>;
  /** A store whose backing is gone: any I/O fails, so only validation can answer. */
  broken(): Promise<Store>;
}

function fileHarness(): Harness {
  const root = mkdtempSync(join(tmpdir(), 'fisk-mem-conf-'));
  let counter = 0;
  return {
    name: 'file',
    backend: 'file',
    setup: () => Promise.resolve(),
    teardown: () => {
      rmSync(root, { recursive: true, force: true });
      return Promise.resolve();
    },
    async fresh() {
      const dir = join(root, `s${++counter}`);
      const store = await FileStore.open(dir);
      return {
        store,
        twin: await FileStore.open(dir),
        seed: (key, text) => {
          writeFileSync(join(dir, `${key}.md`), text, { mode: 0o600 });
          return Promise.resolve();
        },
      };
    },
    async broken() {
      const dir = join(root, `gone${++counter}`);
      const store = await FileStore.open(dir);
      rmSync(dir, { recursive: true });
      writeFileSync(dir, 'not a directory');
      return store;
    },
  };
}

function jetStreamHarness(): Harness {
  let server: NatsServer | undefined;
  let nc: NatsConnection | undefined;
  let nc2: NatsConnection | undefined;
  let kv: KV | undefined;
  let counter = 0;
  const bucket = 'memconf';
  return {
    name: 'jetstream',
    backend: 'jetstream',
    async setup() {
      server = await startNatsServer();
      nc = await connect({ servers: server.url });
      nc2 = await connect({ servers: server.url });
      kv = await new Kvm(nc).create(bucket, { history: 5 });
    },
    async teardown() {
      await nc?.close();
      await nc2?.close();
      await server?.stop();
    },
    async fresh() {
      if (nc === undefined || nc2 === undefined || kv === undefined) throw new Error('setup did not run');
      const prefix = `p${++counter}`;
      const bucketKv = kv;
      return {
        store: await JetStreamStore.open({ nats: nc, bucket, prefix }),
        twin: await JetStreamStore.open({ nats: nc2, bucket, prefix }),
        seed: async (key, text) => {
          await bucketKv.put(`${prefix}.${key}`, text);
        },
      };
    },
    async broken() {
      if (server === undefined) throw new Error('setup did not run');
      const own = await connect({ servers: server.url });
      const store = await JetStreamStore.open({ nats: own, bucket, prefix: `b${++counter}` });
      await own.close();
      return store;
    },
  };
}

async function failure(p: Promise<unknown>): Promise<MemoryError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(MemoryError);
    return err as MemoryError;
  }
  throw new Error('expected the call to fail');
}

describe.each([fileHarness(), jetStreamHarness()])('Store conformance: $name', (harness) => {
  beforeAll(() => harness.setup());
  afterAll(() => harness.teardown());

  it('reports its backend and no filesystem path as its location', async () => {
    const { store } = await harness.fresh();
    expect(store.info().backend).toBe(harness.backend);
    expect(store.info().location).not.toMatch(/[/\\]tmp|fisk-mem/u);
  });

  it('creates, reads back verbatim with the normalized description, and lists without bodies', async () => {
    const { store } = await harness.fresh();
    const body = 'line one\n---\nnot a header\n日本語 ✓\n\n';
    await store.create('notes.todo', '  things\nto do  ', body);
    await store.create('a-first', 'first: with a colon', 'x');
    expect(await store.read('notes.todo')).toEqual({ description: 'things to do', content: body });
    expect(await store.list()).toEqual([
      { key: 'a-first', description: 'first: with a colon' },
      { key: 'notes.todo', description: 'things to do' },
    ]);
  });

  it('refuses to create a key that exists and keeps the stored text', async () => {
    const { store } = await harness.fresh();
    await store.create('k', 'original', 'one');
    const err = await failure(store.create('k', 'other', 'two'));
    expect(err.code).toBe('exists');
    expect(err.key).toBe('k');
    expect(await store.read('k')).toEqual({ description: 'original', content: 'one' });
  });

  it('reports missing keys and whether a delete found anything', async () => {
    const { store } = await harness.fresh();
    expect((await failure(store.read('nothing'))).code).toBe('not_found');
    expect(await store.delete('nothing')).toBe(false);
    await store.create('k', 'd', 'c');
    expect(await store.delete('k')).toBe(true);
    expect((await failure(store.read('k'))).code).toBe('not_found');
    expect(await store.list()).toEqual([]);
    // A deleted key can be created again.
    await store.create('k', 'again', 'c2');
    expect(await store.read('k')).toEqual({ description: 'again', content: 'c2' });
  });

  it('updates a key this run read, and one it created', async () => {
    const { store } = await harness.fresh();
    const scope = new Scope();
    await store.create('mine', 'd', 'v1', { scope });
    await store.update('mine', 'd2', 'v2', { scope });
    expect(await store.read('mine')).toEqual({ description: 'd2', content: 'v2' });
    await store.create('theirs', 'd', 'v1');
    await store.read('theirs', { scope });
    await store.update('theirs', 'd', 'v2', { scope });
    expect((await store.read('theirs')).content).toBe('v2');
  });

  it('records revisions only for reads and own writes, and drops them on delete', async () => {
    const { store } = await harness.fresh();
    await store.create('k', 'd', 'c');
    const scope = new Scope();
    await store.list({ scope });
    expect(Object.keys(scope.snapshot())).toEqual([]);
    await store.read('k', { scope });
    expect(scope.revision('k')).toBeDefined();
    await store.delete('k', { scope });
    expect(scope.revision('k')).toBeUndefined();
    await failure(store.read('k', { scope }));
    expect(Object.keys(scope.snapshot())).toEqual([]);
  });

  it.each([
    ['traversal', '../x'],
    ['leading dot', '.x'],
    ['trailing dot', 'x.'],
    ['slash', 'a/b'],
    ['NUL', 'a\u0000b'],
    ['201 runes', 'x'.repeat(201)],
  ])('refuses the key %s on every method before any I/O', async (_what, key) => {
    const store = await harness.broken();
    expect((await failure(store.read(key))).code).toBe('invalid_key');
    expect((await failure(store.create(key, 'd', 'c'))).code).toBe('invalid_key');
    expect((await failure(store.update(key, 'd', 'c', { scope: new Scope() }))).code).toBe('invalid_key');
    expect((await failure(store.delete(key))).code).toBe('invalid_key');
    // The same store does touch its backing for a legal key, so the refusals above came first.
    expect((await failure(store.read('legal'))).code).not.toBe('invalid_key');
  });

  it('refuses a bad description or oversized content and stores nothing', async () => {
    const { store } = await harness.fresh();
    expect((await failure(store.create('k', ' \n ', 'c'))).code).toBe('invalid_description');
    expect((await failure(store.create('k', 'd', 'a'.repeat(MAX_CONTENT_BYTES + 1)))).code).toBe('too_large');
    expect(await store.list()).toEqual([]);
    await store.create('k', 'd', 'a'.repeat(MAX_CONTENT_BYTES));
    expect((await store.read('k')).content.length).toBe(MAX_CONTENT_BYTES);
  });

  it('refuses a create at capacity but still allows an overwrite', async () => {
    const b = await harness.fresh();
    const text = serializeEntry('seeded', 'x');
    for (let i = 0; i < MAX_ENTRIES; i += 128) {
      await Promise.all(Array.from({ length: Math.min(128, MAX_ENTRIES - i) }, (_, j) => b.seed(`k${i + j}`, text)));
    }
    expect((await failure(b.store.create('one-more', 'd', 'c'))).code).toBe('full');
    const scope = new Scope();
    await b.store.read('k0', { scope });
    await b.store.update('k0', 'changed', 'y', { scope });
    expect((await b.store.read('k0')).description).toBe('changed');
    // An update that would add an entry counts like a create wherever it is allowed at all.
    const added = await b.store.update('one-more', 'd', 'c', { scope }).then(
      () => 'written',
      (err: unknown) => (err as MemoryError).code,
    );
    expect(['full', 'stale']).toContain(added);
    expect((await b.store.list()).length).toBe(MAX_ENTRIES);
  });

  it('lets exactly one of two racing creators win', async () => {
    const b = await harness.fresh();
    const results = await Promise.allSettled([b.store.create('race', 'first', 'a'), b.twin.create('race', 'second', 'b')]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0]?.reason as MemoryError).code).toBe('exists');
  });

  it('shares one backing between independent stores', async () => {
    const b = await harness.fresh();
    await b.store.create('shared', 'written by one', 'text');
    expect(await b.twin.read('shared')).toEqual({ description: 'written by one', content: 'text' });
    expect(await b.twin.delete('shared')).toBe(true);
    expect(await b.store.list()).toEqual([]);
  });

  it('reads a hand-written entry leniently', async () => {
    const b = await harness.fresh();
    await b.seed('hand', 'no frontmatter at all\n');
    await b.seed('header', '---\ndescription: "quoted: yes"\n---\n\nbody');
    expect(await b.store.read('hand')).toEqual({ description: '', content: 'no frontmatter at all\n' });
    expect(await b.store.list()).toEqual([
      { key: 'hand', description: '' },
      { key: 'header', description: 'quoted: yes' },
    ]);
  });

  it('refuses to start an operation for a cancelled call and stores nothing', async () => {
    const { store } = await harness.fresh();
    const ac = new AbortController();
    ac.abort(new Error('cancelled'));
    await expect(store.create('k', 'd', 'c', { signal: ac.signal })).rejects.toThrow('cancelled');
    await expect(store.list({ signal: ac.signal })).rejects.toThrow('cancelled');
    expect(await store.list()).toEqual([]);
  });
});
