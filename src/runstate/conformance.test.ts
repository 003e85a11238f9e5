/**
 * One suite for the session store contract, run against every backend. Backend-specific fault
 * injection (a torn final line, a bad record in the middle) is passed in by each backend's setup.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ZERO_USAGE } from '../llm/types.js';
import { assistantBody, deferralBody, metaBody, terminalBody, toolResultBody } from './builders.js';
import { isRunStateError } from './errors.js';
import type { RunStateErrorCode } from './errors.js';
import { fileSessionStore } from './file/store.js';
import { memorySessionStore } from './memory-store.js';
import type { SessionRecord } from './records.js';
import { answerDeferred, claimRun, loadRun, startRun } from './run-ops.js';
import { appendNext } from './store.js';
import type { SessionStore } from './store.js';
import { DiscardPolicy, jetstreamManager } from '@nats-io/jetstream';
import { startNatsServer } from '../agenttest/nats-server.js';
import { connectNats } from '../conns/nats-connect.js';
import type { NatsConn } from '../conns/nats-connect.js';
import { jetstreamSessionStore } from './jetstream/store.js';
import { eventually } from '../agenttest/eventually.js';
import { readySpares } from '../util/test-support.js';

/** What a backend's test setup provides. */
export interface Harness {
  readonly store: SessionStore;
  /** A second store over the same data, as another process would build it. */
  readonly peer: () => Promise<SessionStore>;
  /** Writes raw bytes as the run's next record, bypassing validation (torn: no newline, file only). */
  readonly injectRaw?: (runId: string, seq: number, body: string, torn: boolean) => Promise<void>;
  readonly tornTails: boolean;
  /** Restarts the server under the store, when the backend has one. */
  readonly restart?: () => Promise<void>;
  readonly cleanup: () => Promise<void>;
}

const fingerprint = { provider: 'anthropic', model: 'm1' };
const turn = (iteration: number, ...ids: string[]) =>
  assistantBody({
    iteration,
    message: {
      role: 'assistant',
      content: [
        { type: 'text', text: `turn ${iteration}` },
        ...ids.map((id) => ({ type: 'tool_use' as const, id, name: 'echo', input: '{"x":1}' })),
      ],
    },
    usage: { ...ZERO_USAGE, input: 3, output: 4 },
  });
const result = (id: string) => toolResultBody({ type: 'tool_result', toolUseId: id, content: `out ${id}` });

async function code(p: Promise<unknown>): Promise<RunStateErrorCode | 'ok' | 'other'> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return isRunStateError(err) ? err.code : 'other';
  }
}

let counter = 0;
const freshId = (): string => `run-${process.pid}-${++counter}`;

