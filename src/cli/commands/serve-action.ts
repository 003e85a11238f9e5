/**
 * `fisk serve`: runs the endpoints the configuration enables on the agent's a2a service: lending
 * the application's tools (`expose.agent.a2a.serve_tools`) and running prompts peers delegate
 * (`expose.agent.a2a.prompts`). The serving module does the work; this file resolves flags, prints
 * the banner and turns Ctrl-C into a drain (first press), a cancel of the runs in flight (second)
 * and an immediate exit (third; the second when no run is served).
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createTransport } from '../../a2a/index.js';
import { configWarnings, parseConfigForMode } from '../../config/index.js';
import type { Config } from '../../config/index.js';
import { openRuntime } from '../../host/index.js';
import type { Runtime } from '../../host/index.js';
import { checkServable, promptChannel, slackTokens, startServer, startToolServer } from '../../serve/index.js';
import type { Channel, PromptChannel, Server, ServerNotice, SlackChannel, ToolServer } from '../../serve/index.js';
import { cleanText } from '../../util/terminal-text.js';
import { CliError, UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { println } from '../io.js';
import { packageVersion } from '../version.js';
import { envFlag, processInterrupt } from '../process.js';
import { emptyModelFlag } from './flags.js';
import { openServedJobs } from './serve-jobs.js';
import type { ServedJobs } from './serve-jobs.js';
import { counted } from '../../util/count.js';

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
 * The flags of `fisk serve` that belong to endpoints running the agent loop: refused by name for
 * a configuration that serves tools only, rather than accepted and ignored.
 */
const LOOP_FLAGS: ReadonlyArray<{ readonly key: keyof ServeFlags; readonly flag: string; readonly what: string }> = [
  { key: 'workers', flag: '--workers', what: 'sets how many served runs go at once; tool calls are capped by expose.agent.a2a.max_concurrent_tools instead' },
  { key: 'stateDir', flag: '--state-dir', what: 'is where served runs are journaled' },
  { key: 'apiKey', flag: '--api-key', what: 'is the model key of served runs; lending tools calls no model' },
  { key: 'baseUrl', flag: '--base-url', what: 'is the model API of served runs; lending tools calls no model' },
];

interface Resolved {
  readonly workDir: string;
  readonly workers: number | undefined;
}

function checkFlags(flags: ServeFlags, cwd: string): Resolved {
  const empty = emptyModelFlag(flags);
  if (empty !== undefined) throw new UsageError(empty);
  let workers: number | undefined;
  if (flags.workers !== undefined) {
    const n = /^\d+$/.test(flags.workers.trim()) ? Number(flags.workers.trim()) : NaN;
    if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`--workers ${JSON.stringify(flags.workers)} is not a whole number of at least 1; pass how many served runs may go at once`);
    workers = n;
  }
  if (flags.workDir === undefined) return { workDir: cwd, workers };
  const dir = resolve(cwd, flags.workDir);
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new UsageError(`--work-dir ${JSON.stringify(flags.workDir)} is not an existing directory; create it or pass another`);
  return { workDir: dir, workers };
}

/** A configuration serving tools only runs no model: the flags of served runs are refused by name. */
function refuseLoopFlags(flags: ServeFlags, config: Config): void {
  for (const f of LOOP_FLAGS) {
    if (flags[f.key] !== undefined) {
      throw new UsageError(`${f.flag} ${f.what}, and ${config.source} serves tools only (set expose.agent.a2a.prompts: true, or add expose.agent.jobs or expose.agent.slack, to serve runs); remove ${f.flag}`);
    }
  }
}

