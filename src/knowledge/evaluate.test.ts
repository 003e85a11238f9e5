import { describe, expect, it } from 'vitest';
import { isAnswer, parseQuestions, rankOfFirstAnswer, scoreRanks } from './evaluate.js';

describe('parseQuestions', () => {
  it('reads question<TAB>path|path lines, skipping blanks and comments, with Windows line ends', () => {
    const text = '# a comment\r\nWhere are backups?\tdocs/a.md | docs/b.md\r\n\r\n  # indented comment\nWhy?\tc.md|\n';
    expect(parseQuestions(text, 'q.tsv')).toEqual([
      { question: 'Where are backups?', answers: ['docs/a.md', 'docs/b.md'], line: 2 },
      { question: 'Why?', answers: ['c.md'], line: 5 },
    ]);
  });
  it('names the line without a tab, without a question or without an answer', () => {
    expect(() => parseQuestions('ok\ta.md\njust words\n', 'q.tsv')).toThrow(/^q\.tsv:2: expected a question/);
    expect(() => parseQuestions('\ta.md\n', 'q.tsv')).toThrow(/^q\.tsv:1: /);
    expect(() => parseQuestions('A question?\t | \n', 'q.tsv')).toThrow(/^q\.tsv:1: /);
    expect(() => parseQuestions('\n# none\n', 'q.tsv')).toThrow(/q\.tsv holds no question/);
  });
});

describe('scoring', () => {
  it('matches an answer by the whole path or by its end at a folder boundary', () => {
    expect(isAnswer('docs/a.md', ['docs/a.md'])).toBe(true);
    expect(isAnswer('vendor/docs/a.md', ['docs/a.md'])).toBe(true);
    expect(isAnswer('mydocs/a.md', ['docs/a.md'])).toBe(false);
    expect(rankOfFirstAnswer(['x.md', 'docs/a.md', 'docs/a.md'], ['docs/a.md'])).toBe(2);
    expect(rankOfFirstAnswer(['x.md'], ['docs/a.md'])).toBe(0);
  });
  it('computes recall@1, recall@5 and MRR, a miss counting zero', () => {
    expect(scoreRanks([1, 2, 6, 0])).toEqual({ questions: 4, recallAt1: 0.25, recallAt5: 0.5, mrr: (1 + 0.5 + 1 / 6) / 4 });
    expect(scoreRanks([])).toEqual({ questions: 0, recallAt1: 0, recallAt5: 0, mrr: 0 });
  });
});
