import { describe, expect, it } from 'vitest';
import type { Message } from '../llm/types.js';
import { ZERO_USAGE } from '../llm/types.js';
import {
  approvalBody,
  assistantBody,
  claimBody,
  deferralBody,
  grantBody,
  memoryScopeBody,
  metaBody,
  terminalBody,
  toolResultBody,
  userBody,
} from './builders.js';
import { checkAnswer } from './answer.js';
import { isRunStateError } from './errors.js';
import type { RunStateErrorCode } from './errors.js';
import { fold } from './fold.js';
import type { RecordBody, StoredRecord } from './records.js';

function journal(...bodies: RecordBody[]): StoredRecord[] {
  return bodies.map((b, i) => ({ ...b, seq: i + 1 }));
}
const meta = metaBody({ runId: 'r', created: new Date(0), fingerprint: { model: 'm' }, prompt: 'do it' });
const call = (id: string, name = 'echo'): Message['content'][number] => ({ type: 'tool_use', id, name, input: '{}' });
const turn = (iteration: number, ...ids: string[]): RecordBody =>
  assistantBody({
    iteration,
    message: { role: 'assistant', content: [{ type: 'text', text: `t${iteration}` }, ...ids.map((id) => call(id))] },
    usage: { ...ZERO_USAGE, input: 10, output: 5, cacheRead: 2 },
  });
const result = (id: string, content = `out-${id}`): RecordBody => toolResultBody({ type: 'tool_result', toolUseId: id, content });

function failsWith(records: StoredRecord[], code: RunStateErrorCode, text?: string): void {
  try {
    fold(records);
  } catch (err) {
    expect(isRunStateError(err, code)).toBe(true);
    if (text !== undefined) expect((err as Error).message).toContain(text);
    return;
  }
  throw new Error('fold accepted a bad journal');
}

