import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/errors.js';
import { BUILT_IN_PROVIDERS, loadProvider, newProvider, providerFacts, providerNames } from './provider-catalog.js';

// This file imports only the catalog, so no built-in provider's code is loaded until a test loads it.
const local = { callTimeoutMs: 1000, apiKey: 'k', baseUrl: 'http://127.0.0.1:9', env: {} };

describe('the provider catalog', () => {
  it('knows every built-in provider and its facts before loading any code', () => {
    expect(providerNames()).toEqual([...BUILT_IN_PROVIDERS].sort());
    expect(providerFacts('anthropic')).toMatchObject({ baseUrlEnv: 'ANTHROPIC_BASE_URL', toolSearch: true });
    expect(providerFacts('openai-chat')).toMatchObject({ baseUrlEnv: 'OPENAI_BASE_URL', toolSearch: false });
    expect(providerFacts('anthropic')?.credentialEnvNames).toContain('ANTHROPIC_API_KEY');
  });

  it('refuses to build a built-in provider whose code is not loaded, naming loadProvider', () => {
    expect(() => newProvider('openai', local)).toThrow(/provider "openai" is not loaded yet: await loadProvider\("openai"\)/);
  });

  it('builds a built-in provider once loadProvider has loaded it, and only that one', async () => {
    await loadProvider('anthropic');
    expect(newProvider('anthropic', local).capabilities().provider).toBe('anthropic');
    expect(() => newProvider('openai-chat', local)).toThrow(/not loaded yet/);
    await loadProvider('openai-chat');
    expect(newProvider('openai-chat', local).capabilities().provider).toBe('openai-chat');
  });

  it('leaves an unknown name to newProvider, which names the known ones', async () => {
    await expect(loadProvider('gemini')).resolves.toBeUndefined();
    expect(() => newProvider('gemini', local)).toThrow(ConfigError);
    expect(() => newProvider('gemini', local)).toThrow(/known providers are anthropic, openai, openai-chat/);
  });
});
