import { describe, expect, it } from 'vitest';
import { listModelsCommand, statusHint, unreachableMessage } from './remedy.js';

const anthropic = {
  keyVar: 'ANTHROPIC_API_KEY',
  baseUrl: 'https://api.anthropic.com',
  urlVar: 'ANTHROPIC_BASE_URL',
  api: 'anthropic',
} as const;
const openai = { keyVar: 'OPENAI_API_KEY', baseUrl: 'http://127.0.0.1:11434/v1/', urlVar: 'OPENAI_BASE_URL', api: 'openai' } as const;

describe('statusHint', () => {
  it('names the variable holding the key on a 401 and a 403', () => {
    expect(statusHint(401, 'm', anthropic)).toMatch(/check the key in ANTHROPIC_API_KEY/);
    expect(statusHint(403, 'm', openai)).toMatch(/OPENAI_API_KEY lacks permission for model "m"/);
  });

  it('names the model and a command listing the served models on a 404', () => {
    const hint = statusHint(404, 'claude-nope', anthropic) ?? '';
    expect(hint).toContain('model "claude-nope" was not found at https://api.anthropic.com');
    expect(hint).toContain('set llm.model');
    expect(hint).toContain('curl -s https://api.anthropic.com/v1/models -H "x-api-key: $ANTHROPIC_API_KEY"');
  });

  it('says nothing for other statuses', () => {
    for (const s of [400, 429, 500, 529]) expect(statusHint(s, 'm', anthropic)).toBeUndefined();
  });

  it('lists OpenAI-compatible models under the base URL with a bearer key', () => {
    expect(listModelsCommand(openai)).toBe('curl -s http://127.0.0.1:11434/v1/models -H "Authorization: Bearer $OPENAI_API_KEY"');
  });
});

describe('unreachableMessage', () => {
  it('names the endpoint, the innermost reason and where the address is set', () => {
    const refused = new Error('connect ECONNREFUSED 127.0.0.1:11434');
    const err = new Error('Connection error.', { cause: new Error('fetch failed', { cause: refused }) });
    expect(unreachableMessage(err, openai)).toBe(
      'cannot reach the model service at http://127.0.0.1:11434/v1/ (fetch failed: connect ECONNREFUSED 127.0.0.1:11434); check that it is up and that the address is right (--base-url, OPENAI_BASE_URL or llm.base_url)',
    );
    expect(unreachableMessage(new Error('socket hang up'), anthropic)).toContain('at https://api.anthropic.com (socket hang up)');
  });
});
