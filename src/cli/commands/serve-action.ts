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
import { runtimeDepsFromFlags } from './runtime-flags.js';
import type { JournaledRuntime, LendRuntime } from '../../host/index.js';
import { ConnectionWatch } from '../../conns/index.js';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  HealthServer,
  checkServable,
  promptChannel,
  provisioningPlan,
  replicaWarnings,
  slackApiBase,
  slackTokens,
  startServer,
  startToolServer,
  workerId,
} from '../../serve/index.js';
import type { Channel, PromptChannel, Server, ServerNotice, SlackChannel, ToolServer, WorkIds } from '../../serve/index.js';
import { cleanText } from '../../util/terminal-text.js';
import { CliError, UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { packageVersion } from '../version.js';
import { envFlag, processInterrupt } from '../process.js';
import { emptyModelFlag } from './flags.js';
import { openServedJobs } from './serve-jobs.js';
import type { ServedJobs } from './serve-jobs.js';
import { logFormat, ServeLog } from './serve-log.js';
import type { LogFields } from './serve-log.js';
import { counted } from '../../util/count.js';
import type { A2aHttpChannel } from '../../serve/a2a-http/index.js';

export interface ServeFlags {
  readonly config: string;
  readonly workers?: string;
  readonly workDir?: string;
  readonly stateDir?: string;
  readonly apiKey?: string;
  readonly baseUrl?: string;
  readonly telemetry: boolean;
  readonly verbose?: boolean;
  readonly logFormat?: string;
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
  {
    key: 'workers',
    flag: '--workers',
    what: 'sets how many served runs go at once; tool calls are capped by expose.agent.a2a.max_concurrent_tools instead',
  },
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
    if (!Number.isSafeInteger(n) || n < 1)
      throw new UsageError(
        `--workers ${JSON.stringify(flags.workers)} is not a whole number of at least 1; pass how many served runs may go at once`,
      );
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
      throw new UsageError(
        `${f.flag} ${f.what}, and ${config.source} serves tools only (set expose.agent.a2a.prompts: true, or add expose.agent.jobs, expose.agent.slack or expose.agent.a2a_http, to serve runs); remove ${f.flag}`,
      );
    }
  }
}

/** What the banner describes, gathered once so the text and JSON forms say the same. */
interface BannerParts {
  readonly identity: string;
  readonly version: string;
  readonly natsContext: string | undefined;
  readonly tools: ToolServer | undefined;
  readonly prompts: PromptChannel | undefined;
  readonly jobs: ServedJobs | undefined;
  readonly slack: SlackChannel | undefined;
  readonly http: A2aHttpChannel | undefined;
  readonly server: Server | undefined;
  readonly elicitation: boolean;
  readonly health: HealthServer | undefined;
}

