/** What `fisk info` does; loaded only when it runs. */
import { resolve } from 'node:path';
import type { ListingRuntime } from '../../host/index.js';
import type { assembleTools as AssembleTools } from '../../host/tools.js';
import { ExitWith } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { println } from '../io.js';
import { processInterrupt } from '../process.js';
import type * as InfoReportModule from './info-report.js';

export interface InfoOptions {
  readonly config: string;
  readonly json?: boolean;
  readonly all?: boolean;
}

/** Prints what a run of the configuration would get: settings, model, tools and prompt. */
export async function runInfo(io: Io, opts: InfoOptions): Promise<void> {
  // Ctrl-C stops the application's introspection too: it runs in a process group of its own, so the
  // terminal's interrupt does not reach it, and a listing that died without killing it would leave it running
  const interrupted = new AbortController();
  const removeInterrupt = processInterrupt(() => interrupted.abort());
  try {
    await listing(io, opts, interrupted.signal);
  } catch (err) {
    if (!interrupted.signal.aborted) throw err;
    println(io.err, '\ninterrupted');
    throw new ExitWith(EXIT.aborted);
  } finally {
    removeInterrupt();
  }
}

async function listing(io: Io, opts: InfoOptions, signal: AbortSignal): Promise<void> {
  const path = resolve(io.cwd, opts.config);
  // the application starts from the file as soon as it is read, and answers while the
  // configuration code loads and checks it; a listing loads no journal, model or exporter code
  const { startEarlyIntrospection } = await import('../../host/early-introspection.js');
  let introspection = startEarlyIntrospection(path, io.env);
  const onAbort = (): void => void introspection?.discard();
  signal.addEventListener('abort', onAbort, { once: true });
  let runtime: ListingRuntime;
  let assembleTools: typeof AssembleTools;
  let report: typeof InfoReportModule;
  try {
    const [{ parseConfigForMode }, { startRuntimeIntrospection }] = await Promise.all([
      import('../../config/index.js'),
      import('../../host/application.js'),
    ]);
    const config = parseConfigForMode({ path }, 'info');
    signal.throwIfAborted();
    // adopted when it runs exactly what the checked configuration runs, replaced otherwise
    introspection = startRuntimeIntrospection(config, io.env, introspection);
    const [{ openRuntime }, tools, reportModule] = await Promise.all([
      import('../../host/runtime.js'),
      import('../../host/tools.js'),
      import('./info-report.js'),
      // what the report loads once the tools are in, loaded while the application answers
      import('../../host/telemetry-settings.js'),
    ]);
    assembleTools = tools.assembleTools;
    report = reportModule;
    signal.throwIfAborted();
    runtime = await openRuntime(config, 'listing', { env: io.env, signal, ...(introspection === undefined ? {} : { introspection }) });
  } catch (err) {
    await introspection?.discard();
    throw err;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  try {
    const tools = await assembleTools(runtime, 'listing', { signal });
    const built = await report.buildInfoReport(runtime, io.env, tools);
    if (opts.json === true) {
      io.out.write(`${JSON.stringify(built, null, 2)}\n`);
    } else {
      report.renderText(built, opts.all === true, io);
    }
  } finally {
    await runtime.close();
  }
}
