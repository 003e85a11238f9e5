import { DiscardPolicy, jetstreamManager } from '@nats-io/jetstream';
import type { JetStreamManager, StreamConfig } from '@nats-io/jetstream';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer } from '../../agenttest/nats-server.js';
import type { NatsServer } from '../../agenttest/nats-server.js';
import { connectNats } from '../../conns/nats-connect.js';
import type { NatsConn } from '../../conns/nats-connect.js';
import { isRunStateError } from '../errors.js';
import type { SessionRecord } from '../records.js';
import { startRun } from '../run-ops.js';
import type { SessionStore } from '../store.js';
import { jetstreamSessionStore } from './store.js';

let nats: NatsServer;
let conn: NatsConn;
let jsm: JetStreamManager;
let home: string;

beforeAll(async () => {
  nats = await startNatsServer();
  home = mkdtempSync(join(tmpdir(), 'fisk-js-'));
  mkdirSync(join(home, 'nats', 'context'), { recursive: true });
  writeFileSync(join(home, 'nats', 'context', 'js.json'), JSON.stringify({ url: nats.url }));
  conn = await connectNats('js', { env: { HOME: home, XDG_CONFIG_HOME: home } });
  jsm = await jetstreamManager(conn.connection);
}, 20_000);

afterAll(async () => {
  await conn.connection.close();
  await nats.stop();
  rmSync(home, { recursive: true, force: true });
});

const good: Partial<StreamConfig> = {
  subjects: ['ok.>'],
  max_msgs_per_subject: 1,
  discard: DiscardPolicy.New,
  discard_new_per_subject: true,
};

async function refusal(name: string, config: Partial<StreamConfig> | undefined): Promise<string> {
  if (config !== undefined) await jsm.streams.add({ name, ...config });
  try {
    await jetstreamSessionStore(conn, name);
  } catch (err) {
    expect(isRunStateError(err, 'config')).toBe(true);
    return (err as Error).message;
  }
  throw new Error(`stream ${name} was accepted`);
}

describe('jetstream session backend binding', () => {
  it('binds a stream with the right settings and derives the prefix from its subject', async () => {
    await jsm.streams.add({ name: 'GOOD', ...good });
    const store = await jetstreamSessionStore(conn, 'GOOD');
    expect(store.location).toBe('stream GOOD');
    const j = await store.create('r1');
    await j.append({
      seq: 1,
      protocol: 'io.choria.fisk-ai.v1.session.meta',
      meta: { version: 3, run_id: 'r1', created: new Date().toISOString(), fingerprint: {} },
    });
    const m = await jsm.streams.getMessage('GOOD', { last_by_subj: 'ok.r1._meta' });
    expect(m?.subject).toBe('ok.r1._meta');
    expect(conn.connection.isClosed()).toBe(false);
  });

  it('never creates a missing stream and says how to', async () => {
    const msg = await refusal('MISSING', undefined);
    expect(msg).toContain('does not exist');
    expect(msg).toContain('nats stream add MISSING');
    expect(msg).toContain('harness.sessions.options.stream');
    await expect(jsm.streams.info('MISSING')).rejects.toThrow();
  });

  it('refuses a stream with a max age', async () => {
    expect(await refusal('AGED', { ...good, subjects: ['aged.>'], max_age: 3600 * 1e9 })).toMatch(/max age must be 0.*--max-age 0/);
  });

  it('refuses the wrong per-subject limit and discard policy, listing both', async () => {
    const msg = await refusal('LOOSE', { subjects: ['loose.>'], max_msgs_per_subject: 5, discard: DiscardPolicy.Old });
    expect(msg).toContain('max messages per subject must be 1');
    expect(msg).toContain('discard policy must be new');
    expect(msg).toContain('discard new per subject must be on');
    expect(msg).toContain("--subjects 'loose.>'");
  });

  it('refuses a stream without exactly one wildcard subject', async () => {
    expect(await refusal('FLAT', { ...good, subjects: ['flat.a', 'flat.b'] })).toContain('exactly one subject of the form');
  });
});

