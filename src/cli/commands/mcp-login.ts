/**
 * `fisk mcp login NAME`: logs this agent in to an OAuth-protected MCP server of `mcp_clients`.
 * Prints the authorization URL (and opens a browser when this machine has one), waits for the
 * browser to come back to a loopback address, and says where the login is kept.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { CliError, UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { println } from '../io.js';
import { processInterrupt } from '../process.js';
import { counted } from '../../util/count.js';

interface LoginFlags {
  readonly config: string;
  readonly browser: boolean;
}

/** The program that opens a URL in a browser here, if there is one: `$BROWSER`, else the desktop's opener. */
export function browserCommand(env: Io['env'], platform: NodeJS.Platform = process.platform): string | undefined {
  const chosen = env['BROWSER'];
  if (chosen !== undefined && chosen.trim() !== '') return chosen.trim();
  if (platform === 'darwin') return 'open';
  if (platform === 'linux' || platform === 'freebsd' || platform === 'openbsd') {
    const desktop = (env['DISPLAY'] ?? '') !== '' || (env['WAYLAND_DISPLAY'] ?? '') !== '';
    return desktop ? 'xdg-open' : undefined;
  }
  return undefined;
}

/** Starts the browser on `url`, detached, with the environment minus every credential; a failure only means the URL has to be copied. */
function openBrowser(command: string, url: URL, env: Record<string, string>): void {
  try {
    const child = spawn(command, [url.href], { detached: true, stdio: 'ignore', env });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // the URL is printed either way
  }
}

async function login(name: string, flags: LoginFlags, io: Io): Promise<void> {
  const [{ parseConfigForMode, credentialEnvNames }, { childEnvironment, loginMcpServer }] = await Promise.all([
    import('../../config/index.js'),
    import('../../mcp/client/index.js'),
  ]);
  const config = parseConfigForMode({ path: resolve(io.cwd, flags.config) }, 'info');
  const index = config.mcpClients.findIndex((m) => m.name === name);
  const entry = config.mcpClients[index];
  if (entry === undefined) {
    const known = config.mcpClients.map((m) => m.name);
    throw new UsageError(
      `there is no MCP server ${JSON.stringify(name)} in ${config.source}${known.length === 0 ? ' (it has no mcp_clients)' : `; its mcp_clients are ${known.join(', ')}`}`,
    );
  }
  const credentials = credentialEnvNames(config);
  const opener = flags.browser ? browserCommand(io.env) : undefined;
  const browserEnv = childEnvironment(io.env, credentials, {});
  const cancel = new AbortController();
  const stopListening = processInterrupt(() => cancel.abort(new Error('the login was interrupted')));
  try {
    const result = await loginMcpServer(
      entry,
      index,
      { env: io.env, credentialEnvNames: credentials, signal: cancel.signal },
      {
        show: (url, redirect) => {
          println(io.err, `To log in to MCP server ${JSON.stringify(name)}, open this address in a browser:`);
          println(io.err);
          println(io.err, `  ${url.href}`);
          println(io.err);
          println(io.err, `Waiting for the browser to come back to ${redirect} (Ctrl-C to give up).`);
        },
        ...(opener === undefined ? {} : { open: (url: URL) => openBrowser(opener, url, browserEnv) }),
      },
    );
    println(
      io.err,
      `Logged in to MCP server ${JSON.stringify(name)}: it lists ${counted(result.tools, 'tool')}. The login is kept in ${result.file}`,
    );
  } catch (err) {
    if (cancel.signal.aborted) throw new CliError('the login was interrupted; nothing was stored', EXIT.aborted);
    throw err;
  } finally {
    stopListening();
  }
}

/** Registers `fisk mcp login` under `fisk mcp`. */
export function registerMcpLogin(mcp: Command, io: Io): void {
  mcp
    .command('login')
    .description('log this agent in to an OAuth-protected MCP server of mcp_clients (prints the URL, opens a browser when there is one)')
    .argument('<name>', 'the mcp_clients entry to log in to')
    .option('--config <file>', 'the agent configuration', 'agent.yaml')
    .option('--no-browser', 'only print the address to open, never start a browser')
    .action((name: string, flags: LoginFlags) => login(name, flags, io));
}
