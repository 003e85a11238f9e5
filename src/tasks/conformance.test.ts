/**
 * One contract, both backends: the file store in a temporary directory and the jetstream store on
 * a bucket of a private nats-server.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../agenttest/eventually.js';
import { startNatsServer } from '../agenttest/nats-server.js';
import type { NatsServer } from '../agenttest/nats-server.js';
import { TaskError } from './errors.js';
import { fileTaskStore } from './file.js';
import { jetstreamTaskStore } from './jetstream.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { pendingTask, progressedTask, TASK_RECORD_SCHEMA } from './record.js';
import type { TaskStore } from './store.js';
import { readySpares } from '../util/test-support.js';

let nats: NatsServer;
let nc: NatsConnection;
let dir: string;
let buckets = 0;

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  dir = mkdtempSync(join(tmpdir(), 'fisk-tasks-'));
}, 20_000);

afterAll(async () => {
  await nc.close();
  await nats.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function freshBucket(): Promise<string> {
  const name = `TASKS${buckets++}`;
  await new Kvm(nc).create(name, { history: 1 });
  return name;
}

const backends: Record<string, () => Promise<TaskStore>> = {
  file: () => Promise.resolve(fileTaskStore(mkdtempSync(join(dir, 'store-')))),
  jetstream: async () => jetstreamTaskStore({ nats: nc, bucket: await freshBucket() }),
};

describe.each(Object.keys(backends))('the %s task store', (name) => {
  const open = backends[name] as () => Promise<TaskStore>;

  it('records a task once and returns the first record to a second ask', async () => {
    const store = await open();
    const first = pendingTask('job-1', 'job-run-1', 'first prompt', new Date('2026-01-01T00:00:00Z'));
    expect(await store.ask(first)).toEqual(first);
    const again = await store.ask(pendingTask('job-1', 'job-run-1', 'another prompt'));
    expect(again).toEqual(first);
    expect(await store.get('job-1')).toEqual(first);
    expect(await store.get('nobody')).toBeUndefined();
  });

  it('records a new task as running when asked so, returning that very record only when it stored it', async () => {
    const store = await open();
    const running = progressedTask(pendingTask('job-2', 'job-run-2', 'p'), { state: 'running', worker: 'w:1', attempts: 1 });
    expect(await store.ask(running)).toBe(running);
    expect(await store.get('job-2')).toEqual(running);
    const later = progressedTask(pendingTask('job-2', 'job-run-2', 'p'), { state: 'running', worker: 'w:2', attempts: 1 });
    const got = await store.ask(later);
    expect(got).not.toBe(later);
    expect(got).toEqual(running);
  });

  it('stores the first result and refuses a second one', async () => {
    const store = await open();
    await store.ask(pendingTask('t1', 'r1', 'do it'));
    const done = await store.complete('t1', { state: 'completed', answer: 'done' });
    expect(done).toMatchObject({ id: 't1', state: 'completed', answer: 'done', prompt: 'do it' });
    await expect(store.complete('t1', { state: 'failed', reason: 'error', message: 'late failure' })).rejects.toMatchObject({
      code: 'completed',
    });
    expect(await store.get('t1')).toEqual(done);
    // a redelivery asking again keeps the result
    expect(await store.ask(pendingTask('t1', 'r1', 'do it'))).toEqual(done);
  });

  it('lets exactly one of two concurrent completions win', async () => {
    const store = await open();
    await store.ask(pendingTask('race', 'r', 'p'));
    const results = await Promise.allSettled([
      store.complete('race', { state: 'completed', answer: 'a' }),
      store.complete('race', { state: 'failed', reason: 'error', message: 'b' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toBeInstanceOf(TaskError);
    expect((lost.reason as TaskError).code).toBe('completed');
  });

  it('records a failure with its reason', async () => {
    const store = await open();
    await store.ask(pendingTask('f', 'r', 'p'));
    expect(await store.complete('f', { state: 'failed', reason: 'budget', message: 'out of tokens' })).toMatchObject({
      state: 'failed',
      reason: 'budget',
      message: 'out of tokens',
    });
  });

  it('refuses completing an unknown task, bad ids and records that break the schema', async () => {
    const store = await open();
    await expect(store.complete('ghost', { state: 'completed', answer: 'x' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(store.get('../etc/passwd')).rejects.toMatchObject({ code: 'invalid_id' });
    await expect(
      store.ask({ id: 'ok', run_id: 'r', prompt: 'p', state: 'completed', created: new Date().toISOString() }),
    ).rejects.toMatchObject({ code: 'schema' });
    await expect(store.ask({ id: 'ok2', run_id: 'r', prompt: 'p', state: 'pending', created: 'yesterday' })).rejects.toMatchObject({
      code: 'schema',
    });
  });

  it('records attempts while a task runs and is handed back, and never over a result', async () => {
    const store = await open();
    await store.ask(pendingTask('att', 'r', 'p'));
    const running = await store.progress('att', { state: 'running', worker: 'w1', attempts: 1, started: new Date('2026-03-01T00:00:00Z') });
    expect(running).toMatchObject({ state: 'running', worker: 'w1', attempts: 1, started: '2026-03-01T00:00:00.000Z' });
    const back = await store.progress('att', {
      state: 'pending',
      failure: { attempt: 1, worker: 'w1', message: 'model call failed: timeout' },
    });
    expect(back).toMatchObject({
      state: 'pending',
      attempts: 1,
      worker: 'w1',
      failures: [{ attempt: 1, worker: 'w1', message: 'model call failed: timeout' }],
    });
    expect(back.started).toBeUndefined();
    await store.progress('att', { state: 'running', worker: 'w2', attempts: 2 });
    const dead = await store.complete('att', { state: 'dead', reason: 'max_deliver', message: 'gave up after 2 attempts' });
    expect(dead).toMatchObject({ state: 'dead', reason: 'max_deliver', attempts: 2, failures: [{ attempt: 1 }] });
    expect(dead.started).toBeUndefined();
    // a late worker's progress leaves the result standing
    expect(await store.progress('att', { state: 'running', worker: 'w3', attempts: 3 })).toEqual(dead);
    expect(await store.get('att')).toEqual(dead);
    await expect(store.progress('ghost', { state: 'running', worker: 'w', attempts: 1 })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('reopens a failed or dead task and removes tasks', async () => {
    const store = await open();
    await store.ask(pendingTask('re', 'r', 'p', new Date('2026-01-01T00:00:00Z')));
    await expect(store.reopen('re')).rejects.toMatchObject({ code: 'state' });
    await store.progress('re', { state: 'pending', failure: { attempt: 1, message: 'x' } });
    await store.complete('re', { state: 'failed', reason: 'error', message: 'bad request' });
    const again = await store.reopen('re');
    expect(again).toEqual({ id: 're', run_id: 'r', prompt: 'p', state: 'pending', created: '2026-01-01T00:00:00.000Z' });
    expect(await store.get('re')).toEqual(again);
    const done = await store.complete('re', { state: 'completed', answer: 'fine' });
    await expect(store.reopen('re')).rejects.toMatchObject({ code: 'state' });
    expect(await store.get('re')).toEqual(done);
    expect(await store.remove('re')).toBe(true);
    expect(await store.get('re')).toBeUndefined();
    expect(await store.remove('re')).toBe(false);
    expect((await store.list()).map((t) => t.id)).not.toContain('re');
    // the id can be asked again once removed
    expect((await store.ask(pendingTask('re', 'r', 'p2'))).prompt).toBe('p2');
  });

  it('lists tasks newest first', async () => {
    const store = await open();
    expect(await store.list()).toEqual([]);
    await store.ask(pendingTask('old', 'r1', 'p', new Date('2026-01-01T00:00:00Z')));
    await store.ask(pendingTask('new', 'r2', 'p', new Date('2026-02-01T00:00:00Z')));
    await store.complete('old', { state: 'completed', answer: 'a' });
    const listed = await store.list();
    expect(listed.map((t) => [t.id, t.state])).toEqual([
      ['new', 'pending'],
      ['old', 'completed'],
    ]);
  });
});

describe('the file store writes its records from spare files made ahead', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fisk-task-spares-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('uses them for every kind of write, keeps records private, and leaves none once closed', async () => {
    const store = fileTaskStore(dir);
    // one job's three records are made on the spot: a store used once never makes a spare
    await store.ask(pendingTask('a', 'r', 'p'));
    await store.progress('a', { state: 'running', worker: 'w', attempts: 1 });
    await store.progress('a', { state: 'pending', attempts: 1 });
    await new Promise((r) => setTimeout(r, 30));
    expect(readdirSync(dir).filter((n) => n.startsWith('.spare-'))).toEqual([]);
    // a fourth write: spares are made in the background
    await store.progress('a', { state: 'running', worker: 'w', attempts: 2 });
    await eventually(() => readySpares(dir).length === 3, 'three spare files, each locked by its maker');
    const made = readySpares(dir);
    await store.ask(pendingTask('b', 'r', 'p'));
    await store.progress('b', { state: 'running', worker: 'w', attempts: 1 });
    await store.complete('b', { state: 'completed', answer: 'done' });
    // the three spares made after the first write became the next three records
    for (const name of made) expect(readdirSync(dir)).not.toContain(name);
    for (const name of ['a.json', 'b.json', 'b.result.json']) expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
    expect(await store.get('b')).toMatchObject({ state: 'completed', answer: 'done', attempts: 1 });
    // a spare taken by a record that already exists is removed, not left behind
    expect(await store.ask(pendingTask('a', 'r', 'p'))).toMatchObject({ id: 'a', state: 'running', attempts: 2 });
    await store.close?.();
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'b.json', 'b.result.json']);
    await store.complete('a', { state: 'failed', reason: 'refused', message: 'no' });
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'a.result.json', 'b.json', 'b.result.json']);
  });
});

describe('reading a stored record checks it against the schema', () => {
  it('has a record schema that is valid 2020-12 JSON Schema (the stores compile it unchecked)', () => {
    const ajv = new Ajv2020({ strict: true, strictRequired: false });
    expect(ajv.validateSchema(TASK_RECORD_SCHEMA), JSON.stringify(ajv.errors)).toBe(true);
  });

  it('refuses a file record edited by hand', async () => {
    const d = mkdtempSync(join(dir, 'bad-'));
    const store = fileTaskStore(d);
    await store.ask(pendingTask('t', 'r', 'p'));
    await store.close?.();
    expect(readdirSync(d)).toEqual(['t.json']);
    writeFileSync(
      join(d, 't.json'),
      JSON.stringify({ id: 't', run_id: 'r', prompt: 'p', state: 'completed', created: new Date().toISOString() }),
    );
    await expect(store.get('t')).rejects.toMatchObject({ code: 'schema' });
  });

  it('reads a file record a crash left without its text as not there, and writes it again when asked', async () => {
    const d = mkdtempSync(join(dir, 'torn-'));
    const store = fileTaskStore(d);
    await store.ask(pendingTask('keep', 'r', 'p'));
    for (const [id, text] of [
      ['empty', ''],
      ['zeros', '\0'.repeat(180)],
    ] as const) {
      writeFileSync(join(d, `${id}.json`), text);
      expect(await store.get(id)).toBeUndefined();
      await expect(store.progress(id, { state: 'running', worker: 'w', attempts: 1 })).rejects.toMatchObject({ code: 'not_found' });
      const asked = pendingTask(id, `run-${id}`, 'asked again');
      expect(await store.ask(asked)).toEqual(asked);
      expect(await store.get(id)).toEqual(asked);
      expect((await store.complete(id, { state: 'completed', answer: 'a' })).state).toBe('completed');
    }
    expect((await store.list()).map((t) => t.id).sort()).toEqual(['empty', 'keep', 'zeros']);
    // a record with text that is not a task is still refused, not taken for one a crash emptied
    writeFileSync(join(d, 'keep.json'), '{"id": "keep"');
    await expect(store.get('keep')).rejects.toMatchObject({ code: 'schema' });
    // no temporary file is left beside the records once the store is closed
    await store.close?.();
    expect(readdirSync(d).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('refuses a KV record that is not a task', async () => {
    const bucket = await freshBucket();
    const kv = await new Kvm(nc).open(bucket);
    await kv.put('t', '{"id":"t"}');
    const store = await jetstreamTaskStore({ nats: nc, bucket });
    await expect(store.get('t')).rejects.toMatchObject({ code: 'schema' });
  });
});

describe('the jetstream store binds only a bucket the operator made', () => {
  it('fails naming the command that creates a missing bucket', async () => {
    await expect(jetstreamTaskStore({ nats: nc, bucket: 'NOPE', context: 'prod' })).rejects.toThrow(
      /does not exist.*nats kv add NOPE --history 1 --storage file --replicas 1 --context prod/u,
    );
  });

  it('refuses a bucket whose entries expire', async () => {
    await new Kvm(nc).create('EXPIRING', { ttl: 60_000 });
    await expect(jetstreamTaskStore({ nats: nc, bucket: 'EXPIRING' })).rejects.toMatchObject({ code: 'config' });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete('KV_EXPIRING');
  });
});
