/**
 * The application's introspection can start before `openRuntime` (so the application starts while
 * the command is still loading): the runtime uses it only when it would run exactly the same
 * command, and otherwise kills it and runs its own; a runtime that fails first kills it too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfigForMode } from '../../src/config/index.js';
import { HostError, openRuntime, startRuntimeIntrospection } from '../../src/host/index.js';
import { register } from '../../src/llm/providers.js';
import { alive, awaitLoggedPids, loggedPids } from '../support/processes.js';

const app = fileURLToPath(new URL('../fixtures/fisk-app.mjs', import.meta.url));
let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fisk-early-host-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function config(provider = 'anthropic') {
  return parseConfigForMode(
    { text: `identity: early\napplication_path: ${app}\nsystem_prompt: You look around.\nllm:\n  provider: ${provider}\n  model: m-1\n` },
    'info',
  );
}

function env(extra: Record<string, string> = {}): Record<string, string | undefined> {
  return { PATH: process.env['PATH'], FIXTURE_PIDLOG: join(dir, 'pids'), ...extra };
}

/** The pids of the introspections so far. */
const pids = (): number[] => loggedPids(join(dir, 'pids'));
const awaitPids = (n: number): Promise<number[]> => awaitLoggedPids(join(dir, 'pids'), n);

describe('an introspection started before the runtime', () => {
  it('is nothing without application_path', () => {
    const bare = parseConfigForMode({ text: 'identity: early\nsystem_prompt: You look around.\n' }, 'info');
    expect(startRuntimeIntrospection(bare, env())).toBeUndefined();
  });
  it('answers the runtime that would run the same command, once', async () => {
    const c = config();
    const introspection = startRuntimeIntrospection(c, env());
    const runtime = await openRuntime(c, 'listing', { env: env(), ...(introspection === undefined ? {} : { introspection }) });
    await runtime.close();
    expect(runtime.application?.source.tools.map((t) => t.name)).toContain('stream_ls');
    // the runtime took it rather than discarding it and running its own
    await expect(introspection?.claim()).rejects.toThrow(/claimed before/);
    expect(pids()).toHaveLength(1);
  });
  it('is killed and run again when the credentials to strip changed in between', async () => {
    const c = config('acme-early');
    const secrets = env({ ACME_EARLY_API_KEY: 'acme-early-secret-123456' });
    // before the provider is registered its key is not a credential: the early one inherits it
    const introspection = startRuntimeIntrospection(c, secrets);
    const [first] = await awaitPids(1);
    register('acme-early', () => {
      throw new Error('no model in a listing');
    }, ['ACME_EARLY_API_KEY']);
    const runtime = await openRuntime(c, 'listing', { env: secrets, ...(introspection === undefined ? {} : { introspection }) });
    await runtime.close();
    expect(runtime.application).toBeDefined();
    expect(await awaitPids(2)).toHaveLength(2);
    expect(alive(first as number)).toBe(false);
  });
  it('is killed when the runtime fails before it gets to the application', async () => {
    const c = config();
    const introspection = startRuntimeIntrospection(c, env({ FIXTURE_MODE: 'hang' }));
    const [pid] = await awaitPids(1);
    expect(alive(pid as number)).toBe(true);
    await expect(
      openRuntime(c, 'listing', { env: env({ FIXTURE_MODE: 'hang', FISK_AI_STORE_DIR: 'relative/dir' }), ...(introspection === undefined ? {} : { introspection }) }),
    ).rejects.toBeInstanceOf(HostError);
    expect(alive(pid as number)).toBe(false);
  });
});
