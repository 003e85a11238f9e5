import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/index.js';
import { ScriptedProvider } from '../agenttest/scripted-provider.js';
import type { ProviderFactory } from './options.js';
import { ProviderRegistry } from './registry.js';

const factory: ProviderFactory = () => new ScriptedProvider();

describe('ProviderRegistry', () => {
  it('builds a registered provider and unions credential variables', () => {
    const r = new ProviderRegistry();
    r.register('b', factory, ['B_KEY', 'SHARED']);
    r.register('a', factory, ['A_KEY', 'SHARED']);
    expect(r.names()).toEqual(['a', 'b']);
    expect(r.credentialEnvNames()).toEqual(['A_KEY', 'B_KEY', 'SHARED']);
    expect(r.create('a', { callTimeoutMs: 1000 }).capabilities().provider).toBe('scripted');
  });

  it('refuses an empty name, a missing factory, a missing credential list and a duplicate', () => {
    const r = new ProviderRegistry();
    expect(() => r.register('', factory, [])).toThrow(/non-empty name/);
    expect(() => r.register('x', undefined as unknown as ProviderFactory, [])).toThrow(/without a factory/);
    expect(() => (r.register as (n: string, f: ProviderFactory) => void)('x', factory)).toThrow(/must declare the environment variables/);
    expect(() => r.register('x', factory, [''])).toThrow(/must declare/);
    r.register('x', factory, []);
    expect(() => r.register('x', factory, [])).toThrow(/already registered/);
  });

  it('names llm.provider and the known providers for an unknown name', () => {
    const r = new ProviderRegistry();
    r.register('anthropic', factory, []);
    r.register('openai', factory, []);
    let caught: unknown;
    try {
      r.create('antropic', { callTimeoutMs: 1 });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).key).toBe('llm.provider');
    expect((caught as ConfigError).message).toMatch(/unknown provider "antropic": known providers are anthropic, openai/);
  });
});
