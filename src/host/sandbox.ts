/**
 * A runtime's sandbox, resolved once when it opens: checked to work here (or the runtime does not
 * open), `~/` paths expanded against the children's HOME, and fisk's own stores (journals, tasks,
 * memory, the knowledge index) added to what every child has hidden, whatever `hide` says.
 */
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { DEFAULT_SANDBOX_HIDE } from '../config/index.js';
import type { Config } from '../config/index.js';
import { checkSandbox } from '../toolkit/sandbox/check.js';
import { expandHome } from '../toolkit/sandbox/policy.js';
import type { SandboxSettings } from '../toolkit/sandbox/policy.js';

type Env = Readonly<Record<string, string | undefined>>;

function home(env: Env): string {
  const h = env['HOME'];
  return h !== undefined && isAbsolute(h) ? h : homedir();
}

const expand = expandHome;

/** The directory option of a file backend's options block, when it names one. */
function optionDirectory(options: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(options);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const dir = (parsed as Record<string, unknown>)['directory'];
    return typeof dir === 'string' && dir.trim() !== '' ? dir.trim() : undefined;
  } catch {
    return undefined;
  }
}

/** fisk's own state: `$XDG_STATE_HOME/fisk-ai` (journals, tasks), the configured stores and the knowledge index. */
function fiskStores(config: Config, env: Env, storeBase: string | undefined, stateDir: string | undefined): string[] {
  const xdg = env['XDG_STATE_HOME'];
  const stateHome = xdg !== undefined && xdg !== '' && isAbsolute(xdg) ? xdg : join(home(env), '.local', 'state');
  const under = (dir: string, base: string): string => (isAbsolute(dir) ? dir : resolve(base, dir));
  const sessions = optionDirectory(config.harness.sessions.options);
  const tasks = optionDirectory(config.tasks.options);
  const memory = optionDirectory(config.harness.memory.options) ?? join('memory', config.identity);
  const stores = storeBase ?? config.baseDir;
  return [
    join(stateHome, 'fisk-ai'),
    ...(stateDir === undefined ? [] : [stateDir]),
    ...(sessions === undefined ? [] : [under(sessions, config.baseDir)]),
    ...(tasks === undefined ? [] : [under(tasks, config.baseDir)]),
    under(memory, stores),
    under(config.harness.knowledge.directory, stores),
  ];
}

/** The first setting that asks for a sandbox, for the start-up error to name. */
function askingKey(config: Config): string | undefined {
  if (config.harness.sandbox.enabled) return 'harness.sandbox.enabled';
  const i = config.mcpClients.findIndex((c) => c.sandbox.enabled);
  return i < 0 ? undefined : `mcp_clients[${i}].sandbox`;
}

/**
 * The sandbox of a runtime of `config`, or undefined when nothing asks for one. Throws
 * `ToolkitError` (`sandbox`) when one is asked for and cannot run here.
 */
export function openSandbox(
  config: Config,
  env: Env,
  stores: { readonly storeBase?: string | undefined; readonly stateDir?: string | undefined } = {},
): SandboxSettings | undefined {
  const key = askingKey(config);
  if (key === undefined) return undefined;
  const s = config.harness.sandbox;
  const limited = s.limits.addressSpace !== undefined || s.limits.cpuSeconds !== undefined || s.limits.openFiles !== undefined;
  const programs = checkSandbox(env, key, limited);
  const hide = [...(s.hide ?? DEFAULT_SANDBOX_HIDE), ...fiskStores(config, env, stores.storeBase, stores.stateDir)].map((p) =>
    expand(p, env),
  );
  return {
    enabled: s.enabled,
    bwrap: programs.bwrap,
    prlimit: programs.prlimit,
    network: s.network,
    writable: s.writable?.map((p) => expand(p, env)),
    hide: [...new Set(hide)],
    limits: s.limits,
    grants: s.tools.map((g) => ({ ...g, writable: g.writable.map((p) => expand(p, env)) })),
  };
}
