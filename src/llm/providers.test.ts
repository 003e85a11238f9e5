import { describe, expect, it } from 'vitest';
import { parseConfigForMode, PROVIDER_CREDENTIAL_ENV_NAMES } from '../config/index.js';
import type { LlmConfig } from '../config/index.js';
import { ScriptedProvider } from '../agenttest/scripted-provider.js';
import { newProvider, newProviderFromConfig, providerCredentialEnvNames, providerNames, register } from './providers.js';

describe('the process-wide provider registry', () => {
  it('links the built-in providers', () => {
    expect(providerNames()).toEqual(expect.arrayContaining(['anthropic', 'openai', 'openai-chat']));
  });

  it('declares the credential variables of every built-in provider, the ones config withholds from tools', () => {
    expect(providerCredentialEnvNames()).toEqual([...PROVIDER_CREDENTIAL_ENV_NAMES].sort());
  });

  it('refuses a duplicate of a built-in and accepts an embedder provider', () => {
    expect(() => register('anthropic', () => new ScriptedProvider(), [])).toThrow(/already registered/);
    register('embedded-test', () => new ScriptedProvider(), []);
    expect(newProvider('embedded-test', { callTimeoutMs: 1 }).capabilities().provider).toBe('scripted');
  });

  it('names llm.provider for an unknown provider', () => {
    expect(() => newProvider('gemini', { callTimeoutMs: 1 })).toThrow(
      /llm\.provider: unknown provider "gemini": known providers are anthropic, embedded-test, openai, openai-chat/,
    );
  });
});

describe('newProviderFromConfig', () => {
  const base = parseConfigForMode(
    { text: 'system_prompt: hi\nllm:\n  model: m\n  provider: openai-chat\n  base_url: http://127.0.0.1:9/v1\n' },
    'run',
  ).llm;
  const llm = (over: Partial<LlmConfig> = {}): LlmConfig => ({ ...base, ...over });

  it('builds the configured provider from llm.provider and llm.base_url', () => {
    expect(newProviderFromConfig(llm(), { env: {} }).capabilities().provider).toBe('openai-chat');
  });

  it('lets the provider variable beat llm.base_url, and a flag beat both', () => {
    expect(() => newProviderFromConfig(llm(), { env: { OPENAI_BASE_URL: 'http://remote.example/v1' } })).toThrow(/^OPENAI_BASE_URL:/);
    expect(() =>
      newProviderFromConfig(llm(), { baseUrl: 'http://127.0.0.1:1', env: { OPENAI_BASE_URL: 'http://remote.example/v1' } }),
    ).not.toThrow();
  });

  it('names llm.base_url, or the flag that overrode it, for a refused URL', () => {
    expect(() => newProviderFromConfig(llm({ baseUrl: 'http://remote.example/v1' }), { env: {} })).toThrow(/^llm\.base_url:/);
    expect(() => newProviderFromConfig(llm(), { baseUrl: 'http://remote.example/v1', baseUrlKey: '--base-url', env: {} })).toThrow(
      /^--base-url:/,
    );
  });
});
