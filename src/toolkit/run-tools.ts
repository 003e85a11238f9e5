/**
 * The one path from configuration values to a run's tool set. `fisk run`, `fisk info` and the
 * serving commands call this, so the list a person inspects is the list the model is sent.
 */
import type { DeferralPolicy } from './deferral.js';
import { loadApplicationTools } from './load.js';
import type { LoadApplicationOptions, LoadedApplication } from './load.js';
import { selectTools } from './selection.js';
import type { Selection } from './selection.js';
import type { ToolSource, ToolWarning } from './source.js';

/** The few values a run's tool set is decided from. */
export interface RunToolsInput {
  /** How to load the wrapped application; absent when there is no `application_path`. */
  readonly application?: LoadApplicationOptions;
  /** Every other source, already built (built-ins, peers, MCP servers, custom tools). */
  readonly sources: readonly ToolSource[];
  /** `harness.confirm_tags`. */
  readonly confirmTags: readonly string[];
  readonly deferral: DeferralPolicy;
  /** See `SelectionInput.collisions`; a run start keeps the default, `abort`. */
  readonly collisions?: 'abort' | 'skip';
}

/** The selection plus what was learned loading the application. */
export interface RunTools extends Selection {
  /** Present when an application was loaded. */
  readonly application?: LoadedApplication;
}

/**
 * Loads the application (when configured), then selects over it and the given sources. Throws
 * what `loadApplicationTools` and `selectTools` throw: nothing is silently dropped.
 */
export async function resolveRunTools(input: RunToolsInput): Promise<RunTools> {
  const application = input.application === undefined ? undefined : await loadApplicationTools(input.application);
  const sources = application === undefined ? input.sources : [application.source, ...input.sources];
  const selection = selectTools({
    sources,
    confirmTags: input.confirmTags,
    deferral: input.deferral,
    ...(input.collisions === undefined ? {} : { collisions: input.collisions }),
  });
  const warnings: ToolWarning[] = [...(application?.warnings ?? []), ...selection.warnings];
  return application === undefined ? { ...selection, warnings } : { ...selection, warnings, application };
}
