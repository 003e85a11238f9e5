/**
 * `fisk mcp`: serves the agent's selected tools to MCP clients over streamable HTTP, with
 * elicitation as the approval gate. No model is involved. The library does the work; this file
 * resolves flags, prints what is served and handles Ctrl-C.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { Config } from '../../config/index.js';
import type { AssembledTools, McpRuntime } from '../../host/index.js';
import type { RunningMcpServer } from '../../mcp/index.js';
import type { InvokeWrapper } from '../../toolkit/invoke/index.js';
import { isLoopbackHost } from '../../util/loopback.js';
import { CliError, UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { println } from '../io.js';
import { packageVersion } from '../version.js';
import { parsePort, stopRequested } from '../process.js';
import { NO_TELEMETRY_HELP } from './flags.js';
import { runtimeDepsFromFlags } from './runtime-flags.js';
import { registerMcpLogin } from './mcp-login.js';
import { counted } from '../../util/count.js';
import { readBearerToken } from '../../util/bearer-token.js';

/** The port and address used when neither a flag, the environment nor the file names one. */
export const DEFAULT_MCP_PORT = 8080;
export const DEFAULT_MCP_ADDRESS = '127.0.0.1';
/** The server name when the configuration has no identity. */
const FALLBACK_NAME = 'fisk-ai';

interface McpFlags {
  readonly config: string;
  readonly port?: string;
  readonly address?: string;
  readonly telemetry?: boolean;
}

/** Where to listen, and where each half came from. */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * Three tiers, each half on its own: the flag or its environment variable, then
 * `expose.agent.mcp.port`/`address`, then 8080 on 127.0.0.1. The loopback default is deliberate:
 * anything that reaches the port can call the tools.
 */
export function resolveListenAddress(
  flags: { readonly port?: string; readonly address?: string },
  env: Io['env'],
  mcp: NonNullable<Config['expose']['mcp']>,
): ListenAddress {
  let port: number;
  if (flags.port !== undefined) port = parsePort(flags.port, '--port');
  else if (env['FISK_AI_MCP_PORT'] !== undefined && env['FISK_AI_MCP_PORT'] !== '')
    port = parsePort(env['FISK_AI_MCP_PORT'], 'FISK_AI_MCP_PORT');
  else port = mcp.port > 0 ? mcp.port : DEFAULT_MCP_PORT;
  const fromEnv = env['FISK_AI_MCP_ADDRESS'];
  let host =
    flags.address ??
    (fromEnv !== undefined && fromEnv.trim() !== '' ? fromEnv : undefined) ??
    (mcp.address !== '' ? mcp.address : DEFAULT_MCP_ADDRESS);
  host = host.trim();
  if (host === '') throw new UsageError('--address must not be empty; leave it out for 127.0.0.1');
  return { host, port };
}

/**
 * The token clients must send, read from the variable `expose.agent.mcp.auth_token_env` names, or
 * `undefined` when the key is unset. A variable that is not set, empty or too short is a
 * configuration error naming it; the value itself is never printed.
 */
export function resolveAuthToken(mcp: NonNullable<Config['expose']['mcp']>, env: Io['env']): string | undefined {
  const name = mcp.authTokenEnv;
  if (name === undefined) return undefined;
  const read = readBearerToken(env, name, 'expose.agent.mcp.auth_token_env');
  if ('problem' in read) throw new CliError(read.problem, EXIT.config);
  return read.token;
}

/** The startup warning for a listener anyone on the network may reach, or `undefined` on loopback. */
export function exposedWarning(host: string): string | undefined {
  if (isLoopbackHost(host)) return undefined;
  return `serving on ${host}, which is not a loopback address: anyone who can reach the port and holds the token can call the tools; the connection is plain HTTP, so the token and every call cross the network unencrypted unless a TLS proxy stands in front`;
}

function printStartup(
  io: Io,
  tools: AssembledTools,
  server: RunningMcpServer,
  name: string,
  version: string,
  tokenEnv: string | undefined,
): void {
  for (const w of tools.warnings) println(io.err, `warning: ${w.message}`);
  for (const f of tools.filtered) println(io.err, `note: not serving ${f.name} (${f.reason}): ${f.detail}`);
  println(
    io.err,
    `Serving ${counted(tools.served.length, 'tool')} over MCP at ${server.endpoint} as ${name}/${version} (every path answers; clients usually use /mcp)`,
  );
  for (const t of tools.served) println(io.err, `  ${t.name}`);
  println(io.err);
  println(io.err, 'Add to Claude Code with:');
  // the variable's name, for the shell to expand: the token itself is never printed
  const header = tokenEnv === undefined ? '' : ` --header "Authorization: Bearer $${tokenEnv}"`;
  println(io.err, `  claude mcp add --transport http ${name} ${server.endpoint}${header}`);
}