function conformance(name: string, setup: () => Promise<Harness>): void {
  describe(`session store conformance: ${name}`, () => {
    let harness: Harness;
    beforeAll(async () => {
      harness = await setup();
    }, 30_000);
    afterAll(async () => {
      await harness.cleanup();
    });

    it('creates, appends, loads and folds a run byte for byte', async () => {
      const id = freshId();
      const j = await startRun(harness.store, { runId: id, fingerprint, prompt: 'hello' });
      expect(j.lastSeq()).toBe(1);
      await appendNext(j, turn(0, 'a'));
      await appendNext(j, result('a'));
      await appendNext(j, terminalBody('completed'));
      await j.close();
      const run = await loadRun(harness.store, id);
      expect(run.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect(run.status).toBe('completed');
      expect(run.lastSeq).toBe(4);
      const again = await (await harness.peer()).load(id);
      expect(again).toEqual(await harness.store.load(id));
    });

    it('skips a duplicate sequence and refuses a gap', async () => {
      const id = freshId();
      const j = await startRun(harness.store, { runId: id, fingerprint, prompt: 'p' });
      const rec = { ...turn(0), seq: 2 } as SessionRecord;
      expect(await j.append(rec)).toBe('appended');
      expect(await j.append(rec)).toBe('duplicate');
      expect(await code(j.append({ ...terminalBody('completed'), seq: 9 }))).toBe('gap');
      expect(j.lastSeq()).toBe(2);
      await j.close();
      expect((await harness.store.load(id)).length).toBe(2);
    });

    it('stores a batch as one step, answering each record in order', async () => {
      const id = freshId();
      const j = await startRun(harness.store, { runId: id, fingerprint, prompt: 'p' });
      expect(await j.appendAll([])).toEqual([]);
      const records = [
        { ...turn(0, 'a'), seq: 2 },
        { ...result('a'), seq: 3 },
        { ...terminalBody('completed'), seq: 4 },
      ] as SessionRecord[];
      expect(await j.appendAll(records)).toEqual(['appended', 'appended', 'appended']);
      expect(j.lastSeq()).toBe(4);
      await j.close();
      const run = await loadRun(harness.store, id);
      expect(run.status).toBe('completed');
      expect(run.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect((await harness.store.load(id)).map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    });

    it('skips duplicates inside a batch and across batches, keeping the first record stored', async () => {
      const id = freshId();
      const j = await startRun(harness.store, { runId: id, fingerprint, prompt: 'p' });
      const first = { ...turn(0, 'a'), seq: 2 } as SessionRecord;
      const retried = { ...turn(7), seq: 2 } as SessionRecord;
      const answer = { ...result('a'), seq: 3 } as SessionRecord;
      expect(await j.appendAll([first, retried, answer])).toEqual(['appended', 'duplicate', 'appended']);
      expect(await j.appendAll([answer, { ...terminalBody('completed'), seq: 4 }])).toEqual(['duplicate', 'appended']);
      expect(await j.appendAll([first, answer])).toEqual(['duplicate', 'duplicate']);
      expect(await j.append(answer)).toBe('duplicate');
      expect(j.lastSeq()).toBe(4);
      await j.close();
      const stored = await harness.store.load(id);
      expect(stored.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
      expect((await loadRun(harness.store, id)).messages[1]?.content[0]).toEqual({ type: 'text', text: 'turn 0' });
    });

    it('refuses a whole batch holding a gap or a bad record, storing none of it', async () => {
      const id = freshId();
      const j = await startRun(harness.store, { runId: id, fingerprint, prompt: 'p' });
      const next = { ...turn(0, 'a'), seq: 2 } as SessionRecord;
      expect(await code(j.appendAll([next, { ...result('a'), seq: 4 }]))).toBe('gap');
      expect(await code(j.appendAll([{ ...result('a'), seq: 3 }]))).toBe('gap');
      const bad = { ...turn(1), seq: 3, assistant: { ...turn(1).assistant, in_tokens: -1 } } as SessionRecord;
      expect(await code(j.appendAll([next, bad]))).toBe('schema');
      expect(j.lastSeq()).toBe(1);
      expect((await harness.store.load(id)).length).toBe(1);
      // the journal goes on from where it was
      expect(await j.appendAll([next])).toEqual(['appended']);
      await j.close();
      expect((await harness.store.load(id)).length).toBe(2);
    });

    it('refuses a batch on a closed journal', async () => {
      const id = freshId();
      const j = await startRun(harness.store, { runId: id, fingerprint, prompt: 'p' });
      await j.close();
      expect(await code(j.appendAll([{ ...turn(0), seq: 2 }]))).toBe('locked');
      expect((await harness.store.load(id)).length).toBe(1);
    });

    it('refuses a batch from a writer whose run was claimed by another', async () => {
      const id = freshId();
      const a = await startRun(harness.store, { runId: id, fingerprint, prompt: 'p' });
      const peer = await harness.peer();
      const claimed = await code(claimRun(peer, id, 'newcomer').then(async ({ journal }) => journal.close()));
      const next = await code(
        a.appendAll([
          { ...turn(0), seq: 2 },
          { ...terminalBody('completed'), seq: 3 },
        ] as SessionRecord[]),
      );
      // exactly one of them holds the run, and a refused batch left nothing of itself
      expect([claimed, next].filter((c) => c === 'ok')).toHaveLength(1);
      expect([claimed, next]).toContain('locked');
      const seqs = (await harness.store.load(id)).map((r) => r.seq);
      expect(seqs).toEqual(next === 'ok' ? [1, 2, 3] : [1, 2]);
      if (next !== 'ok') expect((await harness.store.load(id))[1]?.protocol).toBe('io.choria.fisk-ai.v1.session.claim');
      await a.close();
    });

    it('refuses bad ids, an existing id, an unknown id and a bad record', async () => {
      expect(await code(harness.store.create('../etc'))).toBe('invalid_run_id');
      expect(await code(harness.store.open('a'.repeat(129)))).toBe('invalid_run_id');
      expect(await code(harness.store.load('nope-never'))).toBe('not_found');
      expect(await code(harness.store.open('nope-never'))).toBe('not_found');
      const id = freshId();
      const j = await startRun(harness.store, { runId: id, fingerprint, prompt: 'p' });
      expect(await code(harness.store.create(id))).toBe('exists');
      const bad = { ...turn(0), seq: 2, assistant: { ...turn(0).assistant, in_tokens: -1 } } as SessionRecord;
      expect(await code(j.append(bad))).toBe('schema');
      expect(j.lastSeq()).toBe(1);
      await j.close();
    });

    it('lets exactly one of two racing resumers proceed', async () => {
      const id = freshId();
      const j = await startRun(harness.store, { runId: id, fingerprint, prompt: 'p' });
      await appendNext(j, turn(0, 'a'));
      await j.close();
      const peer = await harness.peer();
      const outcomes = await Promise.allSettled([claimRun(harness.store, id, 'one'), claimRun(peer, id, 'two')]);
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      expect(won).toHaveLength(1);
      const lost = outcomes.find((o) => o.status === 'rejected');
      expect(isRunStateError(lost?.reason, 'locked') || isRunStateError(lost?.reason, 'exists')).toBe(true);
      const winner = won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof claimRun>>>;
      expect(winner.value.run.pending?.calls[0]?.state).toBe('unanswered');
      await appendNext(winner.value.journal, result('a'));
      await winner.value.journal.close();
      expect((await loadRun(harness.store, id)).pending).toBeUndefined();
    });

    it('lets exactly one of two racing creators of one id proceed', async () => {
      const id = freshId();
      const peer = await harness.peer();
      const outcomes = await Promise.allSettled([
        startRun(harness.store, { runId: id, fingerprint, prompt: 'a' }),
        startRun(peer, { runId: id, fingerprint, prompt: 'b' }),
      ]);
      const won = outcomes.filter((o): o is PromiseFulfilledResult<Awaited<ReturnType<typeof startRun>>> => o.status === 'fulfilled');
      expect(won).toHaveLength(1);
      const lost = outcomes.find((o) => o.status === 'rejected');
      expect(isRunStateError(lost?.reason, 'exists')).toBe(true);
      await won[0]?.value.close();
      expect((await harness.store.load(id)).length).toBe(1);
    });

    it('refuses a writer whose run was claimed by another, at its next append', async () => {
      const id = freshId();
      const a = await startRun(harness.store, { runId: id, fingerprint, prompt: 'p' });
      const peer = await harness.peer();
      const claimed = await code(claimRun(peer, id, 'newcomer').then(async ({ journal }) => journal.close()));
      const held = await a.isHeld();
      const next = await code(appendNext(a, turn(0)));
      expect(held).toBe(next === 'ok');
      // exactly one of them holds the run
      expect([claimed, next].filter((c) => c === 'ok')).toHaveLength(1);
      expect([claimed, next]).toContain('locked');
      await a.close();
    });

    it('answers a deferred call once, then says it was already answered', async () => {
      const id = freshId();
      const j = await startRun(harness.store, { runId: id, fingerprint, prompt: 'p' });
      await appendNext(j, turn(0, 'a'));
      await appendNext(j, deferralBody('a', 'echo', 'waiting on a person'));
      await appendNext(j, terminalBody('suspended'));
      await j.close();
      await answerDeferred(harness.store, id, 'a', 'the answer');
      const run = await loadRun(harness.store, id);
      expect(run.pending).toBeUndefined();
      expect(run.messages[2]?.content[0]).toEqual({ type: 'tool_result', toolUseId: 'a', content: 'the answer' });
      await expect(answerDeferred(harness.store, id, 'a', 'again')).rejects.toThrow(/already answered/);
      expect((await harness.store.load(id)).length).toBe(5);
    });

    it('lists runs with model, status and prompt, and removes them', async () => {
      const id = freshId();
      const j = await startRun(harness.store, { runId: id, fingerprint, prompt: 'list me' });
      await appendNext(j, terminalBody('suspended'));
      await j.close();
      const row = (await harness.store.list()).find((r) => r.runId === id);
      expect(row).toMatchObject({ model: 'm1', status: 'suspended', prompt: 'list me' });
      await harness.store.remove(id);
      expect((await harness.store.list()).some((r) => r.runId === id)).toBe(false);
      expect(await code(harness.store.load(id))).toBe('not_found');
      await harness.store.remove(id);
    });

    it('reports an interior bad record as corrupt', async () => {
      if (harness.injectRaw === undefined) return;
      const id = freshId();
      const j = await startRun(harness.store, { runId: id, fingerprint, prompt: 'p' });
      await j.close();
      await harness.injectRaw(id, 2, '{"seq":2,"protocol":', false);
      await harness.injectRaw(
        id,
        3,
        JSON.stringify({ seq: 3, protocol: 'io.choria.fisk-ai.v1.session.terminal', terminal: { reason: 'completed' } }),
        false,
      );
      expect(await code(harness.store.load(id))).toBe('corrupt');
    });

    it('refuses a sequence gap on read, naming the sequence', async () => {
      if (harness.injectRaw === undefined) return;
      const id = freshId();
      const j = await startRun(harness.store, { runId: id, fingerprint, prompt: 'p' });
      await j.close();
      await harness.injectRaw(
        id,
        7,
        JSON.stringify({ seq: 7, protocol: 'io.choria.fisk-ai.v1.session.terminal', terminal: { reason: 'completed' } }),
        false,
      );
      let caught: unknown;
      try {
        await loadRun(harness.store, id);
      } catch (err) {
        caught = err;
      }
      expect(isRunStateError(caught, 'corrupt')).toBe(true);
      expect((caught as Error).message).toMatch(/seq 7 does not follow (seq )?1 \(a gap/);
    });

    it('refuses a record nested past the bound on read, saying why', async () => {
      if (harness.injectRaw === undefined) return;
      const id = freshId();
      const j = await startRun(harness.store, { runId: id, fingerprint, prompt: 'p' });
      await j.close();
      // an optional record of a newer kind is otherwise accepted and skipped: only its depth is wrong
      const record = (extra: unknown): string =>
        JSON.stringify({ seq: 2, protocol: 'io.choria.fisk-ai.v1.session.future', optional: true, extra });
      const nest = (n: number): unknown => JSON.parse(`${'['.repeat(n)}${']'.repeat(n)}`);
      await harness.injectRaw(id, 2, record(nest(1200)), false);
      let read: unknown;
      try {
        await loadRun(harness.store, id);
      } catch (err) {
        read = err;
      }
      expect((read as Error).message).toMatch(/seq 2 nests deeper than 1000 levels.*cannot be resumed/);
      const fine = freshId();
      const k = await startRun(harness.store, { runId: fine, fingerprint, prompt: 'p' });
      await k.close();
      await harness.injectRaw(fine, 2, record(nest(900)), false);
      expect((await loadRun(harness.store, fine)).lastSeq).toBe(2);
    });

    it('drops a torn final line and appends after it', async () => {
      if (harness.injectRaw === undefined || !harness.tornTails) return;
      const id = freshId();
      const j = await startRun(harness.store, { runId: id, fingerprint, prompt: 'p' });
      await appendNext(j, turn(0, 'a'));
      await j.close();
      await harness.injectRaw(id, 3, '{"seq":3,"protocol":"io.choria.fis', true);
      expect((await harness.store.load(id)).length).toBe(2);
      const k = await harness.store.open(id);
      expect(k.lastSeq()).toBe(2);
      await appendNext(k, result('a'));
      await k.close();
      const run = await loadRun(harness.store, id);
      expect(run.lastSeq).toBe(3);
      expect(run.pending).toBeUndefined();
    });

    it('keeps appending across a server restart', async () => {
      if (harness.restart === undefined) return;
      const id = freshId();
      const j = await startRun(harness.store, { runId: id, fingerprint, prompt: 'p' });
      await appendNext(j, turn(0, 'a'));
      await harness.restart();
      let refused: Error | undefined;
      await eventually(
        async () => {
          try {
            await appendNext(j, result('a'));
            return true;
          } catch (err) {
            if (!isRunStateError(err, 'unavailable')) refused = err instanceof Error ? err : new Error(String(err));
            throw err;
          }
        },
        'an append to be stored after the restart',
        { intervalMs: 100, stopIf: () => (refused === undefined ? undefined : `refused otherwise than unavailable: ${refused.message}`) },
      );
      await appendNext(j, terminalBody('completed'));
      await j.close();
      const run = await loadRun(harness.store, id);
      expect(run.lastSeq).toBe(4);
      expect(run.status).toBe('completed');
    }, 30_000);
  });
}

conformance('memory', () => {
  const store = memorySessionStore();
  return Promise.resolve({ store, peer: () => Promise.resolve(store), tornTails: false, cleanup: () => Promise.resolve() });
});

conformance('file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fisk-runs-'));
  const runs = join(dir, 'runs');
  return Promise.resolve({
    store: fileSessionStore(runs),
    peer: () => Promise.resolve(fileSessionStore(runs)),
    tornTails: true,
    injectRaw: (runId: string, _seq: number, body: string, torn: boolean) => {
      appendFileSync(join(runs, `${runId}.json`), torn ? body : `${body}\n`);
      return Promise.resolve();
    },
    cleanup: () => {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  });
});

conformance('jetstream', async () => {
  const nats = await startNatsServer();
  const home = mkdtempSync(join(tmpdir(), 'fisk-js-ctx-'));
  const env = { HOME: home, XDG_CONFIG_HOME: home };
  mkdirSync(join(home, 'nats', 'context'), { recursive: true });
  writeFileSync(join(home, 'nats', 'context', 'test.json'), JSON.stringify({ url: nats.url }));
  const conns: NatsConn[] = [];
  const conn = async (): Promise<NatsConn> => {
    const c = await connectNats('test', { env });
    conns.push(c);
    return c;
  };
  const main = await conn();
  const jsm = await jetstreamManager(main.connection);
  await jsm.streams.add({
    name: 'SESSIONS',
    subjects: ['fisk.sessions.>'],
    max_msgs_per_subject: 1,
    discard: DiscardPolicy.New,
    discard_new_per_subject: true,
  });
  return {
    store: await jetstreamSessionStore(main, 'SESSIONS'),
    peer: async () => jetstreamSessionStore(await conn(), 'SESSIONS'),
    tornTails: false,
    injectRaw: async (runId: string, seq: number, body: string) => {
      await main.connection.request(`fisk.sessions.${runId}.${seq === 1 ? '_meta' : seq}`, body);
    },
    restart: async () => {
      await nats.kill();
      await nats.restart();
    },
    cleanup: async () => {
      for (const c of conns) await c.connection.close();
      await nats.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
});

describe('file backend specifics', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fisk-runs-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('makes a run lock and journal from spare files made ahead, with the same modes, and a closed store leaves none', async () => {
    const runs = join(dir, 'spares', 'runs');
    const store = fileSessionStore(runs);
    const first = await startRun(store, { runId: 'one', fingerprint, prompt: 'p' });
    await first.close();
    // one run makes its own two files: a store used once (fisk run) never makes a spare
    await new Promise((r) => setTimeout(r, 30));
    expect(readdirSync(runs).filter((n) => n.startsWith('.spare-'))).toEqual([]);
    const again = await startRun(store, { runId: 'zero', fingerprint, prompt: 'p' });
    await again.close();
    // a second run: spares are made in the background, locked and private
    await eventually(() => readySpares(runs).length === 2, 'two spare files, each locked by its maker');
    const made = readySpares(runs);
    const second = await startRun(store, { runId: 'two', fingerprint, prompt: 'p' });
    // both spares were used: one became the lock file, the other the journal
    for (const name of made) expect(readdirSync(runs)).not.toContain(name);
    expect(readdirSync(runs)).toEqual(expect.arrayContaining(['two.json', 'two.lock']));
    expect(statSync(join(runs, 'two.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(runs, 'two.lock')).mode & 0o777).toBe(0o600);
    expect(await code(store.open('two'))).toBe('locked');
    await appendNext(second, turn(0));
    await second.close();
    expect((await loadRun(store, 'two')).lastSeq).toBe(2);
    expect(readFileSync(join(runs, 'two.json'), 'utf8').trim().split('\n')).toHaveLength(2);
    await store.close?.();
    expect(readdirSync(runs).sort()).toEqual(['one.json', 'two.json', 'zero.json']);
    // a closed store still works, making its files on the spot
    const third = await startRun(store, { runId: 'three', fingerprint, prompt: 'p' });
    await third.close();
    expect(readdirSync(runs).sort()).toEqual(['one.json', 'three.json', 'two.json', 'zero.json']);
  });

  it('gives a released lock file made from a spare back to the pool, still locked, for the next run', async () => {
    const runs = join(dir, 'given-back', 'runs');
    const store = fileSessionStore(runs);
    for (const id of ['a0', 'a1']) await (await startRun(store, { runId: id, fingerprint, prompt: 'p' })).close();
    await eventually(() => readySpares(runs).length === 2, 'two spare files, each locked by its maker');
    const run = await startRun(store, { runId: 'b', fingerprint, prompt: 'p' });
    const lockInode = statSync(join(runs, 'b.lock')).ino;
    await run.close();
    // the lock file is gone by its name and waits as a spare, still locked by this process
    expect(readdirSync(runs)).not.toContain('b.lock');
    const given = readySpares(runs).find((name) => statSync(join(runs, name)).ino === lockInode);
    expect(given).toBeDefined();
    // and the run it locked is free: another journal of it opens at once
    await (await store.open('b')).close();
    // the next run names it (or another spare) without making a file, and a closed store leaves none
    const next = await startRun(store, { runId: 'c', fingerprint, prompt: 'p' });
    await next.close();
    await store.close?.();
    expect(readdirSync(runs).sort()).toEqual(['a0.json', 'a1.json', 'b.json', 'c.json']);
  });

  it('creates the directory 0700 and the journal 0600, one JSON line per record', async () => {
    const runs = join(dir, 'a', 'runs');
    const store = fileSessionStore(runs);
    const j = await startRun(store, { runId: 'perm', fingerprint, prompt: 'p' });
    await appendNext(j, turn(0));
    await j.close();
    expect(statSync(runs).mode & 0o777).toBe(0o700);
    expect(statSync(join(runs, 'perm.json')).mode & 0o777).toBe(0o600);
    const lines = readFileSync(join(runs, 'perm.json'), 'utf8').split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ seq: 1, protocol: 'io.choria.fisk-ai.v1.session.meta' });
  });

  it("writes a batch under one fsync, and syncs the directory once after a new journal's first", async () => {
    const runs = join(dir, 'batch');
    const store = fileSessionStore(runs);
    const j = await store.create('batch');
    const sync = vi.spyOn(fs, 'fsync');
    try {
      const meta = { ...metaBody({ runId: 'batch', created: new Date(), fingerprint, prompt: 'p' }), seq: 1 } as SessionRecord;
      expect(await j.appendAll([meta, { ...turn(0, 'a'), seq: 2 }])).toEqual(['appended', 'appended']);
      expect(sync).toHaveBeenCalledTimes(2); // the journal, then its directory
      sync.mockClear();
      const rest = [
        { ...result('a'), seq: 3 },
        { ...terminalBody('completed'), seq: 4 },
      ] as SessionRecord[];
      expect(await j.appendAll(rest)).toEqual(['appended', 'appended']);
      expect(sync).toHaveBeenCalledTimes(1);
      sync.mockClear();
      expect(await j.appendAll(rest)).toEqual(['duplicate', 'duplicate']);
      expect(sync).not.toHaveBeenCalled();
    } finally {
      sync.mockRestore();
    }
    await j.close();
    const lines = readFileSync(join(runs, 'batch.json'), 'utf8').split('\n');
    expect(lines.map((line) => (line === '' ? 0 : (JSON.parse(line) as { seq: number }).seq))).toEqual([1, 2, 3, 4, 0]);
    expect((await loadRun(store, 'batch')).status).toBe('completed');
  });

  it('refuses to remove a run another journal holds', async () => {
    const store = fileSessionStore(join(dir, 'b'));
    const j = await startRun(store, { runId: 'held', fingerprint, prompt: 'p' });
    expect(await code(store.remove('held'))).toBe('locked');
    await j.close();
    await store.remove('held');
  });

  it('takes over a run whose holder was killed with SIGKILL: no stale lock', async () => {
    const runs = join(dir, 'd');
    const store = fileSessionStore(runs);
    const j = await startRun(store, { runId: 'crash', fingerprint, prompt: 'p' });
    await j.close();
    // a closed journal leaves no lock file behind, and a closed store no spare file
    await store.close?.();
    expect(readdirSync(runs)).toEqual(['crash.json']);
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `require('fs-ext').flockSync(require('fs').openSync(process.argv[1], 'a+'), 'exnb'); process.stdout.write('held\\n'); setInterval(() => {}, 1000);`,
        join(runs, 'crash.lock'),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], cwd: process.cwd() },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.once('data', () => resolve());
        holder.once('exit', (c) => reject(new Error(`holder exited ${String(c)}`)));
      });
      expect(await code(store.open('crash'))).toBe('locked');
      const exited = new Promise((r) => holder.once('exit', r));
      holder.kill('SIGKILL');
      await exited;
      const k = await store.open('crash');
      await appendNext(k, turn(0));
      await k.close();
      expect((await loadRun(store, 'crash')).lastSeq).toBe(2);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('refuses a journal written by another format version, naming the versions', async () => {
    const runs = join(dir, 'e');
    mkdirSync(runs, { recursive: true });
    const line = JSON.stringify({
      seq: 1,
      protocol: 'io.choria.fisk-ai.v1.session.meta',
      meta: { version: 4, run_id: 'v4', created: '2026-01-01T00:00:00Z', fingerprint: {}, novel: 1 },
    });
    writeFileSync(join(runs, 'v4.json'), `${line}\n`);
    const err = await loadRun(fileSessionStore(runs), 'v4').catch((e: unknown) => e);
    expect(isRunStateError(err, 'version')).toBe(true);
    expect((err as Error).message).toContain('snapshot version 4, supported 3');
  });

  it('names the file, line and sequence of a gap, and refuses to reopen the run', async () => {
    const runs = join(dir, 'g');
    const store = fileSessionStore(runs);
    const j = await startRun(store, { runId: 'gap', fingerprint, prompt: 'p' });
    await j.close();
    const file = join(runs, 'gap.json');
    appendFileSync(
      file,
      `${JSON.stringify({ seq: 7, protocol: 'io.choria.fisk-ai.v1.session.terminal', terminal: { reason: 'completed' } })}\n`,
    );
    const err = await store.load('gap').catch((e: unknown) => e);
    expect(isRunStateError(err, 'corrupt')).toBe(true);
    expect((err as Error).message).toBe(
      `corrupt record sequence: ${file} line 2: seq 7 does not follow seq 1 (a gap: records are missing)`,
    );
    expect(isRunStateError(await store.open('gap').catch((e: unknown) => e), 'corrupt')).toBe(true);
  });

  it('lists a file of garbage as corrupt and refuses to load or open it, leaving it as it is', async () => {
    const runs = join(dir, 'garbage');
    mkdirSync(runs, { recursive: true });
    const file = join(runs, 'junk.json');
    writeFileSync(file, 'this is not a journal at all');
    writeFileSync(join(runs, 'empty.json'), '');
    const store = fileSessionStore(runs);
    const listed = await store.list();
    expect(listed).toEqual([
      expect.objectContaining({
        runId: 'junk',
        status: 'corrupt',
        problem: expect.stringContaining(`${file} holds no whole record`) as string,
      }),
    ]);
    const loaded = await store.load('junk').catch((e: unknown) => e);
    expect(isRunStateError(loaded, 'corrupt')).toBe(true);
    expect(isRunStateError(await store.open('junk').catch((e: unknown) => e), 'corrupt')).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('this is not a journal at all');
    // an empty file is a run whose first write has not landed, not a corrupt one
    expect(isRunStateError(await store.load('empty').catch((e: unknown) => e), 'not_found')).toBe(true);
  });

  it('completes a final record that lost only its newline', async () => {
    const runs = join(dir, 'c');
    const store = fileSessionStore(runs);
    const j = await startRun(store, { runId: 'nl', fingerprint, prompt: 'p' });
    await j.close();
    const file = join(runs, 'nl.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/\n$/, ''));
    const k = await store.open('nl');
    await appendNext(k, turn(0));
    await k.close();
    expect((await store.load('nl')).length).toBe(2);
  });
});
