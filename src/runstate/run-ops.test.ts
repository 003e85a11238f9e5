import { describe, expect, it } from 'vitest';
import { ZERO_USAGE } from '../llm/types.js';
import { assistantBody, deferralBody, terminalBody } from './builders.js';
import { isRunStateError } from './errors.js';
import { memorySessionStore } from './memory-store.js';
import { answerDeferred, beginRun, claimRun, loadRun, startRun } from './run-ops.js';
import { appendNext } from './store.js';
import type { Journal, SessionStore } from './store.js';

const fingerprint = { model: 'm' };
const turn = assistantBody({
  iteration: 0,
  message: {
    role: 'assistant',
    content: [
      { type: 'tool_use', id: 'a', name: 'x', input: '{}' },
      { type: 'tool_use', id: 'b', name: 'y', input: '{}' },
    ],
  },
  usage: ZERO_USAGE,
});

describe('run operations', () => {
  it('starts a run under a generated time-sortable id with its meta record', async () => {
    const store = memorySessionStore();
    const j = await startRun(store, { fingerprint, prompt: 'go', interactive: true });
    expect(j.runId).toMatch(/^[0-9A-Za-z]{27}$/);
    await j.close();
    const run = await loadRun(store, j.runId);
    expect(run).toMatchObject({ prompt: 'go', interactive: true, lastSeq: 1, status: 'open' });
  });

  it('claims before reading, so the runner continues after the claim', async () => {
    const store = memorySessionStore();
    const j = await startRun(store, { runId: 'r', fingerprint, prompt: 'go' });
    await appendNext(j, turn);
    await j.close();
    const { journal, run } = await claimRun(store, 'r', 'me');
    expect(journal.lastSeq()).toBe(3);
    expect(run.lastSeq).toBe(3);
    expect(run.pending?.calls.map((c) => c.state)).toEqual(['unanswered', 'unanswered']);
    await journal.close();
  });

  it('validates an answer before taking the run, so a refusal costs no lock', async () => {
    const store = memorySessionStore();
    const j = await startRun(store, { runId: 'r', fingerprint, prompt: 'go' });
    await appendNext(j, turn);
    await appendNext(j, deferralBody('b', 'y'));
    // the run is still held: a bad answer must be refused for what it is, not for the lock
    const bad = await answerDeferred(store, 'r', 'a', 'x').catch((e: unknown) => e);
    expect(isRunStateError(bad, 'answer')).toBe(true);
    const held = await answerDeferred(store, 'r', 'b', 'x').catch((e: unknown) => e);
    expect(isRunStateError(held, 'locked')).toBe(true);
    await appendNext(j, terminalBody('suspended'));
    await j.close();
    await answerDeferred(store, 'r', 'b', 'done', { isError: true });
    const run = await loadRun(store, 'r');
    const b = run.pending?.calls[1];
    expect(b?.state === 'answered' && b.result).toEqual({ type: 'tool_result', toolUseId: 'b', content: 'done', isError: true });
  });

  it('refuses a run whose meta names another run', async () => {
    const store = memorySessionStore();
    const j = await store.create('one');
    await appendNext(j, {
      protocol: 'io.choria.fisk-ai.v1.session.meta',
      meta: { version: 3, run_id: 'two', created: '2026-01-01T00:00:00Z', fingerprint },
    });
    await j.close();
    const err = await loadRun(store, 'one').catch((e: unknown) => e);
    expect(isRunStateError(err, 'corrupt')).toBe(true);
  });
});

/**
 * A store whose journals hold their first append until `release` is called, or fail it with `fail`;
 * `exclusive` says whether its create shuts out other writers (as the file store's lock does).
 */
function slowFirstStore(exclusive = true): { store: SessionStore; release: () => void; fail: (err: Error) => void } {
  const inner = memorySessionStore();
  let release = (): void => undefined;
  let fail = (_err: Error): void => undefined;
  const gate = new Promise<void>((resolve, reject) => {
    release = resolve;
    fail = reject;
  });
  gate.catch(() => undefined);
  let first = true;
  const slow = (journal: Journal): Journal => ({
    runId: journal.runId,
    lastSeq: () => journal.lastSeq(),
    isHeld: () => journal.isHeld(),
    close: () => journal.close(),
    appendAll: (records) => journal.appendAll(records),
    async append(record) {
      if (first) {
        first = false;
        await gate;
      }
      return journal.append(record);
    },
  });
  return {
    store: { ...inner, exclusiveCreate: exclusive, create: async (runId) => slow(await inner.create(runId)) },
    release: () => release(),
    fail: (err) => fail(err),
  };
}

describe('beginRun', () => {
  it('returns before the meta record is stored, and every later use waits for it', async () => {
    const { store, release } = slowFirstStore();
    const j = await beginRun(store, { runId: 'early', fingerprint, prompt: 'go' });
    // the meta record counts from the start, so the next record follows it
    expect(j.lastSeq()).toBe(1);
    let appended = false;
    const next = appendNext(j, turn).then(() => (appended = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(appended).toBe(false);
    release();
    await next;
    await j.close();
    const run = await loadRun(store, 'early');
    expect(run).toMatchObject({ prompt: 'go', lastSeq: 2 });
  });

  it('fails every later append with the error that kept the meta record out, and is not held', async () => {
    const { store, fail } = slowFirstStore();
    const j = await beginRun(store, { runId: 'refused', fingerprint, prompt: 'go' });
    fail(new Error('the disk is full'));
    await expect(appendNext(j, turn)).rejects.toThrow('the disk is full');
    await expect(j.appendAll([])).rejects.toThrow('the disk is full');
    expect(await j.isHeld()).toBe(false);
    await j.close();
  });

  it('leaves no unhandled rejection when the run ends before it appends again', async () => {
    const { store, fail } = slowFirstStore();
    const unhandled: unknown[] = [];
    const listener = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      const j = await beginRun(store, { runId: 'quiet', fingerprint, prompt: 'go' });
      fail(new Error('refused'));
      await j.close();
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });

  it('waits for the meta record where it is the claim on the run, and refuses a run another writer has', async () => {
    const { store, release } = slowFirstStore(false);
    let begun = false;
    const started = beginRun(store, { runId: 'claimed', fingerprint, prompt: 'go' }).then((j) => {
      begun = true;
      return j;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(begun).toBe(false);
    release();
    const j = await started;
    expect(j.lastSeq()).toBe(1);
    await j.close();

    const refused = slowFirstStore(false);
    const starting = beginRun(refused.store, { runId: 'taken', fingerprint, prompt: 'go' });
    refused.fail(new Error('run is already locked (another writer holds it)'));
    await expect(starting).rejects.toThrow('another writer holds it');
  });
});