async function serve(flags: McpFlags, io: Io): Promise<void> {
  const [{ configWarnings, parseConfigForMode }, { openRuntime }, { admissionPolicy, mcpNotes }] = await Promise.all([
    import('../../config/index.js'),
    import('../../host/index.js'),
    import('../../mcp/index.js'),
  ]);
  const config = parseConfigForMode({ path: resolve(io.cwd, flags.config) }, 'mcp');
  const mcp = config.expose.mcp;
  if (mcp === undefined)
    throw new CliError(`expose.agent.mcp is required to serve tools over MCP; add it to ${config.source}`, EXIT.config);
  const address = resolveListenAddress(flags, io.env, mcp);
  const authToken = resolveAuthToken(mcp, io.env);
  // refused here, before anything is opened, as the listener itself would refuse it
  admissionPolicy(address.host, authToken);
  for (const w of configWarnings(config)) println(io.err, `warning: ${w.key}: ${w.message}`);
  for (const n of mcpNotes(config)) println(io.err, `${n.level}: ${n.message}`);

  const { finishCommandTelemetry, openCommandTelemetry } = await import('./telemetry-flag.js');
  const telemetry = await openCommandTelemetry(config, io, flags);
  // no model flags and no journal: the tools and their stores are all `fisk mcp` opens
  const runtime = await openRuntime(config, 'mcp', runtimeDepsFromFlags({}, io, { telemetry, journaled: false }));
  try {
    // no wrapper at all while telemetry is off: a served call pays for nothing it does not export
    await serveWith(runtime, mcp, { ...address, authToken }, io, telemetry.servedToolWrappers());
  } finally {
    await runtime.close();
    await finishCommandTelemetry(telemetry, io);
  }
}

async function serveWith(
  runtime: McpRuntime,
  mcp: NonNullable<Config['expose']['mcp']>,
  address: ListenAddress & { readonly authToken: string | undefined },
  io: Io,
  wrappers: readonly InvokeWrapper[],
): Promise<void> {
  const [{ assembleTools }, { confirmNote, startMcpServer }] = await Promise.all([
    import('../../host/index.js'),
    import('../../mcp/index.js'),
  ]);
  const config = runtime.config;
  const tools = await assembleTools(runtime, 'mcp');
  // said only when a served tool is gated: otherwise confirm_over_mcp changes nothing
  const confirm = confirmNote(mcp.confirmOverMcp, tools.served, config.harness.confirmTags);
  if (confirm !== undefined) println(io.err, `${confirm.level}: ${confirm.message}`);
  const name = config.identity === '' ? FALLBACK_NAME : config.identity;
  const version = runtime.application?.model.version || packageVersion();
  const server = await startMcpServer({
    host: address.host,
    port: address.port,
    identity: { name, version, instructions: mcp.instructions },
    tools: tools.served,
    confirmOverMcp: mcp.confirmOverMcp,
    confirmTags: config.harness.confirmTags,
    scrub: runtime.scrub,
    wrappers,
    maxConcurrentTools: mcp.maxConcurrentTools,
    toolTimeoutMs: mcp.toolTimeout.ms,
    workDir: io.cwd,
    ...(address.authToken === undefined ? {} : { authToken: address.authToken }),
    observe: (e) => {
      // one line per answered call, names only: arguments may hold what the operator would not log
      if (e.type === 'denied') println(io.err, `denied ${e.tool}: ${e.reason}`);
      else if (e.type === 'ungated') println(io.err, `ungated: ${e.message}`);
      else if (e.type === 'finished') println(io.err, `called ${e.tool}${e.isError ? ' (error)' : ''}`);
    },
  });
  const exposed = exposedWarning(address.host);
  if (exposed !== undefined) println(io.err, `warning: ${exposed}`);
  printStartup(io, tools, server, name, version, mcp.authTokenEnv);
  await stopRequested(io);
  await server.close();
  println(io.err, 'MCP server stopped');
}

/** Registers `fisk mcp`. */
export function registerMcp(program: Command, io: Io): void {
  const mcp = program
    .command('mcp')
    .description('serve the selected tools over the Model Context Protocol (streamable HTTP)')
    .option('--config <file>', 'the agent configuration', 'agent.yaml')
    .option('--port <port>', `the port to listen on (env FISK_AI_MCP_PORT; default expose.agent.mcp.port, else ${DEFAULT_MCP_PORT})`)
    .option(
      '--address <host>',
      `the address to listen on (env FISK_AI_MCP_ADDRESS; default expose.agent.mcp.address, else ${DEFAULT_MCP_ADDRESS})`,
    )
    .option('--no-telemetry', NO_TELEMETRY_HELP)
    .action((flags: McpFlags) => serve(flags, io));
  registerMcpLogin(mcp, io);
}
