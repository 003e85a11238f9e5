/**
 * The agent's a2a service: discovery, the tools it lends to peers and any further endpoint (served
 * prompts). The tools are the runtime's `a2a-tools` assembly, narrowed once more by
 * `selectExposed`, advertised by a card computed from exactly that list, and served as a NATS micro
 * service on the runtime's own connection. What the card advertises and what a call can reach are
 * one list, and every tool left out is reported with its reason.
 */
import { buildAgentCard, selectExposed, startToolService, subjects } from '../a2a/index.js';
import type { InvokeWrapper } from '../toolkit/invoke/types.js';
import type { AgentCard, EndpointSpec, ServedCall, ServiceHandle, Transport } from '../a2a/index.js';
import type { Config } from '../config/index.js';
import { assembleTools } from '../host/index.js';
import type { Runtime } from '../host/index.js';
import type { ToolWarning } from '../toolkit/source.js';
import { ServeError } from './errors.js';

/** One tool not lent, and why. */
export interface NotServed {
  readonly name: string;
  readonly reason: string;
  readonly detail: string;
}

export interface ToolServerOptions {
  /** The version the card advertises (the application's own, else the harness version). */
  readonly version: string;
  /** The working directory command tools run in. */
  readonly workDir: string;
  /** Told about every answered call. */
  readonly observe?: (call: ServedCall) => void;
  /** A transport to serve on instead of the runtime's NATS connection (an in-process bus). */
  readonly transport?: Transport;
  /** Wrappers around each served call (a telemetry tool span), outermost first. */
  readonly wrappers?: readonly InvokeWrapper[];
  /** Further endpoints on the same service (the prompt endpoint of served prompts). */
  readonly extraEndpoints?: readonly EndpointSpec[];
}

/** A running tool service and what it serves. */
export interface ToolServer {
  readonly identity: string;
  readonly natsContext: string;
  readonly subjects: { readonly discovery: string; readonly tool: string };
  readonly card: AgentCard;
  /** The served tool names, in card order. */
  readonly served: readonly string[];
  readonly notServed: readonly NotServed[];
  readonly warnings: readonly ToolWarning[];
  /** Stops taking calls and resolves once the calls in flight have answered. Idempotent. */
  drain(): Promise<void>;
}

/** What `fisk serve` runs for a configuration. */
export interface Servable {
  readonly identity: string;
  readonly natsContext: string;
  /** `expose.agent.a2a.serve_tools`: lend the application's tools. */
  readonly tools: boolean;
  /** `expose.agent.a2a.prompts`: run whole prompts delegated by peers. */
  readonly prompts: boolean;
  /** `expose.agent.jobs`: take jobs from a JetStream work queue. */
  readonly jobs: boolean;
  /** `expose.agent.slack`: answer people in Slack threads. */
  readonly slack: boolean;
  /** `expose.agent.a2a_http`: run tasks A2A callers send over HTTP. */
  readonly a2aHttp: boolean;
}

/**
 * What the configuration asks `fisk serve` for that this build can serve. An endpoint this build
 * does not serve is refused by key rather than ignored, and a configuration enabling none is
 * refused naming the keys to set.
 */
export function checkServable(config: Config): Servable {
  const a2a = config.expose.a2a;
  const jobs = config.expose.jobs !== undefined;
  const slack = config.expose.slack !== undefined;
  const a2aHttp = config.expose.a2aHttp !== undefined;
  if (!a2a.serveTools && !a2a.prompts && !jobs && !slack && !a2aHttp) {
    throw new ServeError(
      'no_endpoint',
      `${config.source} enables no endpoint to serve: set expose.agent.a2a.serve_tools: true to lend the application's tools to peers, expose.agent.a2a.prompts: true to run prompts they delegate, add expose.agent.jobs to take jobs from a work queue, expose.agent.slack to answer in Slack threads, or expose.agent.a2a_http to answer A2A callers over HTTP`,
    );
  }
  if (config.identitySource !== 'explicit') {
    throw new ServeError(
      'no_endpoint',
      `identity is required in ${config.source} to serve: peers address this agent by it; set an explicit identity`,
    );
  }
  // Slack and A2A over HTTP need no NATS: each listens on its own connection
  if ((a2a.serveTools || a2a.prompts || jobs) && (config.natsContext === undefined || config.natsContext === '')) {
    throw new ServeError(
      'no_endpoint',
      `nats_context is required in ${config.source} to serve: the context naming the NATS server and credentials`,
    );
  }
  return {
    identity: config.identity,
    natsContext: config.natsContext ?? '',
    tools: a2a.serveTools,
    prompts: a2a.prompts,
    jobs,
    slack,
    a2aHttp,
  };
}

/**
 * Starts the tool service of a runtime opened for `run`. Throws `ServeError` for a configuration
 * this build cannot serve or a tool list left empty, and whatever the connection raises when the
 * NATS context cannot be reached. The runtime stays the caller's to close, after `drain`.
 */
export async function startToolServer(runtime: Runtime, opts: ToolServerOptions): Promise<ToolServer> {
  const config = runtime.config;
  const { identity, natsContext, tools: lending } = checkServable(config);
  // an agent serving prompts only still answers discovery, with a card listing no tools
  const assembled = lending ? await assembleTools(runtime, 'a2a-tools') : { served: [], filtered: [], warnings: [] };
  // the host has already narrowed the list; the card's own check is the last word on what a peer can reach
  const selection = selectExposed(assembled.served);
  const notServed: NotServed[] = [
    ...assembled.filtered.map((f) => ({ name: f.name, reason: f.reason, detail: f.detail })),
    ...selection.dropped.map((d) => ({ name: d.name, reason: d.reason, detail: d.detail })),
  ];
  if (lending && selection.exposed.length === 0) {
    throw new ServeError(
      'no_tools',
      `no tools are left to serve over a2a from ${config.source}: every tool was filtered, denied or needs approval (${notServed.length} left out); check include/exclude and expose.agent.tools`,
    );
  }
  const description = runtime.application?.model.help.trim() ?? '';
  const card = buildAgentCard({
    name: identity,
    version: opts.version,
    ...(description === '' ? {} : { description }),
    tools: selection.exposed,
  });
  const target = opts.transport ?? { connection: (await runtime.connections.connection(natsContext)).connection };
  const a2a = config.expose.a2a;
  const handle: ServiceHandle = await startToolService(target, {
    identity,
    card,
    tools: selection.exposed,
    slots: a2a.maxConcurrentTools,
    toolTimeoutMs: a2a.toolTimeout.ms,
    workDir: opts.workDir,
    scrub: runtime.scrub,
    ...(opts.observe === undefined ? {} : { observe: opts.observe }),
    ...(opts.wrappers === undefined ? {} : { wrappers: opts.wrappers }),
    ...(opts.extraEndpoints === undefined ? {} : { extraEndpoints: opts.extraEndpoints }),
  });
  let drained: Promise<void> | undefined;
  return {
    identity,
    natsContext,
    subjects: { discovery: subjects.discovery(identity), tool: subjects.tool(identity) },
    card,
    served: selection.exposed.map((t) => t.name),
    notServed,
    warnings: assembled.warnings,
    drain: () => (drained ??= handle.stop()),
  };
}
