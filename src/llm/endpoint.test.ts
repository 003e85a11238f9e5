import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/index.js';
import { resolveEndpoint } from './endpoint.js';

const vars = { baseUrlVar: 'X_BASE_URL', apiKeyVar: 'X_API_KEY', vendor: 'X' };

describe('resolveEndpoint', () => {
  it('prefers options over the provider variables and trims a trailing slash', () => {
    const e = resolveEndpoint(
      { baseUrl: 'https://a.example/v1/', callTimeoutMs: 1, env: { X_BASE_URL: 'https://b.example', X_API_KEY: 'k' } },
      vars,
    );
    expect(e).toEqual({ baseUrl: 'https://a.example/v1', apiKey: 'k', local: false });
  });

  it('uses the configured fallback only when neither the option nor the variable is set', () => {
    expect(
      resolveEndpoint(
        { baseUrlFallback: 'https://c.example', callTimeoutMs: 1, env: { X_BASE_URL: 'https://b.example', X_API_KEY: 'k' } },
        vars,
      ).baseUrl,
    ).toBe('https://b.example');
    expect(resolveEndpoint({ baseUrlFallback: 'https://c.example', callTimeoutMs: 1, env: { X_API_KEY: 'k' } }, vars).baseUrl).toBe(
      'https://c.example',
    );
    expect(() => resolveEndpoint({ baseUrlFallback: 'http://c.example', callTimeoutMs: 1, env: { X_API_KEY: 'k' } }, vars)).toThrow(
      /^llm\.base_url:/,
    );
  });

  it('needs no key on this machine, however it is spelled', () => {
    for (const url of ['http://127.0.0.1:1', 'http://127.8.9.10', 'http://localhost:11434/v1', 'http://[::1]:8080']) {
      expect(resolveEndpoint({ baseUrl: url, callTimeoutMs: 1, env: {} }, vars)).toMatchObject({ apiKey: undefined, local: true });
    }
  });

  it('takes names that only start like loopback as remote: plain http is refused and a key is needed', () => {
    for (const url of ['http://127.0.0.1.nip.io/', 'http://127.attacker.example:11434/v1']) {
      expect(() => resolveEndpoint({ baseUrl: url, callTimeoutMs: 1, env: { X_API_KEY: 'k' } }, vars)).toThrow(/not this machine/);
    }
    expect(() => resolveEndpoint({ baseUrl: 'https://127.0.0.1.nip.io/', callTimeoutMs: 1, env: {} }, vars)).toThrow(/export X_API_KEY/);
  });

  it('needs the key for a remote endpoint, naming the variable, and ignores blank values', () => {
    let caught: unknown;
    try {
      resolveEndpoint({ callTimeoutMs: 1, apiKey: '  ', env: { X_API_KEY: '' } }, vars);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).key).toBe('X_API_KEY');
    expect((caught as Error).message).toMatch(/export X_API_KEY/);
  });

  it('names the variable a refused URL came from', () => {
    expect(() => resolveEndpoint({ callTimeoutMs: 1, env: { X_BASE_URL: 'ftp://files.example', X_API_KEY: 'k' } }, vars)).toThrow(
      /^X_BASE_URL:/,
    );
  });
});
