import { describe, expect, it } from 'vitest';
import { PROVIDER_CREDENTIAL_ENV_NAMES } from '../config/index.js';
import { ScriptedProvider } from '../agenttest/scripted-provider.js';
import { newProvider, providerCredentialEnvNames, providerNames, register } from './providers.js';

describe('the process-wide provider registry', () => {
  it('links the built-in providers', () => {
    expect(providerNames()).toEqual(expect.arrayContaining(['anthropic', 'openai', 'openai-chat']));
  });

  it('declares exactly the credential variables config strips (the two lists are pinned together)', () => {
    expect(providerCredentialEnvNames()).toEqual([...PROVIDER_CREDENTIAL_ENV_NAMES].sort());
  });

  it('refuses a duplicate of a built-in and accepts an embedder provider', () => {
    expect(() => register('anthropic', () => new ScriptedProvider(), [])).toThrow(/already registered/);
    register('embedded-test', () => new ScriptedProvider(), []);
    expect(newProvider('embedded-test', { callTimeoutMs: 1 }).capabilities().provider).toBe('scripted');
  });

  it('names llm.provider for an unknown provider', () => {
    expect(() => newProvider('gemini', { callTimeoutMs: 1 })).toThrow(/llm\.provider: unknown provider "gemini": known providers are anthropic, embedded-test, openai, openai-chat/);
  });
});
