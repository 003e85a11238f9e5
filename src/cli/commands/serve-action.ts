/**
 * `fisk serve`: lends the application's tools to peer agents over NATS (`expose.agent.a2a.serve_tools`).
 * The serving module does the work; this file resolves flags, prints the banner and turns Ctrl-C
 * into a drain (first press) or an immediate exit (second press).
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { configWarnings, parseConfigForMode } from '../../config/index.js';
import { openRuntime } from '../../host/index.js';
import type { Runtime } from '../../host/index.js';
import { checkServable, startToolServer } from '../../serve/index.js';
import type { ToolServer } from '../../serve/index.js';
import { cleanText } from '../../util/terminal-text.js';
import { UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { println } from '../io.js';
import { packageVersion } from '../version.js';
import { envFlag, processInterrupt } from '../process.js';

export interface ServeFlags {
  readonly config: string;
  readonly workers?: string;
  readonly workDir?: string;
  readonly stateDir?: string;
  readonly apiKey?: string;
  readonly baseUrl?: string;
  readonly telemetry: boolean;
  readonly verbose?: boolean;
}

/** What a test can replace: the interrupt source (SIGINT and SIGTERM by default). */
export interface ServeCommandDeps {
  readonly onInterrupt?: (handler: () => void) => () => void;
}

/**
 * The flags of `fisk serve` that belong to endpoints running the agent loop (served prompts, jobs,
 * Slack), which this build does not serve: refused by name rather than accepted and ignored.
 */
const LOOP_FLAGS: ReadonlyArray<{ readonly key: keyof ServeFlags; readonly flag: string; readonly what: string }> = [
  { key: 'workers', flag: '--workers', what: 'sets how many served runs go at once; tool calls are capped by expose.agent.a2a.max_concurrent_tools instead' },
  { key: 'stateDir', flag: '--state-dir', what: 'is where served runs are journaled' },
  { key: 'apiKey', flag: '--api-key', what: 'is the model key of served runs; lending tools calls no model' },
  { key: 'baseUrl', flag: '--base-url', what: 'is the model API of served runs; lending tools calls no model' },
];

function checkFlags(flags: ServeFlags, cwd: string): string {
  for (const f of LOOP_FLAGS) {
    if (flags[f.key] !== undefined) {
      throw new UsageError(`${f.flag} ${f.what}, and this build of fisk serve lends tools only (served prompts, jobs and Slack are not built yet); remove ${f.flag}`);
    }
  }
  if (flags.workDir === undefined) return cwd;
  const dir = resolve(cwd, flags.workDir);
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new UsageError(`--work-dir ${JSON.stringify(flags.workDir)} is not an existing directory; create it or pass another`);
  return dir;
}

function printBanner(io: Io, server: ToolServer): void {
  for (const w of server.warnings) println(io.err, `warning: ${w.message}`);
  for (const n of server.notServed) println(io.err, `note: not serving ${n.name} (${n.reason}): ${n.detail}`);
  println(io.err, `Serving ${server.served.length} tools over a2a as ${server.identity}/${server.card.version} on NATS context ${server.natsContext}`);
  println(io.err, `  Discovery: ${server.subjects.discovery}`);
  println(io.err, `  Tools:     ${server.subjects.tool}`);
  println(io.err, `  Exposed:   ${server.served.join(', ')}`);
  println(io.err, 'Press Ctrl-C to stop: the first press finishes the calls in flight, a second exits at once.');
}

export async function serve(flags: ServeFlags, io: Io, deps: ServeCommandDeps): Promise<void> {
  const workDir = checkFlags(flags, io.cwd);
  const verbose = flags.verbose === true || envFlag(io.env, 'VERBOSE');
  const config = parseConfigForMode({ path: resolve(io.cwd, flags.config) }, 'serve');
  // refused before anything is opened: an endpoint this build cannot serve is not half-started
  checkServable(config);
  for (const w of configWarnings(config)) println(io.err, `warning: ${w.key}: ${w.message}`);
  const { finishCommandTelemetry, openCommandTelemetry } = await import('./telemetry-flag.js');
  const telemetry = openCommandTelemetry(config, io, flags);
  // lending tools calls no model: no API key is needed, and no store or peer is opened
  const runtime: Runtime = await openRuntime(config, 'lend', { env: io.env });
  const cleanup: (() => void)[] = [];
  try {
    for (const n of runtime.notes) println(io.err, `${n.level}: ${n.message}`);
    const server = await startToolServer(runtime, {
      version: runtime.application?.model.version || packageVersion(),
      workDir,
      wrappers: telemetry.servedToolWrappers(),
      ...(verbose
        ? {
            observe: (c) => {
              // names and outcomes only: arguments may hold what the operator would not log
              const how = c.isError ? 'error' : c.exitCode !== undefined ? `exit ${c.exitCode}` : 'ok';
              println(io.err, `called ${cleanText(c.tool)} for ${cleanText(c.caller)}: ${how} in ${Math.round(c.durationMs)} ms`);
            },
          }
        : {}),
    });
    printBanner(io, server);
    await new Promise<void>((stop) => {
      let presses = 0;
      cleanup.push(
        (deps.onInterrupt ?? processInterrupt)(() => {
          presses++;
          if (presses > 1) {
            println(io.err, 'stopping now');
            process.exit(EXIT.aborted);
          }
          println(io.err, 'draining: finishing the calls in flight (press Ctrl-C again to exit at once)');
          stop();
        }),
      );
    });
    await server.drain();
    println(io.err, 'a2a server stopped');
  } finally {
    for (const c of cleanup.reverse()) c();
    await runtime.close();
    await finishCommandTelemetry(telemetry, io);
  }
}
