/**
 * The start-up check of a configured sandbox: Linux, `bwrap` on PATH and able to create every
 * namespace a child will get, and `prlimit` when limits are set. A sandbox that cannot work stops
 * the run before anything starts, naming the key and how to make it work; it never runs a child
 * unsandboxed instead.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { oneLine } from '../../util/terminal-text.js';
import { ToolkitError } from '../errors.js';
import { isolationArgs } from './command-line.js';

/** How long the check waits for bubblewrap to run a program: far more than it ever takes. */
const CHECK_TIMEOUT_MS = 10_000;

const INSTALL_HINT =
  'install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap; Fedora and RHEL: dnf install bubblewrap; Alpine: apk add bubblewrap; Arch: pacman -S bubblewrap)';
const DISABLE_HINT = 'or set harness.sandbox.enabled: false (and mcp_clients[].sandbox: false) to run tools unsandboxed';

/** Where `name` is on `path` (a PATH value), as an executable file; undefined when it is nowhere. */
export function findOnPath(name: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function fail(key: string, message: string): ToolkitError {
  return new ToolkitError('sandbox', `${key}: ${message}`);
}

const checked = new Map<string, true>();

/** Runs a trivial program in every namespace a child gets; the error names what stopped it. */
function probe(bwrap: string, key: string): void {
  if (checked.has(bwrap)) return;
  const result = spawnSync(
    bwrap,
    [
      ...isolationArgs(false),
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      '/tmp',
      '--',
      process.execPath,
      '--version',
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: CHECK_TIMEOUT_MS,
      encoding: 'utf8',
    },
  );
  if (result.error !== undefined || result.status !== 0) {
    const said = oneLine((result.stderr ?? '').trim() || result.error?.message || `exit status ${result.status ?? 'unknown'}`);
    throw fail(
      key,
      `bubblewrap (${bwrap}) cannot create the sandbox's namespaces here (${said}); allow unprivileged user namespaces (sysctl -w kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 and later also kernel.apparmor_restrict_unprivileged_userns=0), or in a container allow unshare and mount (for example docker run --security-opt seccomp=unconfined --cap-add SYS_ADMIN), ${DISABLE_HINT}`,
    );
  }
  checked.set(bwrap, true);
}

/** What the check found: the programs a sandboxed child is started with. */
export interface SandboxPrograms {
  readonly bwrap: string;
  readonly prlimit: string | undefined;
}

/**
 * Checks that a sandbox can run here, looking the programs up on `env.PATH`. `key` is the setting
 * that asked for it (`harness.sandbox.enabled`, `mcp_clients[0].sandbox`); `limits` says whether
 * `prlimit` is needed. Throws `ToolkitError` (`sandbox`) naming the key and the remedy.
 */
export function checkSandbox(
  env: Readonly<Record<string, string | undefined>>,
  key: string,
  limits: boolean,
  platform: NodeJS.Platform = process.platform,
): SandboxPrograms {
  if (platform !== 'linux') {
    throw fail(key, `the sandbox runs on Linux only, with bubblewrap, and this is ${platform}; run the agent on Linux, ${DISABLE_HINT}`);
  }
  const bwrap = findOnPath('bwrap', env['PATH']);
  if (bwrap === undefined) throw fail(key, `bubblewrap (bwrap) is not on PATH; ${INSTALL_HINT}, ${DISABLE_HINT}`);
  probe(bwrap, key);
  let prlimit: string | undefined;
  if (limits) {
    prlimit = findOnPath('prlimit', env['PATH']);
    if (prlimit === undefined)
      throw fail(
        'harness.sandbox.limits',
        'the limits need prlimit, which is not on PATH; install util-linux (it ships prlimit), or remove harness.sandbox.limits',
      );
  }
  return { bwrap, prlimit };
}
