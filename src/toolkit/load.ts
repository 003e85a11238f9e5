/**
 * Loading the wrapped application's tools for a run, for `fisk info` and for the serving
 * surfaces: introspect, resolve `global_flags`, build the command tools, apply `ai:deny` and the
 * include/exclude filters. Every command left out is recorded with its reason.
 */
import { applyFilters, compileFilters } from './filter.js';
import type { CompiledFilters } from './filter.js';
import { buildCommandTools } from './fisk/application.js';
import type { FiskCommandTool } from './fisk/command-tool.js';
import { reportGlobalFlags, resolveGlobalFlags } from './fisk/global-flags.js';
import type { GlobalFlagReport } from './fisk/global-flags.js';
import { introspect } from './fisk/introspect.js';
import type { ApplicationModel } from './fisk/model.js';
import { introspectionParams } from './load-options.js';
import type { LoadApplicationOptions } from './load-options.js';
import type { ToolSource, ToolWarning } from './source.js';

export { applicationLoadOptions, resolveApplicationPath, startApplicationIntrospection } from './load-options.js';
export type { LoadApplicationOptions } from './load-options.js';

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
    ...(opts.sandbox === undefined ? {} : { sandbox: opts.sandbox }),
  });
  const { kept, filtered } = applyFilters(built.tools, filters, 'application', (tool) => ({ name: tool.name, tags: tool.tags() }));
  return {
    model,
    source: { source: 'application', tools: kept, filtered: [...built.unusable, ...filtered] },
    all: built.tools,
    warnings: built.warnings,
    globalFlags: reportGlobalFlags(model.flags, globals),
  };
}
