/**
 * The application's introspection can start before `openRuntime` (so the application starts while
 * the command is still loading): the runtime uses it only when it would run exactly the same
 * command, and otherwise kills it and runs its own; a runtime that fails first kills it too.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfigForMode } from '../../src/config/index.js';
import { startEarlyIntrospection } from '../../src/host/early-introspection.js';
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
    register(
      'acme-early',
      () => {
        throw new Error('no model in a listing');
      },
      ['ACME_EARLY_API_KEY'],
    );
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
      openRuntime(c, 'listing', {
        env: env({ FIXTURE_MODE: 'hang', FISK_AI_STORE_DIR: 'relative/dir' }),
        ...(introspection === undefined ? {} : { introspection }),
      }),
    ).rejects.toBeInstanceOf(HostError);
    expect(alive(pid as number)).toBe(false);
  });
});

describe('an introspection started from the file, before the configuration is checked', () => {
  const file = (extra = ''): string => {
    const path = join(dir, 'agent.yaml');
    writeFileSync(
      path,
      `identity: early\napplication_path: ${app}\nsystem_prompt: You look around.\nllm:\n  provider: anthropic\n  model: m-1\n${extra}`,
    );
    return path;
  };
  /** The names of the variables each introspection so far was started with. */
  const envs = (): string[][] =>
    readFileSync(join(dir, 'envs'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' '));
  const withLog = (extra: Record<string, string> = {}): Record<string, string | undefined> =>
    env({ FIXTURE_ENVLOG: join(dir, 'envs'), ...extra });

  it('is adopted by the checked configuration when it runs the same command, and answers the runtime once', async () => {
    const path = file();
    const early = startEarlyIntrospection(path, withLog());
    expect(early).toBeDefined();
    const c = parseConfigForMode({ path }, 'info');
    const introspection = startRuntimeIntrospection(c, withLog(), early);
    expect(introspection).toBe(early);
    const runtime = await openRuntime(c, 'listing', { env: withLog(), ...(introspection === undefined ? {} : { introspection }) });
    await runtime.close();
    expect(runtime.application?.source.tools.map((t) => t.name)).toContain('stream_ls');
    expect(pids()).toHaveLength(1);
  });

  it('withholds every credential the file names, and agrees with the checked configuration when it withholds the same', async () => {
    // the embeddings key is a credential of this configuration: neither introspection may see it
    const path = file(
      'harness:\n  knowledge:\n    enabled: true\n    embeddings:\n      base_url: http://127.0.0.1:9/v1\n      model: e\n      api_key_env: EARLY_EMBED_KEY\n',
    );
    const secrets = withLog({ EARLY_EMBED_KEY: 'early-embed-secret-123456', ANTHROPIC_API_KEY: 'sk-early-123456' });
    const early = startEarlyIntrospection(path, secrets);
    const introspection = startRuntimeIntrospection(parseConfigForMode({ path }, 'info'), secrets, early);
    expect(introspection).toBe(early);
    await introspection?.claim();
    const [names] = envs();
    expect(names).toContain('PATH');
    expect(names).not.toContain('EARLY_EMBED_KEY');
    expect(names).not.toContain('ANTHROPIC_API_KEY');
  });

  it('is killed and run again when it withheld a variable the checked configuration passes on', async () => {
    // a word of the file that is no credential: withheld early (the file is not checked yet), passed on after
    const path = file('# EARLY_HARMLESS is only a word here\n');
    const vars = withLog({ EARLY_HARMLESS: 'x', FIXTURE_MODE: 'hang' });
    const early = startEarlyIntrospection(path, vars);
    const [first] = await awaitPids(1);
    const introspection = startRuntimeIntrospection(parseConfigForMode({ path }, 'info'), vars, early);
    expect(introspection).not.toBe(early);
    const [, second] = await awaitPids(2);
    await introspection?.discard();
    expect(alive(first as number)).toBe(false);
    expect(alive(second as number)).toBe(false);
    const [before, after] = envs();
    expect(before).not.toContain('EARLY_HARMLESS');
    expect(after).toContain('EARLY_HARMLESS');
  });

  it('starts nothing for a sandboxed configuration: its application starts only inside the sandbox the runtime checks', async () => {
    const path = file('harness:\n  sandbox:\n    enabled: true\n');
    expect(startEarlyIntrospection(path, withLog())).toBeUndefined();
    const c = parseConfigForMode({ path }, 'info');
    expect(startRuntimeIntrospection(c, withLog())).toBeUndefined();
    expect(pids()).toHaveLength(0);
    // the runtime introspects it itself, inside the sandbox, where nothing is writable: not even the log
    await expect(openRuntime(c, 'listing', { env: withLog() })).rejects.toThrow(/ENOENT: no such file or directory, open '.*envs'/);
    const runtime = await openRuntime(c, 'listing', { env: { PATH: process.env['PATH'] } });
    await runtime.close();
    expect(runtime.sandbox?.enabled).toBe(true);
    expect(runtime.application?.source.tools.map((t) => t.name)).toContain('stream_ls');
  });

  it('starts nothing for a file it cannot read, a pipe, or a file that names no application', () => {
    expect(startEarlyIntrospection(join(dir, 'missing.yaml'), env())).toBeUndefined();
    writeFileSync(join(dir, 'bad.yaml'), 'application_path: [unclosed\n');
    expect(startEarlyIntrospection(join(dir, 'bad.yaml'), env())).toBeUndefined();
    writeFileSync(join(dir, 'none.yaml'), 'identity: early\n');
    expect(startEarlyIntrospection(join(dir, 'none.yaml'), env())).toBeUndefined();
    // a pipe is left alone (reading it would take the text the check needs); opening it would block here
    execFileSync('mkfifo', [join(dir, 'pipe.yaml')]);
    expect(startEarlyIntrospection(join(dir, 'pipe.yaml'), env())).toBeUndefined();
    expect(pids()).toHaveLength(0);
  });
});
