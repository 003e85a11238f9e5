/**
 * Loading the wrapped application's tools for a run, for `fisk info` and for the serving
 * surfaces: introspect, resolve `global_flags`, build the command tools, apply `ai:deny` and the
 * include/exclude filters. Every command left out is recorded with its reason.
 */
import { isAbsolute, resolve } from 'node:path';
import { credentialEnvNames } from '../config/credentials.js';
import type { Config, Filter } from '../config/types.js';
import { applyFilters, compileFilters } from './filter.js';
import type { CompiledFilters } from './filter.js';
import { buildCommandTools } from './fisk/application.js';
import type { FiskCommandTool } from './fisk/command-tool.js';
import { toolEnvironment } from './fisk/env.js';
import { reportGlobalFlags, resolveGlobalFlags } from './fisk/global-flags.js';
import type { GlobalFlagReport } from './fisk/global-flags.js';
import { INTROSPECT_DEFAULT_TIMEOUT_MS, introspect, startIntrospection } from './fisk/introspect.js';
import type { IntrospectionParams, PendingIntrospection } from './fisk/introspect.js';
import type { ApplicationModel } from './fisk/model.js';
import type { ToolSource, ToolWarning } from './source.js';

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
}

/** The application's tools as a selection source, with what `fisk info` shows about it. */
export interface LoadedApplication {
  readonly model: ApplicationModel;
  /** The `application` source for `selectTools`: kept tools plus every command filtered out. */
  readonly source: ToolSource;
  /** Every built command tool, before filtering. */
  readonly all: readonly FiskCommandTool[];
  readonly warnings: readonly ToolWarning[];
  readonly globalFlags: readonly GlobalFlagReport[];
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
export function applicationLoadOptions(config: Config, env?: Readonly<Record<string, string | undefined>>): LoadApplicationOptions | undefined {
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
function introspectionParams(opts: LoadApplicationOptions): IntrospectionParams {
  return {
    binary: opts.applicationPath,
    env: toolEnvironment(opts.env ?? process.env, opts.credentialEnvNames),
    timeoutMs: opts.timeoutMs ?? INTROSPECT_DEFAULT_TIMEOUT_MS,
  };
}

/**
 * Starts the introspection `loadApplicationTools(opts)` would run, now, so the application starts
 * while the caller is still getting ready; hand the result to the load as `pending`. Nothing is
 * started for options the load would refuse before introspecting (an invalid filter pattern).
 */
export function startApplicationIntrospection(opts: LoadApplicationOptions): PendingIntrospection | undefined {
  try {
    compileFilters(opts.include, opts.exclude);
  } catch {
    return undefined;
  }
  return startIntrospection(introspectionParams(opts));
}

async function introspectFor(opts: LoadApplicationOptions): Promise<ApplicationModel> {
  const params = introspectionParams(opts);
  if (opts.pending?.matches(params) === true) return opts.pending.claim(opts.signal);
  await opts.pending?.discard();
  return introspect({ ...params, ...(opts.signal === undefined ? {} : { signal: opts.signal }) });
}

/**
 * Introspects the application and builds its tool source. Throws `ToolkitError` on an
 * application that cannot be introspected, a leaf without a restricted schema, an invalid
 * `global_flags` entry, a name clash inside the application, or an invalid filter pattern.
 */
export async function loadApplicationTools(opts: LoadApplicationOptions): Promise<LoadedApplication> {
  let filters: CompiledFilters;
  try {
    filters = compileFilters(opts.include, opts.exclude);
  } catch (err) {
    await opts.pending?.discard();
    throw err;
  }
  const model = await introspectFor(opts);
  const globals = resolveGlobalFlags(model.flags, opts.globalFlags);
  const built = buildCommandTools(model, {
    binary: opts.applicationPath,
    globals,
    confirmTags: opts.confirmTags,
    credentialEnvNames: opts.credentialEnvNames,
    ...(opts.env === undefined ? {} : { env: opts.env }),
  });
  const { kept, filtered } = applyFilters(
    built.tools.map((tool) => ({ name: tool.name, tags: tool.tags(), tool })),
    filters,
    'application',
  );
  return {
    model,
    source: { source: 'application', tools: kept.map((k) => k.tool), filtered: [...built.unusable, ...filtered] },
    all: built.tools,
    warnings: built.warnings,
    globalFlags: reportGlobalFlags(model.flags, globals),
  };
}
