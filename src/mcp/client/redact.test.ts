import { describe, expect, it } from 'vitest';
import { childEnvironment } from './env.js';
import { printableEndpoint, redactorFor } from './redact.js';

describe('redactorFor', () => {
  it('replaces secrets of eight characters or more, longest first, and leaves short ones', () => {
    const redact = redactorFor(['abcdefgh', 'abcdefgh-longer', 'short'], undefined);
    expect(redact('x abcdefgh-longer y abcdefgh z short')).toBe('x [REDACTED] y [REDACTED] z short');
  });

  it('counts URL userinfo as secret and keeps the path when printing the endpoint', () => {
    const url = 'https://operator:hunter2-password@mcp.example.com/v1/mcp?key=k3y-value-123';
    const redact = redactorFor(['k3y-value-123'], url);
    const shown = printableEndpoint(url, redact);
    expect(shown).toBe('https://REDACTED@mcp.example.com/v1/mcp?key=[REDACTED]');
    expect(redact('failed: hunter2-password rejected')).toBe('failed: [REDACTED] rejected');
  });
});

describe('childEnvironment', () => {
  it('inherits everything but the credentials, and adds the entry env', () => {
    const env = childEnvironment({ PATH: '/bin', HOME: '/h', ANTHROPIC_API_KEY: 'k', UNSET: undefined }, ['ANTHROPIC_API_KEY'], {
      FOO: 'bar',
    });
    expect(env).toEqual({ PATH: '/bin', HOME: '/h', FOO: 'bar' });
  });

  it('passes a credential the entry names explicitly', () => {
    expect(childEnvironment({ OPENAI_API_KEY: 'ambient' }, ['OPENAI_API_KEY'], { OPENAI_API_KEY: 'granted' })).toEqual({
      OPENAI_API_KEY: 'granted',
    });
  });
});
