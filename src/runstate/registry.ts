/**
 * The session backends by name, chosen by `harness.sessions.backend`. A backend declares what it
 * needs (a NATS connection) and decodes its own `options` block strictly; adding one needs no
 * change here. `file` and `jetstream` are registered when this module loads.
 */
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError, decodeOptions } from '../config/index.js';
import type { BackendChoice } from '../config/index.js';
import type { NatsConn } from '../conns/nats-connect.js';
import { RunStateError } from './errors.js';
import { fileSessionStore } from './file/store.js';
import type { SessionStore } from './store.js';

/** What a backend may need from its host. */
export const SESSION_BACKEND_NEEDS = ['nats'] as const;
export type SessionBackendNeed = (typeof SESSION_BACKEND_NEEDS)[number];

/** What a host hands a backend. Everything here is borrowed. */
export interface SessionBackendDeps {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Relative directories resolve against this. */
  readonly cwd: string;
  /** An explicit directory for the file backend (`--state-dir`); refused by every other backend. */
  readonly stateDir?: string;
  /** Present when the backend needs `nats`. Never closed by the backend. */
  readonly nats?: NatsConn;
}

/** A registered backend. */
export interface SessionBackend {
  readonly needs: readonly SessionBackendNeed[];
  /** Decodes `options` strictly without building anything, so a typo fails before any connection. */
  checkOptions(options: string): void;
  /** Decodes `options` (canonical JSON) strictly and builds the store. */
  open(options: string, deps: SessionBackendDeps): Promise<SessionStore>;
  /**
   * The directories on this machine the store keeps its journals in, from configuration alone
   * (nothing is contacted or created), so a host can keep them out of what it indexes or serves.
   * A backend that keeps nothing here leaves it out.
   */
  paths?(options: string, deps: SessionPathDeps): readonly string[];
}

/** What a backend needs to say where it keeps its journals. */
export type SessionPathDeps = Pick<SessionBackendDeps, 'env' | 'cwd' | 'stateDir'>;

const backends = new Map<string, SessionBackend>();

/** Registers a backend. Throws on an empty name, a missing factory or a duplicate name. */
export function registerSessionBackend(name: string, backend: SessionBackend): void {
  if (name.trim() === '') throw new TypeError('a session backend needs a name');
  if (typeof backend?.open !== 'function' || typeof backend.checkOptions !== 'function')
    throw new TypeError(`session backend ${JSON.stringify(name)} has no open function`);
  if (backends.has(name)) throw new TypeError(`session backend ${JSON.stringify(name)} is already registered`);
  backends.set(name, backend);
}

/** The registered backend names, sorted. */
export function sessionBackendNames(): readonly string[] {
  return [...backends.keys()].sort();
}

function backendOf(name: string): SessionBackend {
  const backend = backends.get(name);
  if (backend === undefined) {
    throw ConfigError.of(
      'value',
      'harness.sessions.backend',
      `unknown session backend ${JSON.stringify(name)}: known backends are [${sessionBackendNames().join(' ')}]`,
    );
  }
  return backend;
}

/** What a backend needs, so a host can build it before `openSessionStore`. */
export function sessionBackendNeeds(name: string): readonly SessionBackendNeed[] {
  return backendOf(name).needs;
}

/**
 * Builds the configured store. Refuses an unknown backend and a bad options block (ConfigError
 * naming the key), `stateDir` with a backend other than `file`, and a backend whose needs were
 * not supplied (RunStateError `config`).
 */
export async function openSessionStore(choice: BackendChoice, deps: SessionBackendDeps): Promise<SessionStore> {
  const backend = backendOf(choice.backend);
  if (deps.stateDir !== undefined && choice.backend !== 'file') {
    throw new RunStateError(
      'config',
      `--state-dir applies only to the file session backend, but harness.sessions.backend is ${JSON.stringify(choice.backend)}: remove --state-dir, or set harness.sessions.backend to "file"`,
    );
  }
  backend.checkOptions(choice.options);
  if (backend.needs.includes('nats') && deps.nats === undefined) {
    throw new RunStateError(
      'config',
      `harness.sessions.backend ${JSON.stringify(choice.backend)} needs a NATS connection: set nats_context`,
    );
  }
  return backend.open(choice.options, deps);
}

