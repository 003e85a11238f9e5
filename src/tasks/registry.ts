/**
 * The task backends by name, chosen by `tasks.backend`. A backend declares what it needs (a NATS
 * connection) and decodes its own `options` block strictly; adding one needs no change here.
 * `file` and `jetstream` are registered when this module loads.
 */
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { decodeOptions } from '../config/index.js';
import type { BackendChoice } from '../config/index.js';
import type { NatsConn } from '../conns/nats-connect.js';
import { TaskError } from './errors.js';
import { fileTaskStore } from './file.js';
import type { TaskStore } from './store.js';

/** What a backend may need from its host. */
export const TASK_BACKEND_NEEDS = ['nats'] as const;
export type TaskBackendNeed = (typeof TASK_BACKEND_NEEDS)[number];

/** What a host hands a backend. Everything here is borrowed. */
export interface TaskBackendDeps {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Relative directories resolve against this. */
  readonly cwd: string;
  /** The state directory (`--state-dir`): the file backend keeps tasks in its `tasks` subdirectory. */
  readonly stateDir?: string;
  /** Present when the backend needs `nats`. Never closed by the backend. */
  readonly nats?: NatsConn;
}

/** One row `fisk info` shows. */
export interface TaskInfoRow {
  readonly label: string;
  readonly value: string;
}

/** A registered backend. */
export interface TaskBackend {
  readonly needs: readonly TaskBackendNeed[];
  /** Decodes `options` strictly and describes the store without contacting anything. */
  describe(options: string, deps: Omit<TaskBackendDeps, 'nats'>): readonly TaskInfoRow[];
  /** Decodes `options` (canonical JSON) strictly and builds the store. */
  open(options: string, deps: TaskBackendDeps): Promise<TaskStore>;
}

const backends = new Map<string, TaskBackend>();

/** Registers a backend. Throws on an empty name, a missing factory or a duplicate name. */
export function registerTaskBackend(name: string, backend: TaskBackend): void {
  if (name.trim() === '') throw new TypeError('a task backend needs a name');
  if (typeof backend?.open !== 'function' || typeof backend.describe !== 'function')
    throw new TypeError(`task backend ${JSON.stringify(name)} has no open function`);
  if (backends.has(name)) throw new TypeError(`task backend ${JSON.stringify(name)} is already registered`);
  backends.set(name, backend);
}

/** The registered backend names, sorted. */
export function taskBackendNames(): readonly string[] {
  return [...backends.keys()].sort();
}

function backendOf(name: string): TaskBackend {
  const backend = backends.get(name);
  if (backend === undefined) {
    throw new TaskError(
      'config',
      `tasks.backend: unknown task backend ${JSON.stringify(name)}; known backends are [${taskBackendNames().join(' ')}]`,
    );
  }
  return backend;
}

/** What a backend needs, so a host can connect before `openTaskStore`. */
export function taskBackendNeeds(name: string): readonly TaskBackendNeed[] {
  return backendOf(name).needs;
}

/** What `fisk info` shows for the configured store (checks the options; contacts nothing). */
export function describeTaskStore(choice: BackendChoice, deps: Omit<TaskBackendDeps, 'nats'>): readonly TaskInfoRow[] {
  return [{ label: 'Backend', value: choice.backend }, ...backendOf(choice.backend).describe(choice.options, deps)];
}

/**
 * Builds the configured store. Refuses an unknown backend and a bad options block (naming the
 * key), and a backend whose needs were not supplied.
 */
export async function openTaskStore(choice: BackendChoice, deps: TaskBackendDeps): Promise<TaskStore> {
  const backend = backendOf(choice.backend);
  backend.describe(choice.options, deps);
  if (backend.needs.includes('nats') && deps.nats === undefined) {
    throw new TaskError('config', `tasks.backend ${JSON.stringify(choice.backend)} needs a NATS connection: set nats_context`);
  }
  return backend.open(choice.options, deps);
}

/** The default task directory: `$XDG_STATE_HOME/fisk-ai/tasks`, else `~/.local/state/fisk-ai/tasks`. */
export function defaultTasksDir(env: Readonly<Record<string, string | undefined>>): string {
  const xdg = env.XDG_STATE_HOME;
  const base = xdg !== undefined && xdg !== '' && isAbsolute(xdg) ? xdg : join(env.HOME ?? homedir(), '.local', 'state');
  return join(base, 'fisk-ai', 'tasks');
}

const FileOptions = z.strictObject({ directory: z.string().min(1, 'must not be empty; leave it out for the default').optional() });
const JetStreamOptions = z.strictObject({
  bucket: z
    .string({ error: 'is required (the KV bucket holding tasks); the bucket must already exist' })
    .regex(/^[-\w]+$/u, 'must be a KV bucket name: letters, digits, "_" and "-"'),
});

function fileDir(options: string, deps: Omit<TaskBackendDeps, 'nats'>): string {
  const opts = decodeOptions(options, FileOptions, 'tasks.options', 'file');
  if (opts.directory !== undefined) return resolve(deps.cwd, opts.directory);
  if (deps.stateDir !== undefined) return join(resolve(deps.cwd, deps.stateDir), 'tasks');
  return defaultTasksDir(deps.env);
}

registerTaskBackend('file', {
  needs: [],
  describe: (options, deps) => [{ label: 'Directory', value: fileDir(options, deps) }],
  open: (options, deps) => Promise.resolve(fileTaskStore(fileDir(options, deps))),
});

registerTaskBackend('jetstream', {
  needs: ['nats'],
  describe(options) {
    const opts = decodeOptions(options, JetStreamOptions, 'tasks.options', 'jetstream');
    return [{ label: 'Bucket', value: opts.bucket }];
  },
  async open(options, deps) {
    const opts = decodeOptions(options, JetStreamOptions, 'tasks.options', 'jetstream');
    const nats = deps.nats as NatsConn;
    const { jetstreamTaskStore } = await import('./jetstream.js');
    return jetstreamTaskStore({ nats: nats.connection, bucket: opts.bucket, context: nats.context.name, jetstream: nats.jetstream });
  },
});