function printBanner(log: ServeLog, banner: BannerParts): void {
  const { tools, prompts, jobs, slack, server } = banner;
  const slotsOf = (name: string, own: number): number => server?.slots.get(name) ?? own;
  if (tools !== undefined) {
    for (const warning of tools.warnings) log.warn('warning', warning.message);
    for (const notServed of tools.notServed)
      log.info('not_served', `note: not serving ${notServed.name} (${notServed.reason}): ${notServed.detail}`, {
        tool: notServed.name,
        reason: notServed.reason,
      });
  }
  const where = banner.natsContext === undefined ? 'without NATS' : `on NATS context ${banner.natsContext}`;
  const head = `Agent ${banner.identity} ${banner.version} (fisk-ai ${packageVersion()}) ${where} as worker ${log.worker}`;
  const channels: Record<string, unknown>[] = [];
  const lines: string[] = [head];
  if (jobs !== undefined) {
    const slots = slotsOf(jobs.channel.name, jobs.channel.workers);
    channels.push({
      name: jobs.channel.name,
      slots,
      stream: jobs.channel.stream,
      consumer: jobs.channel.consumer,
      subject: jobs.channel.subject,
    });
    lines.push(`Taking jobs from the work queue (${slots} at once)`, ...jobs.banner);
  }
  if (tools !== undefined) {
    const as = `over a2a as ${tools.identity}/${tools.card.version} on NATS context ${tools.natsContext}`;
    const lending = tools.served.length > 0;
    if (lending) channels.push({ name: 'a2a tools', tools: tools.served, subject: tools.subjects.tool });
    lines.push(
      lending
        ? `Serving ${counted(tools.served.length, 'tool')}${prompts === undefined ? '' : ' and prompts'} ${as}`
        : `Serving prompts ${as}`,
    );
    lines.push(`  Discovery: ${tools.subjects.discovery}`);
    if (lending) lines.push(`  Tools:     ${tools.subjects.tool}`, `  Exposed:   ${tools.served.join(', ')}`);
  }
  if (prompts !== undefined) {
    const slots = slotsOf(prompts.name, prompts.workers);
    channels.push({ name: prompts.name, slots, subject: prompts.subject, elicitation: banner.elicitation });
    lines.push(
      `  Prompts:   ${prompts.subject} (${slots} at once; questions ${banner.elicitation ? 'go to the caller' : 'are declined: expose.agent.a2a.elicitation is off'})`,
    );
  }
  if (slack !== undefined) {
    const slots = slotsOf(slack.name, slack.workers);
    const list = slack.channels.map((c) => cleanText(c));
    channels.push({ name: slack.name, slots, channels: list });
    lines.push(`${tools === undefined ? 'Serving' : '  Also:     '} Slack threads in ${list.join(', ')} (${slots} at once; socket mode)`);
  }
  if (banner.http !== undefined) {
    const http = banner.http;
    const slots = slotsOf(http.name, http.workers);
    const auth = http.tokenEnv === undefined ? 'no token: loopback only' : `bearer token from $${http.tokenEnv}`;
    channels.push({
      name: http.name,
      slots,
      url: http.url,
      card: http.cardUrl,
      listening: http.listening,
      auth: http.tokenEnv === undefined ? 'none' : 'bearer',
    });
    lines.push(
      `${tools === undefined && slack === undefined ? 'Serving' : '  Also:     '} A2A over HTTP on ${http.listening} (${slots} at once; ${auth})`,
      `  Card:      ${http.cardUrl}`,
    );
  }
  if (banner.health !== undefined)
    lines.push(`  Health:    ${banner.health.url}/healthz (alive), ${banner.health.url}/readyz (taking work)`);
  const stop =
    server === undefined
      ? 'Press Ctrl-C to stop: the first press finishes the calls in flight, a second exits at once.'
      : 'Press Ctrl-C to stop: the first press finishes the calls and runs in flight, a second cancels the runs (resumable), a third exits at once.';
  if (log.format === 'json') {
    log.info('serving', head, {
      identity: banner.identity,
      version: banner.version,
      fisk_ai_version: packageVersion(),
      ...(banner.natsContext === undefined ? {} : { nats_context: banner.natsContext }),
      channels,
      ...(banner.health === undefined ? {} : { health: banner.health.url }),
    });
    return;
  }
  for (const line of [...lines, stop]) log.info('serving', line);
}

/** The NATS connection a worker serves over closed for good, though the client was reconnecting. */
class ConnectionClosed extends Error {
  constructor(context: string, cause: Error | void) {
    super(
      `the NATS connection (context ${context}) closed${cause === undefined ? '' : `: ${cause.message}`}, so nothing more can be served; check the server and the context's credentials, then start it again`,
      cause === undefined ? undefined : { cause },
    );
    this.name = 'ConnectionClosed';
  }
}

/** Tells the operator each time the NATS connection drops and when it is back, with how long it was down. */
function watchConnection(log: ServeLog, connection: NatsConnection, context: string): ConnectionWatch {
  return new ConnectionWatch(connection, context, {
    dropped: (server) =>
      log.warn(
        'nats_down',
        `lost the NATS connection (context ${context}, ${server}); reconnecting, and nothing is taken from NATS until it is back`,
        { nats_context: context, server },
      ),
    restored: (server, downMs) =>
      log.info('nats_up', `reconnected to NATS (context ${context}, ${server}) after ${(downMs / 1000).toFixed(1)} s`, {
        nats_context: context,
        server,
        down_ms: Math.round(downMs),
      }),
  });
}

