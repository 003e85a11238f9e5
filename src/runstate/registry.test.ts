import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfigForMode } from '../config/index.js';
import { isRunStateError } from './errors.js';
import { memorySessionStore } from './memory-store.js';
import {
  defaultRunsDir,
  openConfiguredSessionStore,
  openSessionStore,
  registerSessionBackend,
  sessionBackendNames,
  sessionStorePaths,
} from './registry.js';

const dir = mkdtempSync(join(tmpdir(), 'fisk-reg-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const deps = { env: { HOME: dir }, cwd: dir };

describe('session backend registry', () => {
  it('knows file and jetstream and refuses bad registrations', () => {
    expect(sessionBackendNames()).toEqual(expect.arrayContaining(['file', 'jetstream']));
    expect(() =>
      registerSessionBackend('', { needs: [], checkOptions: () => undefined, open: () => Promise.resolve(memorySessionStore()) }),
    ).toThrow(/needs a name/);
    expect(() =>
      registerSessionBackend('file', { needs: [], checkOptions: () => undefined, open: () => Promise.resolve(memorySessionStore()) }),
    ).toThrow(/already registered/);
    expect(() => registerSessionBackend('x', {} as never)).toThrow(/no open function/);
  });

  it('refuses an unknown backend naming harness.sessions.backend', async () => {
    const err = await openSessionStore({ backend: 'sqlite', options: '{}' }, deps).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).key).toBe('harness.sessions.backend');
    expect((err as Error).message).toContain('known backends are [file jetstream');
  });

  it('decodes options strictly, naming the key', async () => {
    const typo = await openSessionStore({ backend: 'file', options: '{"directroy":"x"}' }, deps).catch((e: unknown) => e);
    expect(typo).toBeInstanceOf(ConfigError);
    expect((typo as Error).message).toContain('harness.sessions.options.directroy');
    const noStream = await openSessionStore({ backend: 'jetstream', options: '{}' }, deps).catch((e: unknown) => e);
    expect((noStream as Error).message).toMatch(/harness.sessions.options.stream: is required/);
  });

  it('resolves the file directory: --state-dir, then options.directory, then XDG', async () => {
    expect((await openSessionStore({ backend: 'file', options: '{"directory":"j"}' }, deps)).location).toBe(join(dir, 'j'));
    expect((await openSessionStore({ backend: 'file', options: '{"directory":"j"}' }, { ...deps, stateDir: 'sd' })).location).toBe(
      join(dir, 'sd'),
    );
    expect(defaultRunsDir({ HOME: '/h' })).toBe('/h/.local/state/fisk-ai/runs');
    expect(defaultRunsDir({ HOME: '/h', XDG_STATE_HOME: '/s' })).toBe('/s/fisk-ai/runs');
    expect(defaultRunsDir({ HOME: '/h', XDG_STATE_HOME: 'rel' })).toBe('/h/.local/state/fisk-ai/runs');
  });

  it('says where the file backend keeps its journals, the directory it opens, and nothing for jetstream', async () => {
    const choice = { backend: 'file', options: '{"directory":"j"}' };
    expect(sessionStorePaths(choice, deps)).toEqual([(await openSessionStore(choice, deps)).location]);
    expect(sessionStorePaths(choice, { ...deps, stateDir: '/sd' })).toEqual(['/sd']);
    expect(sessionStorePaths({ backend: 'file', options: '{}' }, deps)).toEqual([defaultRunsDir(deps.env)]);
    expect(sessionStorePaths({ backend: 'jetstream', options: '{"stream":"S"}' }, deps)).toEqual([]);
    expect(() => sessionStorePaths({ backend: 'file', options: '{"directroy":"x"}' }, deps)).toThrow(ConfigError);
    // a backend that says nothing about its paths keeps nothing here
    registerSessionBackend('elsewhere', { needs: [], checkOptions: () => undefined, open: () => Promise.resolve(memorySessionStore()) });
    expect(sessionStorePaths({ backend: 'elsewhere', options: '{}' }, deps)).toEqual([]);
  });

  it('refuses --state-dir with a backend other than file', async () => {
    const err = await openSessionStore({ backend: 'jetstream', options: '{"stream":"S"}' }, { ...deps, stateDir: '/x' }).catch(
      (e: unknown) => e,
    );
    expect(isRunStateError(err, 'config')).toBe(true);
    expect((err as Error).message).toContain('harness.sessions.backend is "jetstream"');
  });

  it('builds the store a configuration names', async () => {
    const config = parseConfigForMode(
      { text: `harness:\n  sessions:\n    backend: file\n    options:\n      directory: runs-here\n` },
      'session',
    );
    const { store, close } = await openConfiguredSessionStore(config.harness.sessions, config.natsContext, deps);
    expect(store.location).toBe(join(dir, 'runs-here'));
    await close();
  });

  it('refuses the jetstream backend when its context cannot be read', async () => {
    const err = await openConfiguredSessionStore({ backend: 'jetstream', options: '{"stream":"S"}' }, 'nope', deps).catch(
      (e: unknown) => e,
    );
    expect((err as Error).message).toMatch(/NATS context "nope"/);
  });
});