function printBanner(io: Io, tools: ToolServer | undefined, prompts: PromptChannel | undefined, jobs: ServedJobs | undefined, slack: SlackChannel | undefined, server: Server | undefined, elicitation: boolean): void {
  if (jobs !== undefined) {
    println(io.err, `Taking jobs from the work queue (${server?.slots.get(jobs.channel.name) ?? jobs.channel.workers} at once)`);
    for (const line of jobs.banner) println(io.err, line);
  }
  if (tools !== undefined) {
    for (const w of tools.warnings) println(io.err, `warning: ${w.message}`);
    for (const n of tools.notServed) println(io.err, `note: not serving ${n.name} (${n.reason}): ${n.detail}`);
    const as = `over a2a as ${tools.identity}/${tools.card.version} on NATS context ${tools.natsContext}`;
    const lending = tools.served.length > 0;
    println(io.err, lending ? `Serving ${counted(tools.served.length, 'tool')}${prompts === undefined ? '' : ' and prompts'} ${as}` : `Serving prompts ${as}`);
    println(io.err, `  Discovery: ${tools.subjects.discovery}`);
    if (lending) {
      println(io.err, `  Tools:     ${tools.subjects.tool}`);
      println(io.err, `  Exposed:   ${tools.served.join(', ')}`);
    }
  }
  if (prompts !== undefined) {
    const slots = server?.slots.get(prompts.name) ?? prompts.workers;
    println(io.err, `  Prompts:   ${prompts.subject} (${slots} at once; questions ${elicitation ? 'go to the caller' : 'are declined: expose.agent.a2a.elicitation is off'})`);
  }
  if (slack !== undefined) {
    const slots = server?.slots.get(slack.name) ?? slack.workers;
    println(io.err, `${tools === undefined ? 'Serving' : '  Also:     '} Slack threads in ${slack.channels.map((c) => cleanText(c)).join(', ')} (${slots} at once; socket mode)`);
  }
  println(
    io.err,
    server === undefined
      ? 'Press Ctrl-C to stop: the first press finishes the calls in flight, a second exits at once.'
      : 'Press Ctrl-C to stop: the first press finishes the calls and runs in flight, a second cancels the runs (resumable), a third exits at once.',
  );
}

function describeNotice(n: ServerNotice): string {
  switch (n.kind) {
    case 'started':
      return `started ${cleanText(n.label)}`;
    case 'ended': {
      const r = n.result;
      const how = r.kind === 'ran' ? r.outcome.status : r.kind === 'abandoned' ? 'abandoned' : `${r.kind}: ${cleanText(r.error.message)}`;
      return `ended ${cleanText(n.label)}: ${how} in ${Math.round(n.durationMs)} ms`;
    }
    case 'fault':
      return `${cleanText(n.channel)} failed: ${cleanText(n.error.message)}`;
    default: {
      const never: never = n;
      return never;
    }
  }
}