/** The ids of a notice as log fields. */
function idFields(ids: WorkIds): LogFields {
  return { job: ids.job, session: ids.session };
}

/** Logs what the server reports. Without `--verbose` only what went wrong: faults, failures, pauses. */
function logNotice(log: ServeLog, notice: ServerNotice, verbose: boolean): void {
  switch (notice.kind) {
    case 'started': {
      if (!verbose) return;
      const session =
        notice.ids.session !== undefined && !notice.label.includes(notice.ids.session) ? ` (session ${notice.ids.session})` : '';
      log.info('started', `started ${notice.label}${session}`, { channel: notice.channel, ...idFields(notice.ids) });
      return;
    }
    case 'ended': {
      const { outcome, reason } = notice.settled;
      const bad = outcome === 'failed' || outcome === 'dead' || outcome === 'crashed' || outcome === 'refused' || outcome === 'retried';
      if (!verbose && !bad) return;
      const ran = notice.result.kind !== 'abandoned';
      const took = ran ? ` in ${Math.round(notice.durationMs)} ms` : '';
      const fields: LogFields = {
        channel: notice.channel,
        ...idFields(notice.ids),
        outcome,
        reason,
        ...(ran ? { duration_ms: Math.round(notice.durationMs) } : {}),
      };
      log.line(
        bad ? 'warn' : 'info',
        'ended',
        `ended ${notice.label}: ${outcome}${took}${reason === undefined || reason === '' ? '' : `: ${reason}`}`,
        fields,
      );
      return;
    }
    case 'fault':
      log.error('fault', `${notice.channel} failed: ${notice.error.message}`, { channel: notice.channel, reason: notice.error.message });
      return;
    case 'paused':
      log.warn('paused', `${notice.channel} paused: ${notice.reason}`, { channel: notice.channel, reason: notice.reason });
      return;
    case 'resumed':
      log.info('resumed', `${notice.channel} resumed`, { channel: notice.channel });
      return;
    default: {
      const never: never = notice;
      return never;
    }
  }
}