/**
 * The directories on this machine the configured store keeps its journals in, asked of its
 * backend; none for a backend that keeps nothing here. Throws `ConfigError` for an unknown backend
 * or an options block it refuses.
 */
export function sessionStorePaths(choice: BackendChoice, deps: SessionPathDeps): readonly string[] {
  return backendOf(choice.backend).paths?.(choice.options, deps) ?? [];
}

/**
 * Builds the configured store for a one-shot command, connecting to `natsContext` when the
 * backend needs NATS. `close` closes only the connection built here; the store never closes it.
 */
export async function openConfiguredSessionStore(
  sessions: BackendChoice,
  natsContext: string | undefined,
  deps: Omit<SessionBackendDeps, 'nats'> & { readonly connectionName?: string },
): Promise<{ store: SessionStore; close: () => Promise<void> }> {
  let nats: NatsConn | undefined;
  backendOf(sessions.backend).checkOptions(sessions.options);
  if (sessionBackendNeeds(sessions.backend).includes('nats') && deps.stateDir === undefined) {
    if (natsContext === undefined) {
      throw ConfigError.of('missing', 'nats_context', `is required by harness.sessions.backend: ${sessions.backend}`);
    }
    const { connectNats } = await import('../conns/nats-connect.js');
    nats = await connectNats(natsContext, { env: deps.env, ...(deps.connectionName !== undefined ? { name: deps.connectionName } : {}) });
  }
  const close = async (): Promise<void> => {
    if (nats !== undefined && !nats.connection.isClosed()) await nats.connection.close();
  };
  try {
    return { store: await openSessionStore(sessions, { ...deps, ...(nats !== undefined ? { nats } : {}) }), close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** The default journal directory: `$XDG_STATE_HOME/fisk-ai/runs`, else `~/.local/state/fisk-ai/runs`. */
export function defaultRunsDir(env: Readonly<Record<string, string | undefined>>): string {
  const xdg = env.XDG_STATE_HOME;
  const base = xdg !== undefined && xdg !== '' && isAbsolute(xdg) ? xdg : join(env.HOME ?? homedir(), '.local', 'state');
  return join(base, 'fisk-ai', 'runs');
}

const FileOptions = z.strictObject({ directory: z.string().min(1, 'must not be empty; leave it out for the default').optional() });
const JetStreamOptions = z.strictObject({
  stream: z
    .string({ error: 'is required (the JetStream stream name); the stream must already exist' })
    .min(1, 'must name the JetStream stream'),
});

/** The file backend's directory: `--state-dir`, else `options.directory` under `cwd`, else the default. */
function fileRunsDir(options: string, deps: SessionPathDeps): string {
  const dir = deps.stateDir ?? decodeOptions(options, FileOptions, 'harness.sessions.options', 'file').directory;
  return dir === undefined ? defaultRunsDir(deps.env) : resolve(deps.cwd, dir);
}

registerSessionBackend('file', {
  needs: [],
  checkOptions: (options) => void decodeOptions(options, FileOptions, 'harness.sessions.options', 'file'),
  open(options, deps) {
    return new Promise((done) => done(fileSessionStore(fileRunsDir(options, deps))));
  },
  paths: (options, deps) => [fileRunsDir(options, deps)],
});

registerSessionBackend('jetstream', {
  needs: ['nats'],
  checkOptions: (options) => void decodeOptions(options, JetStreamOptions, 'harness.sessions.options', 'jetstream'),
  async open(options, deps) {
    const opts = decodeOptions(options, JetStreamOptions, 'harness.sessions.options', 'jetstream');
    if (deps.nats === undefined)
      throw new RunStateError('config', 'the jetstream session backend needs a NATS connection: set nats_context');
    const { jetstreamSessionStore } = await import('./jetstream/store.js');
    return jetstreamSessionStore(deps.nats, opts.stream);
  },
});
