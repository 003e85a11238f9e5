/**
 * `fisk web`: the agent in a browser. The server is one more client of the run handle; this file
 * resolves flags, prints the address to open and handles Ctrl-C.
 */
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { FetchLike } from '../../llm/http.js';
import { isLoopbackHost } from '../../util/loopback.js';
import { runtimeDepsFromFlags } from './runtime-flags.js';
import { UsageError } from '../errors.js';
import type { Io } from '../io.js';
import { println } from '../io.js';
import { parsePort, stopRequested } from '../process.js';
import { packageRoot } from '../version.js';
import { HTTP_DEBUG_HELP, NO_TELEMETRY_HELP, TRACE_HELP, emptyModelFlag } from './flags.js';

export const DEFAULT_WEB_PORT = 8090;
export const DEFAULT_WEB_ADDRESS = '127.0.0.1';

interface WebFlags {
  readonly config: string;
  readonly port?: string;
  readonly address?: string;
  readonly stateDir?: string;
  readonly telemetry?: boolean;
  readonly apiKey?: string;
  readonly baseUrl?: string;
  readonly httpDebug?: boolean;
  readonly trace?: string;
}

/** What a test or an embedding host can replace: the fetch the model's HTTP hooks wrap, and the interrupt source (SIGINT and SIGTERM). */
export interface WebCommandDeps {
  readonly fetch?: FetchLike;
  readonly onInterrupt?: (handler: () => void) => () => void;
}

/** The port to listen on: 1 to 65535, or 0 for any free port. */
export function parseWebPort(text: string | undefined): number {
  return text === undefined ? DEFAULT_WEB_PORT : parsePort(text, '--port', { anyFree: true });
}

/** The address to bind: loopback unless `--address` names another, which is allowed with a warning. */
export function webAddress(flag: string | undefined): { readonly host: string; readonly warning?: string } {
  if (flag === undefined) return { host: DEFAULT_WEB_ADDRESS };
  const host = flag.trim();
  if (host === '') throw new UsageError(`--address must not be empty; leave it out for ${DEFAULT_WEB_ADDRESS}`);
  if (isLoopbackHost(host)) return { host };
  return {
    host,
    warning: `serving on ${host}, which is not a loopback address: anyone who can reach it and holds the printed address (with its token) can drive this agent and approve its tools; the connection is plain HTTP`,
  };
}

/** The built page `fisk web` serves: dist/web/page in the fisk-ai package this code runs from. */
function webPageDir(): string {
  const root = packageRoot();
  if (root === undefined)
    throw new Error(
      'cannot find the fisk-ai package (its package.json) above this program, so not the web page in its dist/web/page either; reinstall fisk-ai',
    );
  return join(root, 'dist', 'web', 'page');
}

async function serveWeb(flags: WebFlags, io: Io, deps: WebCommandDeps): Promise<void> {
  const empty = emptyModelFlag(flags);
  if (empty !== undefined) throw new UsageError(empty);
  const port = parseWebPort(flags.port);
  const address = webAddress(flags.address);
  const [
    { configWarnings, parseConfigForMode },
    { openRuntime },
    { startWebServer },
    { finishCommandTelemetry, openCommandTelemetry },
    { openRunDebugFiles },
  ] = await Promise.all([
    import('../../config/index.js'),
    import('../../host/index.js'),
    import('../../web/server.js'),
    import('./telemetry-flag.js'),
    import('./run-debug.js'),
  ]);
  const config = parseConfigForMode({ path: resolve(io.cwd, flags.config) }, 'run');
  for (const warning of configWarnings(config)) println(io.err, `warning: ${warning.key}: ${warning.message}`);
  if (address.warning !== undefined) println(io.err, `warning: ${address.warning}`);
  // the page's runs share one trace and one debug log; a trace has no closing summary, as no one run closes it
  const debug = openRunDebugFiles(config, flags, io, () => undefined);
  try {
    const telemetry = await openCommandTelemetry(config, io, flags);
    const extras = {
      telemetry,
      debugMiddleware: debug.middleware,
      ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }),
      journaled: true,
    };
    const runtime = await openRuntime(config, 'run', runtimeDepsFromFlags(flags, io, extras));
    try {
      for (const note of runtime.notes) println(io.err, `${note.level}: ${note.message}`);
      const server = await startWebServer({
        host: address.host,
        port,
        pageDir: webPageDir(),
        runtime,
        workDir: io.cwd,
        telemetry,
      });
      println(io.out, server.url);
      println(
        io.err,
        `Serving ${config.identity === '' ? 'the agent' : config.identity} in the browser; open the address above (it holds this start's access token). Ctrl-C stops.`,
      );
      await stopRequested(io, deps.onInterrupt);
      await server.close();
      println(io.err, 'web server stopped');
    } finally {
      await runtime.close();
      await finishCommandTelemetry(telemetry, io);
    }
  } finally {
    debug.close();
  }
}

/** Registers `fisk web`. `deps` replaces process resources for tests and embedding hosts. */
export function registerWeb(program: Command, io: Io, deps: WebCommandDeps = {}): void {
  program
    .command('web')
    .description('chat with the agent in a browser: streamed answers, approvals as buttons, sessions')
    .option('--config <file>', 'the agent configuration', 'agent.yaml')
    .option('--port <port>', `the port to listen on (0 picks a free one; default ${DEFAULT_WEB_PORT})`)
    .option('--address <host>', `the address to listen on (default ${DEFAULT_WEB_ADDRESS}; another address is served with a warning)`)
    .option('--state-dir <dir>', 'where sessions are journaled with the file backend (default $XDG_STATE_HOME/fisk-ai/runs)')
    .option('--api-key <key>', "the model API key (default: the provider's own variable, e.g. ANTHROPIC_API_KEY)")
    .option('--base-url <url>', "the model API base URL (default: the provider's variable, e.g. ANTHROPIC_BASE_URL, then llm.base_url)")
    .option('--http-debug', HTTP_DEBUG_HELP)
    .option('--trace <file>', TRACE_HELP)
    .option('--no-telemetry', NO_TELEMETRY_HELP)
    .action((flags: WebFlags) => serveWeb(flags, io, deps));
}
