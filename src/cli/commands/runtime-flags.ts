/**
 * The runtime options a command's flags ask for, built in one place so `run`, `serve`, `web` and
 * `mcp` open a runtime alike: the `--api-key`/`--base-url` overrides, the HTTP hooks (debug files first,
 * telemetry last), an injected fetch, and the session store under `--state-dir` when runs are
 * journaled.
 */
import { resolve } from 'node:path';
import type { JournaledRuntimeDeps, RuntimeDeps } from '../../host/index.js';
import type { FetchLike, FetchMiddleware } from '../../llm/http.js';
import type { Io } from '../io.js';

/** The flags every model-running command shares. */
export interface RuntimeFlags {
  readonly apiKey?: string;
  readonly baseUrl?: string;
  readonly stateDir?: string;
}

/** What the command itself adds: its telemetry hooks, optional debug hooks and fetch, and whether runs are journaled. */
export interface RuntimeFlagExtras {
  readonly telemetry: {
    readonly fetchMiddleware: FetchMiddleware;
    readonly knowledgeDegraded: NonNullable<RuntimeDeps['onKnowledgeDegraded']>;
  };
  readonly debugMiddleware?: readonly FetchMiddleware[];
  readonly fetch?: FetchLike;
  /** False leaves the session store closed; a command that always journals passes true. */
  readonly journaled: boolean;
}

/** The `env`, provider overrides, knowledge hook and session store for `openRuntime` (a runtime that calls no model ignores the provider overrides). */
export function runtimeDepsFromFlags(
  flags: RuntimeFlags,
  io: Pick<Io, 'cwd' | 'env'>,
  extras: RuntimeFlagExtras & { readonly journaled: true },
): JournaledRuntimeDeps;
export function runtimeDepsFromFlags(flags: RuntimeFlags, io: Pick<Io, 'cwd' | 'env'>, extras: RuntimeFlagExtras): RuntimeDeps;
export function runtimeDepsFromFlags(flags: RuntimeFlags, io: Pick<Io, 'cwd' | 'env'>, extras: RuntimeFlagExtras): RuntimeDeps {
  return {
    env: io.env,
    onKnowledgeDegraded: extras.telemetry.knowledgeDegraded,
    providerOptions: {
      ...(flags.apiKey === undefined ? {} : { apiKey: flags.apiKey }),
      ...(flags.baseUrl === undefined ? {} : { baseUrl: flags.baseUrl }),
      ...(extras.fetch === undefined ? {} : { fetch: extras.fetch }),
      fetchMiddleware: [...(extras.debugMiddleware ?? []), extras.telemetry.fetchMiddleware],
    },
    ...(extras.journaled ? { sessions: flags.stateDir === undefined ? {} : { stateDir: resolve(io.cwd, flags.stateDir) } } : {}),
  };
}
