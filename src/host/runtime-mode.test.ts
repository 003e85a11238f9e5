/**
 * A runtime is shaped by its mode: what a mode does not open is a type error in TypeScript, and a
 * runtime of the wrong mode passed at run time (a JavaScript caller) is a usage error, not a
 * configuration error.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedProvider, textResponse } from '../agenttest/scripted-provider.js';
import { parseConfigForMode } from '../config/index.js';
import { EXIT, exitFor } from '../errors/index.js';
import type { Provider } from '../llm/provider.js';
import { startRun } from './run.js';
import { openRuntime, requireRunRuntime } from './runtime.js';
import type { JournaledRuntime, LendRuntime, RunRuntime, Runtime } from './runtime.js';

const config = parseConfigForMode({ text: 'identity: modes\nsystem_prompt: You test.\nllm:\n  model: m\n' }, 'run');
const env = { PATH: process.env['PATH'] };
const opened: Runtime[] = [];
afterEach(async () => {
  for (const r of opened.splice(0)) await r.close();
});

async function failure(body: () => unknown): Promise<unknown> {
  try {
    await body();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

/** Compiled, never called: each marked line must fail to type-check, or tsc fails the build. */
export function mistakesTheCompilerRefuses(lend: LendRuntime, run: RunRuntime): void {
  // @ts-expect-error a lending runtime calls no model, so it cannot start a run
  void startRun(lend, { prompt: 'x' });
  // @ts-expect-error only a run runtime holds a provider
  const provider: Provider = lend.provider;
  // @ts-expect-error a run runtime opened without sessions is not a journaled one
  const journaled: JournaledRuntime = run;
  void provider;
  void journaled;
}

describe('a runtime shaped by its mode', () => {
  it('gives each mode its own shape: a run runtime its provider, a journaled one its session store', async () => {
    const provider = new ScriptedProvider([textResponse('hi')]);
    const run = await openRuntime(config, 'run', { env, provider });
    const journaled = await openRuntime(config, 'run', { env, provider, sessions: { stateDir: '/nonexistent-never-written' } });
    const lend = await openRuntime(config, 'lend', { env });
    opened.push(run, journaled, lend);
    expect(run.mode).toBe('run');
    expect(run.provider).toBe(provider);
    expect(run.sessions).toBeUndefined();
    expect(journaled.sessions.location).toBe('/nonexistent-never-written');
    expect(lend).toMatchObject({ mode: 'lend', provider: undefined, sessions: undefined, memoryStore: undefined, knowledge: undefined });
  });

  it('refuses a runtime of another mode passed where a run runtime belongs, as a usage error', async () => {
    const lend = await openRuntime(config, 'lend', { env });
    opened.push(lend);
    const err = await failure(() => startRun(lend as unknown as RunRuntime, { prompt: 'x' }));
    expect(err).toMatchObject({ name: 'HostError', code: 'usage', category: 'usage' });
    expect((err as Error).message).toBe(
      `startRun needs a runtime opened in run mode (openRuntime(config, 'run', ...)), but was given a runtime opened in "lend" mode`,
    );
    expect(exitFor(err)).toBe(EXIT.usage);
    expect(await failure(() => requireRunRuntime(undefined as unknown as Runtime, 'startRun'))).toMatchObject({
      code: 'usage',
      message: expect.stringContaining('but was given no runtime') as string,
    });
    const run = await openRuntime(config, 'run', { env, provider: new ScriptedProvider([]) });
    opened.push(run);
    expect(requireRunRuntime(run, 'startRun')).toBe(run);
    expect(await failure(() => requireRunRuntime(run, 'a served agent', true))).toMatchObject({
      code: 'usage',
      message: expect.stringContaining('journals every run') as string,
    });
  });

  it('refuses a mode it does not know as a usage error, opening nothing', async () => {
    const err = await failure(() => openRuntime(config, 'serve' as unknown as 'run', { env }));
    expect(err).toMatchObject({ name: 'HostError', code: 'usage' });
    expect((err as Error).message).toBe('openRuntime: unknown mode "serve"; the modes are run, mcp, lend, listing');
    expect(exitFor(err)).toBe(EXIT.usage);
  });
});
