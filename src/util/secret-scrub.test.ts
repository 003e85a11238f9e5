import { describe, expect, it } from 'vitest';
import { secretScrubber, secretsFromEnv, withCredentialCopies } from './secret-scrub.js';

describe('secretScrubber', () => {
  it('replaces every occurrence of each value of 8 or more characters, longest first', () => {
    const scrub = secretScrubber([
      { name: 'SHORT', value: 'abcdefgh' },
      { name: 'LONG', value: 'xx-abcdefgh-yy' },
      { name: 'TINY', value: 'dev' },
    ]);
    expect(scrub('a xx-abcdefgh-yy b abcdefgh c abcdefgh dev')).toBe('a [LONG-REDACTED] b [SHORT-REDACTED] c [SHORT-REDACTED] dev');
  });
  it('returns text unchanged when it holds nothing to scrub', () => {
    expect(secretScrubber([])('plain')).toBe('plain');
    expect(secretScrubber([{ name: 'K', value: '   ' }])('   ')).toBe('   ');
  });
  it('takes the credentials named from an environment, skipping unset ones', () => {
    expect(secretsFromEnv({ A: 'sk-ant-123456789', B: '', PATH: '/bin' }, ['A', 'B', 'C'])).toEqual([{ name: 'A', value: 'sk-ant-123456789' }]);
  });
});

describe('withCredentialCopies', () => {
  it('adds every variable that carries a credential value under another name', () => {
    const env = { GH_PAT: 'ghp-secret-0123456789', GITHUB_TOKEN: 'ghp-secret-0123456789', AUTH: 'Bearer ghp-secret-0123456789', SHORT: 'dev', ALSO: 'dev', PATH: '/bin' };
    expect(withCredentialCopies(env, ['GH_PAT', 'SHORT', 'UNSET'])).toEqual(['AUTH', 'GH_PAT', 'GITHUB_TOKEN', 'SHORT', 'UNSET']);
  });
  it('leaves the names as they are when no credential is set', () => {
    expect(withCredentialCopies({ PATH: '/usr/local/bin:/usr/bin' }, ['B', 'A'])).toEqual(['A', 'B']);
  });
});
