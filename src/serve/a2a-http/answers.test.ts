import { Role } from '@a2a-js/sdk';
import type { Message, Part } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { citedIn, passagesOf } from './citations.js';
import type { CitedPassage } from './citations.js';
import { approvalAnswer, confirmAnswer, inputAnswer, questionParts, selectAnswer } from './questions.js';
import { dataPart, textPart } from './wire.js';

const msg = (...parts: Part[]): Message => ({
  messageId: 'm',
  contextId: '',
  taskId: 't',
  role: Role.ROLE_USER,
  parts,
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});
const said = (text: string): Message => msg(textPart(text));

describe('a caller answering a question', () => {
  it('confirms only with a yes, never by default', () => {
    for (const yes of ['yes', 'Y', ' ok ', 'approve']) expect(confirmAnswer(said(yes))).toBe(true);
    for (const no of ['no', '', 'maybe', 'yes please do not']) expect(confirmAnswer(said(no))).toBe(false);
    expect(confirmAnswer(msg(dataPart({ answer: true })))).toBe(true);
    expect(confirmAnswer(msg(textPart('yes'), dataPart({ answer: false })))).toBe(false);
  });

  it('approves once or always, and takes anything else as a decline with the words as its reason', () => {
    expect(approvalAnswer(said('once'))).toBe('once');
    expect(approvalAnswer(said('ALWAYS'))).toBe('always');
    expect(approvalAnswer(said('yes'))).toBe('once');
    expect(approvalAnswer(said('no'))).toBe('decline');
    expect(approvalAnswer(said('not on production, use staging'))).toEqual({
      decision: 'decline',
      reason: 'not on production, use staging',
    });
    expect(approvalAnswer(msg(dataPart({ answer: { decision: 'decline', reason: 'later' } })))).toEqual({
      decision: 'decline',
      reason: 'later',
    });
    expect(approvalAnswer(msg(dataPart({ answer: 42 })))).toBe('decline');
  });

  it('chooses an option by its text or its number, and nothing else', () => {
    const options = ['red', 'Green', 'blue'];
    expect(selectAnswer(said('green'), options)).toBe('Green');
    expect(selectAnswer(said('3'), options)).toBe('blue');
    expect(selectAnswer(said('4'), options)).toBeNull();
    expect(selectAnswer(said('0'), options)).toBeNull();
    expect(selectAnswer(said('purple'), options)).toBeNull();
  });

  it('takes free text, an empty reply being no answer', () => {
    expect(inputAnswer(said('  staging  '))).toBe('staging');
    expect(inputAnswer(said('   '))).toBeNull();
  });

  it('puts the question in words, with how to answer, and as data', () => {
    const parts = questionParts({ kind: 'select', text: 'Which colour?', options: ['red', 'blue'] });
    expect(parts[0]?.content).toEqual({ $case: 'text', value: 'Which colour?\n\nReply with one of: 1) red, 2) blue.' });
    expect(parts[1]?.content).toEqual({
      $case: 'data',
      value: { question: { kind: 'select', text: 'Which colour?', options: ['red', 'blue'] } },
    });
  });
});

describe('citations of a served answer', () => {
  const output = JSON.stringify({
    tier: 'full text',
    results: [
      { ref: 'docs/a.md#0', section: 'Intro', url: 'https://docs.example/a#intro', content: '...' },
      { ref: 'docs/b.md#3', section: '', content: '...' },
      { section: 'no ref', content: '...' },
    ],
  });

  it('reads the passages of a knowledge_search result and ignores anything else', () => {
    expect(passagesOf(output)).toEqual([
      { ref: 'docs/a.md#0', section: 'Intro', url: 'https://docs.example/a#intro' },
      { ref: 'docs/b.md#3' },
    ]);
    expect(passagesOf('not json')).toEqual([]);
    expect(passagesOf('{"results": "nope"}')).toEqual([]);
  });

  it('cites what the answer names, else what the run read', () => {
    const retrieved = new Map<string, CitedPassage>(passagesOf(output).map((p) => [p.ref, p]));
    expect(citedIn('As docs/b.md#3 says, yes.', retrieved).map((p) => p.ref)).toEqual(['docs/b.md#3']);
    expect(citedIn('Yes.', retrieved).map((p) => p.ref)).toEqual(['docs/a.md#0', 'docs/b.md#3']);
    expect(citedIn('Yes.', new Map())).toEqual([]);
  });
});