describe('fold', () => {
  it('rebuilds the conversation: prompt, assistant turns and one user message of results each', () => {
    const run = fold(journal(meta, turn(0, 'a', 'b'), result('b'), result('a'), turn(1), terminalBody('completed')));
    expect(run.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(run.messages[2]?.content.map((b) => (b.type === 'tool_result' ? b.toolUseId : ''))).toEqual(['b', 'a']);
    expect(run.pending).toBeUndefined();
    expect(run.counters).toEqual({
      llmCalls: 2,
      toolCalls: 2,
      remoteToolCalls: 0,
      usage: { input: 20, output: 10, cacheRead: 4, cacheWrite: 0, thinking: 0 },
      delegated: { input: 0, output: 0, counted: 0 },
    });
    expect(run.nextIteration).toBe(2);
    expect(run.status).toBe('completed');
    expect(run.lastSeq).toBe(6);
  });

  it('leaves a trailing turn with unanswered calls as the pending batch', () => {
    const run = fold(journal(meta, turn(0, 'a', 'b', 'c'), result('a'), deferralBody('c', 'echo', 'later'), terminalBody('suspended')));
    expect(run.messages).toHaveLength(1);
    expect(run.pending?.calls.map((c) => c.state)).toEqual(['answered', 'unanswered', 'deferred']);
    expect(run.status).toBe('suspended');
    expect(run.nextIteration).toBe(1);
  });

  it('treats a claim as inert between a turn and its results', () => {
    const run = fold(journal(meta, turn(0, 'a', 'b'), result('a'), claimBody('x', new Date(0)), result('b')));
    expect(run.pending).toBeUndefined();
    expect(run.messages).toHaveLength(3);
    const stillPending = fold(journal(meta, turn(0, 'a'), claimBody('x', new Date(0))));
    expect(stillPending.pending?.calls[0]?.state).toBe('unanswered');
  });

  it('commits an open turn on a follow-up and merges consecutive user content', () => {
    const run = fold(journal(meta, turn(0, 'a'), result('a'), userBody({ role: 'user', content: [{ type: 'text', text: 'more' }] })));
    expect(run.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(run.messages[2]?.content.map((b) => b.type)).toEqual(['tool_result', 'text']);
    const twice = fold(journal(meta, userBody({ role: 'user', content: [{ type: 'text', text: 'x' }] })));
    expect(twice.messages).toHaveLength(1);
    expect(twice.messages[0]?.content).toHaveLength(2);
  });

  it('reopens the status on a later model call and keeps the newest memory scope', () => {
    const run = fold(
      journal(
        meta,
        turn(0),
        terminalBody('suspended'),
        memoryScopeBody({ a: 1 }),
        memoryScopeBody({ a: 2 }),
        claimBody('x', new Date(0)),
        turn(1),
      ),
    );
    expect(run.status).toBe('open');
    expect(run.memoryScope).toEqual({ a: 2 });
  });

  it('restores grants once per tool and attaches approvals to waiting calls', () => {
    const run = fold(
      journal(meta, turn(0, 'a', 'b'), result('a'), grantBody('echo', 'a'), grantBody('echo', 'b'), approvalBody('b', 'approve')),
    );
    expect(run.grants).toEqual([{ tool: 'echo', toolUseId: 'a' }]);
    const b = run.pending?.calls[1];
    expect(b?.state === 'unanswered' && b.approval).toBe('approve');
  });

  it('folds the tokens delegated calls report, and counts for the budget only those that ask', () => {
    const body = (id: string, counts: boolean): ReturnType<typeof toolResultBody> =>
      toolResultBody(
        { type: 'tool_result', toolUseId: id, content: 'x' },
        { delegated: { input_tokens: 100, output_tokens: 20, ...(counts ? { counts_budget: true } : {}) } },
      );
    const run = fold(journal(meta, turn(0, 'a', 'b'), body('a', true), body('b', false)));
    expect(run.counters.delegated).toEqual({ input: 200, output: 40, counted: 120 });
  });

  it('skips an unknown optional record and counts remote calls', () => {
    const records = journal(meta, turn(0, 'a'), {
      ...toolResultBody({ type: 'tool_result', toolUseId: 'a', content: 'x' }, { remote: true }),
    });
    records.push({ seq: 4, protocol: 'io.choria.fisk-ai.v1.session.future', optional: true, unknown: true });
    const run = fold(records);
    expect(run.counters.remoteToolCalls).toBe(1);
    expect(run.lastSeq).toBe(4);
  });

  it('refuses a journal that does not start with meta, or of another version', () => {
    failsWith(journal(turn(0)), 'corrupt', 'first record is not meta');
    failsWith([], 'corrupt');
    const v4 = { ...meta, meta: { ...meta.meta, version: 4 }, seq: 1 } as StoredRecord;
    failsWith([v4], 'version', 'snapshot version 4, supported 3');
    const v2 = { ...meta, meta: { ...meta.meta, version: 2 }, seq: 1 } as StoredRecord;
    failsWith([v2], 'version');
  });

  it('refuses sequences that do not strictly increase, a second meta and stray results', () => {
    const r = journal(meta, turn(0, 'a'));
    failsWith([r[0] as StoredRecord, { ...(r[1] as StoredRecord), seq: 1 }], 'corrupt', 'does not follow');
    failsWith(journal(meta, meta), 'corrupt', 'second meta');
    failsWith(journal(meta, result('a')), 'corrupt', 'before any assistant');
    failsWith(journal(meta, turn(0, 'a'), result('z')), 'corrupt', 'answers no call');
    failsWith(journal(meta, turn(0, 'a'), result('a'), result('a')), 'corrupt', 'second result');
    failsWith(journal(meta, turn(0, 'a'), deferralBody('q', 'echo')), 'corrupt', 'deferral');
  });
});

describe('checkAnswer', () => {
  const deferred = journal(meta, turn(0, 'a', 'b'), result('a'), deferralBody('b', 'echo'), terminalBody('suspended'));

  it('accepts a deferred call that is still waiting', () => {
    expect(checkAnswer(fold(deferred), 'b').call.id).toBe('b');
  });

  it('says already answered for a call the answer committed', () => {
    const answered = fold([...deferred, { ...result('b'), seq: 6 }]);
    expect(answered.pending).toBeUndefined();
    expect(() => checkAnswer(answered, 'b')).toThrow(/already answered/);
    expect(() => checkAnswer(fold(deferred), 'a')).toThrow(/already answered/);
  });

  it('refuses an undeferred or unknown call', () => {
    const open = fold(journal(meta, turn(0, 'a')));
    expect(() => checkAnswer(open, 'a')).toThrow(/was not deferred/);
    expect(() => checkAnswer(open, 'zz')).toThrow(/has no call zz/);
  });
});