export async function serve(flags: ServeFlags, io: Io, deps: ServeCommandDeps): Promise<void> {
  const { workDir, workers } = checkFlags(flags, io.cwd);
  const verbose = flags.verbose === true || envFlag(io.env, 'VERBOSE');
  const config = parseConfigForMode({ path: resolve(io.cwd, flags.config) }, 'serve');
  // refused before anything is opened: an endpoint this build cannot serve is not half-started
  const servable = checkServable(config);
  const runs = servable.prompts || servable.jobs || servable.slack;
  if (!runs) refuseLoopFlags(flags, config);
  // Slack tokens come from the environment only, checked before anything connects
  const tokens = servable.slack ? slackTokens(io.env) : undefined;
  for (const w of configWarnings(config)) println(io.err, `warning: ${w.key}: ${w.message}`);
  const { finishCommandTelemetry, openCommandTelemetry } = await import('./telemetry-flag.js');
  const telemetry = await openCommandTelemetry(config, io, flags);
  // lending tools alone calls no model: no API key is needed, and no store or peer is opened;
  // served prompts, jobs and Slack threads run the model. Nothing is provisioned here: a session
  // stream or memory bucket nobody created fails now.
  const runtime: Runtime = runs
    ? await openRuntime(config, 'run', {
        env: io.env,
        onKnowledgeDegraded: telemetry.knowledgeDegraded,
        providerOptions: {
          ...(flags.apiKey === undefined ? {} : { apiKey: flags.apiKey }),
          ...(flags.baseUrl === undefined ? {} : { baseUrl: flags.baseUrl }),
          fetchMiddleware: [telemetry.fetchMiddleware],
        },
        sessions: flags.stateDir === undefined ? {} : { stateDir: resolve(io.cwd, flags.stateDir) },
      })
    : await openRuntime(config, 'lend', { env: io.env });
  const cleanup: (() => void)[] = [];
  let slack: SlackChannel | undefined;
  try {
    for (const n of runtime.notes) println(io.err, `${n.level}: ${n.message}`);
    // jobs bind their queue and task store first: a stream, consumer or bucket nobody made fails before anything is served
    const jobs = await openServedJobs(runtime, io, flags.stateDir === undefined ? undefined : resolve(io.cwd, flags.stateDir));
    const a2a = config.expose.a2a;
    const overA2a = servable.tools || servable.prompts;
    const transport = overA2a ? createTransport('nats', { connection: (await runtime.connections.connection(servable.natsContext)).connection }) : undefined;
    const prompts = servable.prompts && transport !== undefined
      ? promptChannel({
          identity: servable.identity,
          transport,
          workers: workers ?? a2a.workers,
          elicitation: a2a.elicitation,
          ...(runtime.sessions === undefined ? {} : { sessions: runtime.sessions }),
          ...(a2a.idleTimeout.ms > 0 ? { questionWindowMs: a2a.idleTimeout.ms } : {}),
        })
      : undefined;
    // a worker that only takes jobs or answers in Slack registers no a2a service
    const tools = transport === undefined ? undefined : await startToolServer(runtime, {
      version: runtime.application?.model.version || packageVersion(),
      workDir,
      transport,
      wrappers: telemetry.servedToolWrappers(),
      ...(prompts === undefined ? {} : { extraEndpoints: [prompts.endpoint] }),
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
    const slackSettings = config.expose.slack;
    if (tokens !== undefined && slackSettings !== undefined) {
      const { openSlackChannel } = await import('../../serve/slack/index.js');
      slack = await openSlackChannel({
        channels: slackSettings.channels,
        workers: workers ?? slackSettings.workers,
        sessions: runtime.sessions!,
        tokens,
        warn: (m) => println(io.err, `warning: ${cleanText(m)}`),
      });
    }
    const channels: Channel[] = [...(prompts === undefined ? [] : [prompts]), ...(jobs === undefined ? [] : [jobs.channel]), ...(slack === undefined ? [] : [slack])];
    const server =
      channels.length === 0
        ? undefined
        : startServer(runtime, {
            channels,
            // each channel closes its intake first; the service (discovery, tools, the prompt endpoint) after
            services: tools === undefined ? [] : [{ name: 'the a2a service', close: () => tools.drain() }],
            ...(workers === undefined ? {} : { workers }),
            workDir,
            telemetry,
            ...(verbose ? { notify: (n: ServerNotice) => println(io.err, describeNotice(n)) } : { notify: (n: ServerNotice) => (n.kind === 'fault' ? println(io.err, describeNotice(n)) : undefined) }),
          });
    printBanner(io, tools, prompts, jobs, slack, server, a2a.elicitation);
    const fault = await new Promise<Error | undefined>((settle) => {
      let presses = 0;
      void server?.stopped.then((err) => {
        if (err !== undefined) settle(err);
      });
      cleanup.push(
        (deps.onInterrupt ?? processInterrupt)(() => {
          presses++;
          if (presses === 1) {
            println(io.err, `draining: finishing the calls in flight${server === undefined ? '' : ' and the runs (press Ctrl-C again to cancel them)'}${server === undefined ? ' (press Ctrl-C again to exit at once)' : ''}`);
            settle(undefined);
            return;
          }
          if (presses === 2 && server !== undefined) {
            println(io.err, 'cancelling the runs in flight: each ends where it is, journaled (press Ctrl-C again to exit at once)');
            server.cancel();
            return;
          }
          println(io.err, 'stopping now');
          process.exit(EXIT.aborted);
        }),
      );
    });
    const error = server === undefined ? (await tools?.drain(), undefined) : ((await server.drain()) ?? fault);
    if (error !== undefined) {
      throw new CliError(`fisk serve stopped because an endpoint failed: ${error.message}; restart it once the cause is fixed`, EXIT.error, { cause: error });
    }
    println(io.err, tools === undefined ? 'worker stopped' : 'a2a server stopped');
  } finally {
    for (const c of cleanup.reverse()) c();
    // a channel opened before something else failed still closes its socket (a no-op after a drain)
    await slack?.close();
    await slack?.settled();
    await runtime.close();
    await finishCommandTelemetry(telemetry, io);
  }
}