export async function serve(flags: ServeFlags, io: Io, deps: ServeCommandDeps): Promise<void> {
  const { workDir, workers } = checkFlags(flags, io.cwd);
  const log = new ServeLog({ format: logFormat(flags.logFormat), worker: workerId(), out: io.err });
  const verbose = flags.verbose === true || envFlag(io.env, 'VERBOSE');
  const config = parseConfigForMode({ path: resolve(io.cwd, flags.config) }, 'serve');
  // refused before anything is opened: an endpoint this build cannot serve is not half-started
  const servable = checkServable(config);
  const natsContext = servable.natsContext === '' ? undefined : servable.natsContext;
  const runs = servable.prompts || servable.jobs || servable.slack || servable.a2aHttp;
  if (!runs) refuseLoopFlags(flags, config);
  // Slack tokens come from the environment only, checked before anything connects
  const tokens = servable.slack ? slackTokens(io.env) : undefined;
  const slackApi = servable.slack ? slackApiBase(io.env, config.expose.slack?.apiUrl) : undefined;
  for (const warning of configWarnings(config)) log.warn('warning', `${warning.key}: ${warning.message}`, { key: warning.key });
  const { HostTelemetry } = await import('../../host/index.js');
  const telemetry = await HostTelemetry.open(config, {
    env: io.env,
    disabled: flags.telemetry === false,
    serviceVersion: packageVersion(),
  });
  if (telemetry.note !== undefined) log.info('note', `note: ${telemetry.note}`);
  // lending tools alone calls no model: no API key is needed, and no store or peer is opened;
  // served prompts, jobs and Slack threads run the model. Nothing is provisioned here: a session
  // stream or memory bucket nobody created fails now.
  const journaled = runs ? await openRuntime(config, 'run', runtimeDepsFromFlags(flags, io, { telemetry, journaled: true })) : undefined;
  const runtime: JournaledRuntime | LendRuntime = journaled ?? (await openRuntime(config, 'lend', { env: io.env }));
  const cleanup: (() => void)[] = [];
  let slack: SlackChannel | undefined;
  let http: A2aHttpChannel | undefined;
  let health: HealthServer | undefined;
  // set by the first interrupt: a probe says not ready from then on, before the drain begins
  let stopping = false;
  // an MCP server that goes away mid-serve is started again by the next call: the operator hears of both
  cleanup.push(
    runtime.imported.onServerEvent((event) =>
      log.line(event.kind === 'restarted' ? 'info' : 'warn', 'mcp_server', event.message, { server: event.server, outcome: event.kind }),
    ),
  );
  try {
    for (const note of runtime.notes)
      log.line(
        note.level === 'warning' ? 'warn' : 'info',
        note.level,
        note.level === 'warning' ? note.message : `${note.level}: ${note.message}`,
      );
    // jobs bind their queue and task store first: a stream, consumer or bucket nobody made fails before anything is served
    const jobs =
      journaled === undefined
        ? undefined
        : await openServedJobs(
            journaled,
            (text, ids) => log.warn('warning', text, ids === undefined ? {} : idFields(ids)),
            flags.stateDir === undefined ? undefined : resolve(io.cwd, flags.stateDir),
          );
    // a stream or bucket with one replica on a cluster is lost with its node: said once, at start
    if (journaled !== undefined && natsContext !== undefined) {
      const nats = await runtime.connections.connection(natsContext);
      for (const warning of await replicaWarnings(nats, provisioningPlan(config))) log.warn('replicas', warning);
    }
    // the health endpoint listens before any work is taken: a port it cannot bind stops the
    // worker before a job is pulled
    let server: Server | undefined = undefined;
    let started = false;
    // follows the NATS connection once something serving has opened it (set before the banner)
    let watch: ConnectionWatch | undefined;
    const healthSettings = config.expose.health;
    if (healthSettings !== undefined) {
      // ready means connected and pulling: not while draining, paused, or the connection is down
      health = await HealthServer.start({
        address: healthSettings.address,
        port: healthSettings.port,
        notReady: () => {
          const why = [...(server?.notReady() ?? [])];
          if (stopping && !why.includes('draining')) why.push('draining');
          if (!started) why.push('starting');
          const conn = watch?.notReady();
          if (conn !== undefined) why.push(conn);
          return why;
        },
      });
    }
    const a2a = config.expose.a2a;
    const overA2a = servable.tools || servable.prompts;
    const transport = overA2a
      ? createTransport('nats', { connection: (await runtime.connections.connection(servable.natsContext)).connection })
      : undefined;
    const prompts =
      servable.prompts && transport !== undefined && journaled !== undefined
        ? promptChannel({
            identity: servable.identity,
            transport,
            workers: workers ?? a2a.workers,
            elicitation: a2a.elicitation,
            sessions: journaled.sessions,
            ...(a2a.idleTimeout.ms > 0 ? { questionWindowMs: a2a.idleTimeout.ms } : {}),
          })
        : undefined;
    // a worker that only takes jobs or answers in Slack registers no a2a service
    const tools =
      transport === undefined
        ? undefined
        : await startToolServer(runtime, {
            version: runtime.application?.model.version || packageVersion(),
            workDir,
            transport,
            wrappers: telemetry.servedToolWrappers(),
            ...(prompts === undefined ? {} : { extraEndpoints: [prompts.endpoint] }),
            ...(verbose
              ? {
                  observe: (call) => {
                    // names and outcomes only: arguments may hold what the operator would not log
                    const how = call.isError ? 'error' : call.exitCode !== undefined ? `exit ${call.exitCode}` : 'ok';
                    log.info(
                      'called',
                      `called ${cleanText(call.tool)} for ${cleanText(call.caller)}: ${how} in ${Math.round(call.durationMs)} ms`,
                      {
                        tool: call.tool,
                        caller: call.caller,
                        outcome: how,
                        duration_ms: Math.round(call.durationMs),
                      },
                    );
                  },
                }
              : {}),
          });
    const slackSettings = config.expose.slack;
    if (tokens !== undefined && slackSettings !== undefined && journaled !== undefined) {
      const { openSlackChannel } = await import('../../serve/slack/index.js');
      slack = await openSlackChannel({
        channels: slackSettings.channels,
        workers: workers ?? slackSettings.workers,
        sessions: journaled.sessions,
        tokens,
        ...(slackApi === undefined ? {} : { apiUrl: slackApi }),
        approvers: slackSettings.approvers,
        warn: (m) => log.warn('warning', m),
      });
    }
    if (servable.a2aHttp) {
      const { openA2aHttpChannel } = await import('../../serve/a2a-http/index.js');
      http = await openA2aHttpChannel(runtime, {
        version: runtime.application?.model.version || packageVersion(),
        env: io.env,
        ...(workers === undefined ? {} : { workers }),
      });
    }
    const channels: Channel[] = [
      ...(prompts === undefined ? [] : [prompts]),
      ...(jobs === undefined ? [] : [jobs.channel]),
      ...(slack === undefined ? [] : [slack]),
      ...(http === undefined ? [] : [http]),
    ];
    // every channel serves runs, so a server starts only on the journaled runtime
    server =
      channels.length === 0 || journaled === undefined
        ? undefined
        : startServer(journaled, {
            channels,
            // each channel closes its intake first; the service (discovery, tools, the prompt endpoint) after
            services: tools === undefined ? [] : [{ name: 'the a2a service', close: () => tools.drain() }],
            ...(workers === undefined ? {} : { workers }),
            workDir,
            telemetry,
            notify: (n: ServerNotice) => logNotice(log, n, verbose),
          });
    // what serves over NATS has opened the connection by now; a worker using none opens none for this
    const nats = natsContext === undefined ? undefined : await runtime.connections.opened(natsContext);
    if (nats !== undefined && natsContext !== undefined) watch = watchConnection(log, nats.connection, natsContext);
    started = true;
    printBanner(log, {
      identity: servable.identity,
      version: runtime.application?.model.version || packageVersion(),
      natsContext,
      tools,
      prompts,
      jobs,
      slack,
      http,
      server,
      elicitation: a2a.elicitation,
      health,
    });
    // set when the NATS connection closes on its own (the runtime closes it only after this)
    let lost: ConnectionClosed | undefined;
    const fault = await new Promise<Error | undefined>((settle) => {
      let presses = 0;
      void server?.stopped.then((err) => {
        if (err !== undefined) settle(err);
      });
      // the client keeps reconnecting; a connection closed all the same (its credentials refused
      // on reconnecting, say) serves nothing more, so the worker stops
      void nats?.connection.closed().then((err) => {
        lost = new ConnectionClosed(natsContext ?? '', err);
        settle(lost);
      });
      cleanup.push(
        (deps.onInterrupt ?? processInterrupt)(() => {
          presses++;
          if (presses === 1) {
            stopping = true;
            log.info(
              'draining',
              `draining: finishing the calls in flight${server === undefined ? '' : ' and the runs (press Ctrl-C again to cancel them)'}${server === undefined ? ' (press Ctrl-C again to exit at once)' : ''}`,
            );
            settle(undefined);
            return;
          }
          if (presses === 2 && server !== undefined) {
            log.info('cancelling', 'cancelling the runs in flight: each ends where it is, journaled (press Ctrl-C again to exit at once)');
            server.cancel();
            return;
          }
          log.info('stopping', 'stopping now');
          process.exit(EXIT.aborted);
        }),
      );
    });
    const error = server === undefined ? (await tools?.drain(), undefined) : ((await server.drain()) ?? fault);
    // a channel that fails for want of the closed connection says less than the connection's own reason
    if (lost !== undefined) throw new CliError(`fisk serve stopped: ${lost.message}`, EXIT.error, { cause: lost.cause });
    if (error !== undefined) {
      throw new CliError(
        `fisk serve stopped because an endpoint failed: ${error.message}; restart it once the cause is fixed`,
        EXIT.error,
        { cause: error },
      );
    }
    log.info('stopped', tools === undefined ? 'worker stopped' : 'a2a server stopped');
  } finally {
    for (const undo of cleanup.reverse()) undo();
    // a channel opened before something else failed still closes its socket (a no-op after a drain)
    await slack?.close();
    await slack?.settled();
    await http?.shutdown();
    await health?.close();
    await runtime.close();
    const delivered = await telemetry.finish();
    if (delivered !== undefined) log.info('telemetry', `telemetry: ${delivered}`);
  }
}