describe('jetstream session backend under loss and corruption', () => {
  const fingerprint = { provider: 'anthropic', model: 'm1' };
  const terminal = (seq: number): SessionRecord => ({
    seq,
    protocol: 'io.choria.fisk-ai.v1.session.terminal',
    terminal: { reason: 'completed' },
  });

  async function fresh(name: string, subject: string): Promise<SessionStore> {
    await jsm.streams.add({ name, ...good, subjects: [`${subject}.>`] });
    return jetstreamSessionStore(conn, name);
  }

  async function failure(p: Promise<unknown>): Promise<Error> {
    try {
      await p;
    } catch (err) {
      return err as Error;
    }
    throw new Error('expected a failure');
  }

  it('stops an append whose meta record was purged, and rm removes the orphaned records', async () => {
    const store = await fresh('LOSTMETA', 'lm');
    const j = await startRun(store, { runId: 'r', fingerprint, prompt: 'p' });
    await j.append(terminal(2));
    await jsm.streams.purge('LOSTMETA', { filter: 'lm.r._meta' });
    const err = await failure(j.append(terminal(3)));
    expect(isRunStateError(err, 'not_found')).toBe(true);
    expect(err.message).toMatch(/its meta record is gone from stream "LOSTMETA".*fisk session rm r/);
    // only the orphan is left: load cannot find the run, rm removes it, then it is gone
    expect(isRunStateError(await failure(store.load('r')), 'not_found')).toBe(true);
    expect(await store.remove('r')).toBe(true);
    expect((await jsm.streams.info('LOSTMETA')).state.messages).toBe(0);
    expect(await store.remove('r')).toBe(false);
  });

  it('stops an append when the stream was deleted and recreated empty', async () => {
    const store = await fresh('RECREATED', 'rc');
    const j = await startRun(store, { runId: 'r', fingerprint, prompt: 'p' });
    await jsm.streams.delete('RECREATED');
    const gone = await failure(j.append(terminal(2)));
    expect(gone.message).toMatch(/stream "RECREATED" no longer exists/);
    await jsm.streams.add({ name: 'RECREATED', ...good, subjects: ['rc.>'] });
    const err = await failure(j.append(terminal(2)));
    expect(err.message).toMatch(/meta record is gone/);
    expect((await jsm.streams.info('RECREATED')).state.messages).toBe(0);
  });

  it('stops an append after the whole stream was purged, and leaves the stream empty', async () => {
    const store = await fresh('PURGED', 'pg');
    const j = await startRun(store, { runId: 'r', fingerprint, prompt: 'p' });
    await j.append(terminal(2));
    await jsm.streams.purge('PURGED');
    const err = await failure(j.append(terminal(3)));
    expect(isRunStateError(err, 'not_found')).toBe(true);
    expect(err.message).toMatch(/its meta record is gone from stream "PURGED"/);
    expect(j.lastSeq()).toBe(2);
    expect((await jsm.streams.info('PURGED')).state.messages).toBe(0);
    // the journal stays stopped: a retry of the same record is refused the same way
    expect(isRunStateError(await failure(j.append(terminal(3))), 'not_found')).toBe(true);
    expect((await jsm.streams.info('PURGED')).state.messages).toBe(0);
  });

  it('leaves a recreated stream empty even when the append lands on a record sequence the new stream has free', async () => {
    const store = await fresh('REBORN', 'rb');
    const j = await startRun(store, { runId: 'r', fingerprint, prompt: 'p' });
    await j.append(terminal(2));
    await jsm.streams.delete('REBORN');
    await jsm.streams.add({ name: 'REBORN', ...good, subjects: ['rb.>'] });
    // another run in the new stream: it must keep its records
    const other = await startRun(await jetstreamSessionStore(conn, 'REBORN'), { runId: 'other', fingerprint, prompt: 'q' });
    const err = await failure(j.append(terminal(3)));
    expect(isRunStateError(err, 'not_found')).toBe(true);
    const state = (await jsm.streams.info('REBORN', { subjects_filter: 'rb.>' })).state;
    expect(Object.keys(state.subjects ?? {})).toEqual(['rb.other._meta']);
    await other.close();
  });

  it("refuses a writer whose record sequence another writer stored first, and keeps the other writer's record", async () => {
    const store = await fresh('TWOWRITERS', 'tw');
    const a = await startRun(store, { runId: 'r', fingerprint, prompt: 'p' });
    const b = await (await jetstreamSessionStore(conn, 'TWOWRITERS')).open('r');
    await b.append(terminal(2));
    const err = await failure(a.append(terminal(2)));
    expect(isRunStateError(err, 'locked')).toBe(true);
    expect(err.message).toMatch(/another writer holds it/);
    expect(a.lastSeq()).toBe(1);
    expect(await a.isHeld()).toBe(false);
    const held = await jsm.streams.getMessage('TWOWRITERS', { last_by_subj: 'tw.r.2' });
    expect(held?.header?.get('Nats-Msg-Id')).toMatch(/-2$/);
    expect((await store.load('r')).map((r) => r.seq)).toEqual([1, 2]);
    // the one that stored it goes on
    await b.append(terminal(3));
    expect((await store.load('r')).map((r) => r.seq)).toEqual([1, 2, 3]);
    await Promise.all([a.close(), b.close()]);
  });

  it('lists a corrupt journal as corrupt with the reason, and rm removes it', async () => {
    const store = await fresh('CORRUPTLS', 'cl');
    const j = await startRun(store, { runId: 'bad', fingerprint, prompt: 'p' });
    await j.close();
    await conn.connection.request('cl.bad.2', '{"seq":2,"protocol":"io.choria.fisk-ai.v1.session.terminal","terminal":{"reason":"nope"}}');
    const rows = await store.list();
    const row = rows.find((r) => r.runId === 'bad');
    expect(row?.status).toBe('corrupt');
    expect(row !== undefined && row.status === 'corrupt' ? row.problem : '').toMatch(/corrupt record sequence: cl\.bad\.2/);
    expect(await store.remove('bad')).toBe(true);
    expect((await store.list()).some((r) => r.runId === 'bad')).toBe(false);
  });
});
