/**
 * What loading the wrapped application takes, apart from the loading itself: the options a
 * configuration implies, the command they introspect with, and starting that introspection ahead
 * of the load. Small on purpose: a command starts the application with this before the code that
 * builds its tools has loaded.
 */
import { isAbsolute, resolve } from 'node:path';
import { credentialEnvNames } from '../config/credentials.js';
import type { Config, Filter } from '../config/types.js';
import { compileFilters } from './filter.js';
import { toolEnvironment } from './fisk/env.js';
import { INTROSPECT_DEFAULT_TIMEOUT_MS, startIntrospection } from './fisk/introspect.js';
import type { IntrospectionParams, PendingIntrospection } from './fisk/introspect.js';
import { introspectionPolicy } from './sandbox/policy.js';
import type { SandboxSettings } from './sandbox/policy.js';

/** The few configuration values loading needs. */
export interface LoadApplicationOptions {
  /** `application_path`. */
  readonly applicationPath: string;
  /** `global_flags`, normalized. */
  readonly globalFlags: readonly string[];
  /** `harness.confirm_tags`. */
  readonly confirmTags: readonly string[];
  readonly include: Filter;
  readonly exclude: Filter;
  /** Variables never passed to the application (see `credentialEnvNames` in config). */
  readonly credentialEnvNames: readonly string[];
  /** The environment the application inherits from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The introspection deadline (default 30 s). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /**
   * An introspection started earlier (`startApplicationIntrospection`). It is used when it runs
   * exactly what this load would run, and discarded (its application killed) otherwise.
   */
  readonly pending?: PendingIntrospection;
  /** The runtime's sandbox; when enabled, the introspection and every command run inside it. */
  readonly sandbox?: SandboxSettings;
}

/**
 * Where the application binary is: a path with a directory part that is not absolute resolves
 * against the directory holding agent.yaml, so the agent runs the same from anywhere; a bare name
 * (`nats`) is looked up on PATH as a shell would.
 */
export function resolveApplicationPath(applicationPath: string, baseDir: string): string {
  if (isAbsolute(applicationPath) || !/[\\/]/.test(applicationPath)) return applicationPath;
  return resolve(baseDir, applicationPath);
}

/** The load options a prepared configuration implies. */
export function applicationLoadOptions(
  config: Config,
  env?: Readonly<Record<string, string | undefined>>,
): LoadApplicationOptions | undefined {
  if (config.applicationPath === undefined) return undefined;
  return {
    applicationPath: resolveApplicationPath(config.applicationPath, config.baseDir),
    globalFlags: config.globalFlags,
    confirmTags: config.harness.confirmTags,
    include: config.include,
    exclude: config.exclude,
    credentialEnvNames: credentialEnvNames(config),
    ...(env === undefined ? {} : { env }),
  };
}

/** The command a load introspects with: the binary, its environment (credentials stripped) and the deadline. */
export function introspectionParams(opts: LoadApplicationOptions): IntrospectionParams {
  return {
    binary: opts.applicationPath,
    env: toolEnvironment(opts.env ?? process.env, opts.credentialEnvNames),
    timeoutMs: opts.timeoutMs ?? INTROSPECT_DEFAULT_TIMEOUT_MS,
    ...(opts.sandbox?.enabled === true ? { sandbox: introspectionPolicy(opts.sandbox) } : {}),
  };
}

/**
 * Starts the introspection `loadApplicationTools(opts)` would run, now, so the application starts
 * while the caller is still getting ready; hand the result to the load as `pending`. Nothing is
 * started for options the load would refuse before introspecting (an invalid filter pattern).
 * `early`, one started before these options were known, is returned instead when it runs exactly
 * this command, and discarded (its application killed) otherwise.
 */
export function startApplicationIntrospection(
  opts: LoadApplicationOptions,
  early?: PendingIntrospection,
): PendingIntrospection | undefined {
  try {
    compileFilters(opts.include, opts.exclude);
  } catch {
    void early?.discard();
    return undefined;
  }
  const params = introspectionParams(opts);
  if (early?.matches(params) === true) return early;
  void early?.discard();
  // a sandboxed introspection starts only once the runtime has checked and resolved its sandbox
  if (params.sandbox !== undefined || opts.sandbox !== undefined) return undefined;
  return startIntrospection(params);
}
