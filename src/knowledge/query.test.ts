import { describe, expect, it } from 'vitest';
import { citationMapper, formatCitation, headingAnchor, parseCitation } from './citation.js';
import { parseEnumQuery } from './enumerate.js';
import { freeTextQuery } from './query.js';
import { fuse } from './search.js';
import { tierLine } from './tier.js';

describe('freeTextQuery', () => {
  it('reduces text to OR-ed quoted terms, reporting short ones other than "a" and "I"', () => {
    const q = freeTextQuery('How do I "configure" NEAR(x) a backup-policy in C?');
    expect(q.match).toBe('"How" OR "do" OR "configure" OR "NEAR" OR "backup" OR "policy" OR "in"');
    expect(q.dropped).toEqual(['x', 'C']);
  });
  it('caps at forty terms and has no match for punctuation only', () => {
    const q = freeTextQuery(Array.from({ length: 45 }, (_, i) => `w${i}`).join(' '));
    expect(q.terms).toHaveLength(40);
    expect(q.overflow).toBe(5);
    expect(freeTextQuery('?! - *').match).toBeUndefined();
  });
});

describe('parseEnumQuery', () => {
  it('reads words, phrases, exclusions and scopes', () => {
    expect(parseEnumQuery('retention "legal hold" -draft heading:policy -body:"old text"')).toEqual([
      { text: 'retention', phrase: false, negated: false, scope: 'any' },
      { text: 'legal hold', phrase: true, negated: false, scope: 'any' },
      { text: 'draft', phrase: false, negated: true, scope: 'any' },
      { text: 'policy', phrase: false, negated: false, scope: 'heading' },
      { text: 'old text', phrase: true, negated: true, scope: 'body' },
    ]);
  });
  it.each(['a OR b', 'a AND b', 'NOT a', 'NEAR(a b)', 'polic*', '"legal hold"*', '"open'])('refuses %s', (q) => {
    expect(() => parseEnumQuery(q)).toThrow(/not part of|trailing \*|unterminated/);
  });
  it('takes lower-case operator words as plain words', () => {
    expect(parseEnumQuery('or and not').map((t) => t.text)).toEqual(['or', 'and', 'not']);
  });
});

describe('citations', () => {
  it('round-trips and splits at the last #', () => {
    expect(parseCitation(formatCitation('docs/c#/intro.md', 3))).toEqual({ path: 'docs/c#/intro.md', ordinal: 3 });
    expect(() => parseCitation('docs/a.md')).toThrow(/missing the '#<ordinal>' suffix/);
    expect(() => parseCitation('#3')).toThrow(/malformed/);
    expect(() => parseCitation('a.md#-1')).toThrow(/malformed/);
  });
  it('maps paths to URLs by the first matching rule, with the heading anchor', () => {
    const map = citationMapper([
      { pattern: '^docs/_openvox_8x/(.+).(markdown|md)$', replace: 'https://docs.example/openvox/$1.html#${anchor}' },
      { pattern: '^docs/(.+)\\.md$', replace: 'https://x.test/${1}' },
    ]);
    expect(map('docs/_openvox_8x/lang/facts.md', 'Facts > Custom Facts (v2)!')).toBe(
      'https://docs.example/openvox/lang/facts.html#custom-facts-v2',
    );
    expect(map('docs/_openvox_8x/lang/facts.md', '')).toBe('https://docs.example/openvox/lang/facts.html');
    expect(map('docs/b.md', 'B')).toBe('https://x.test/b');
    expect(map('other/c.md', 'C')).toBeUndefined();
    expect(headingAnchor('A > Costs in $US')).toBe('costs-in-us');
  });
});

describe('fuse', () => {
  it('sums reciprocal ranks and breaks ties on the lower chunk id', () => {
    expect(
      fuse([
        [3, 1, 2],
        [1, 3],
      ]).map((f) => f.id),
    ).toEqual([1, 3, 2]);
    expect(fuse([[5], [4]]).map((f) => f.id)).toEqual([4, 5]);
  });
});

describe('tierLine', () => {
  it('names the failing step and the failure of a degraded search', () => {
    expect(tierLine({ kind: 'degraded', model: 'm', step: 'embed_query', failure: 'deadline', detail: 'no answer within 100 ms' })).toBe(
      'tier: lexical (degraded from hybrid: embedding the query timed out: no answer within 100 ms) - model=m',
    );
    expect(tierLine({ kind: 'hybrid', model: 'm', dimension: 3 })).toBe('tier: hybrid (FTS5 + vectors, RRF) - model=m dimension=3');
  });
});
