import { describe, expect, it } from 'vitest';
import { codeForStatus, LLM_ERROR_CODES, LlmError } from './errors.js';

describe('LlmError', () => {
  it('maps statuses onto the closed code set', () => {
    expect(codeForStatus(400)).toBe('bad_request');
    expect(codeForStatus(401)).toBe('auth');
    expect(codeForStatus(403)).toBe('auth');
    expect(codeForStatus(429)).toBe('rate_limited');
    expect(codeForStatus(529)).toBe('overloaded');
    expect(codeForStatus(503)).toBe('overloaded');
    expect(codeForStatus(500)).toBe('server');
  });

  it('appends the hint to the message and says whether to retry', () => {
    const e = new LlmError('bad_request', 'HTTP 400', { hint: 'set llm.thinking.enabled to false', status: 400 });
    expect(e.message).toBe('HTTP 400; set llm.thinking.enabled to false');
    expect(e.retryable).toBe(false);
    expect(new LlmError('overloaded', 'busy').retryable).toBe(true);
    for (const code of LLM_ERROR_CODES) expect(typeof new LlmError(code, 'x').retryable).toBe('boolean');
  });
});
