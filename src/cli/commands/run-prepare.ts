/**
 * What `fisk run` does before its own code loads: check the flags, start the application's
 * introspection from the configuration file, then load and check the configuration. The
 * application's start and the run code's loading are the slowest parts of a start, so the
 * application answers while the configuration and the run code load instead of after.
 */
import { resolve } from 'node:path';
import type { Config } from '../../config/index.js';
import type { startRuntimeIntrospection } from '../../host/application.js';
import { startEarlyIntrospection } from '../../host/early-introspection.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { processInterrupt } from '../process.js';
import type { RunCommandDeps, RunFlags } from './run-options.js';
import { emptyModelFlag } from './flags.js';
import { withModel } from './run-surface.js';

/** A local run made ready before its code loaded. */
export interface PreparedRun {
  readonly config: Config;
  /** The application's introspection, started; undefined without `application_path`. */
  readonly introspection: ReturnType<typeof startRuntimeIntrospection>;
  /**
   * Aborted by a Ctrl-C (or SIGTERM) before the run has started, which also stops the
   * introspection: the application runs in a process group of its own, out of reach of the
   * terminal's interrupt.
   */
  readonly loading: AbortSignal;
  /** Removes the interrupt handler that aborts `loading`; the run installs its own once it starts. */
  readonly stopLoading: () => void;
}

/** The flag combinations `fisk run` refuses, checked before the configuration is read. */
export function checkJournalFlags(query: readonly string[], flags: RunFlags): void {
  const usage = (message: string): CliError => new CliError(message, EXIT.usage);
  if (flags.resume !== undefined && flags.checkpoint === true) throw usage('--resume cannot be combined with --checkpoint');
  if (flags.resume !== undefined && query.join(' ').trim() !== '')
    throw usage('--resume does not take a query; the prompt is restored from the session');
  if (flags.name !== undefined && flags.checkpoint !== true) throw usage('--name requires --checkpoint');
  if (flags.force === true && flags.resume === undefined) throw usage('--force only applies when resuming');
  const empty = emptyModelFlag(flags);
  if (empty !== undefined) throw usage(empty);
}

/**
 * Checks the flags, starts the application's introspection, and reads the configuration. The
 * introspection started from the file is kept only when the checked configuration would run
 * exactly that command; a refused configuration stops it.
 */
export async function prepareRun(query: readonly string[], flags: RunFlags, io: Io, deps: RunCommandDeps): Promise<PreparedRun> {
  checkJournalFlags(query, flags);
  const path = resolve(io.cwd, flags.config);
  const loading = new AbortController();
  const stopLoading = (deps.onInterrupt ?? processInterrupt)(() => loading.abort());
  let introspection = startEarlyIntrospection(path, io.env);
  loading.signal.addEventListener('abort', () => void introspection?.discard(), { once: true });
  try {
    const [{ parseConfigForMode }, { startRuntimeIntrospection }] = await Promise.all([
      import('../../config/index.js'),
      import('../../host/application.js'),
    ]);
    const config = withModel(parseConfigForMode({ path }, 'run'), flags.model);
    // after a Ctrl-C nothing more is started: the run ends with the interruption before it loads the tools
    introspection = loading.signal.aborted ? undefined : startRuntimeIntrospection(config, io.env, introspection);
    return { config, introspection, loading: loading.signal, stopLoading };
  } catch (err) {
    stopLoading();
    await introspection?.discard();
    throw err;
  }
}
