import { describe, expect, it } from 'vitest';
import { MIN_BEARER_TOKEN_LENGTH, readBearerToken } from './bearer-token.js';

const KEY = 'expose.agent.x.auth_token_env';

describe('readBearerToken', () => {
  it('returns the trimmed value of the named variable', () => {
    expect(readBearerToken({ T: '  0123456789abcdef  ' }, 'T', KEY)).toEqual({ token: '0123456789abcdef' });
  });

  it('names the variable and the key when it is unset or blank', () => {
    for (const env of [{}, { T: '' }, { T: '   ' }]) {
      const r = readBearerToken(env, 'T', KEY);
      expect(r).toEqual({ problem: expect.stringContaining(`${KEY} names T, which is not set or empty`) as string });
    }
  });

  it('refuses a token one character short of the minimum, without printing it', () => {
    const short = 'x'.repeat(MIN_BEARER_TOKEN_LENGTH - 1);
    const r = readBearerToken({ T: short }, 'T', KEY);
    expect('problem' in r ? r.problem : '').toContain(`T (named by ${KEY}) holds a token shorter than 16 characters`);
    expect('problem' in r ? r.problem : short).not.toContain(short);
    expect(readBearerToken({ T: 'x'.repeat(MIN_BEARER_TOKEN_LENGTH) }, 'T', KEY)).toEqual({ token: 'x'.repeat(16) });
  });
});
