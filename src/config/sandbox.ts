/**
 * `harness.sandbox` and the sandbox keys of `mcp_clients[]`, prepared: paths resolved against the
 * directory holding agent.yaml (those starting `~/` wait for the child's HOME), limits checked,
 * grant patterns compiled once to refuse a bad one here rather than at the first call.
 */
import { isAbsolute, resolve } from 'node:path';
import { parseByteSize } from './byte-size.js';
import { ConfigError } from './errors.js';
import { normalizeList } from './normalize.js';
import type { RawConfig } from './schema.js';
import type { McpSandboxConfig, SandboxConfig, SandboxGrant, SandboxLimits } from './types.js';

/**
 * What is hidden from every sandboxed child unless `harness.sandbox.hide` says otherwise: the
 * usual homes of credentials. fisk's own state, memory and knowledge stores are hidden either way.
 */
export const DEFAULT_SANDBOX_HIDE = [
  '~/.ssh',
  '~/.aws',
  '~/.azure',
  '~/.config/gcloud',
  '~/.kube',
  '~/.docker',
  '~/.gnupg',
  '~/.netrc',
] as const;

type RawSandbox = NonNullable<NonNullable<RawConfig['harness']>['sandbox']>;
type RawMcpClient = NonNullable<RawConfig['mcp_clients']>[number];

/** The largest address space accepted: 1 TiB, far past any machine's memory. */
const ADDRESS_SPACE_MAX = 1024 * 1024 * 1024 * 1024;
/** The smallest: 16 MiB, below which no program starts. */
const ADDRESS_SPACE_MIN = 16 * 1024 * 1024;

/** A path as the operator wrote it: `~/…` kept for the child's HOME, anything else made absolute. */
export function sandboxPath(value: string, key: string, baseDir: string): string {
  const p = value.trim();
  if (p === '') throw ConfigError.of('value', key, 'is an empty path; remove the entry or name a file or directory');
  if (p === '~' || p.startsWith('~/')) return p;
  if (p.startsWith('~'))
    throw ConfigError.of(
      'value',
      key,
      `${JSON.stringify(p)} names another user's home; write ~/… for the child's HOME, or an absolute path`,
    );
  if (p.includes('\0')) throw ConfigError.of('value', key, 'contains a NUL character');
  return isAbsolute(p) ? resolve(p) : resolve(baseDir, p);
}

function paths(values: readonly string[] | undefined, key: string, baseDir: string): string[] | undefined {
  if (values === undefined) return undefined;
  return normalizeList(values.map((v, i) => sandboxPath(v, `${key}[${i}]`, baseDir)));
}

function positive(value: number | undefined, key: string, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (value <= 0)
    throw ConfigError.of('value', key, `${value} must be a positive number of ${what}; leave the key out to keep the inherited limit`);
  return value;
}

function prepareLimits(raw: RawSandbox['limits']): SandboxLimits {
  const key = 'harness.sandbox.limits';
  return {
    addressSpace:
      raw?.address_space === undefined
        ? undefined
        : parseByteSize(raw.address_space, `${key}.address_space`, 0, ADDRESS_SPACE_MIN, ADDRESS_SPACE_MAX),
    cpuSeconds: positive(raw?.cpu_seconds, `${key}.cpu_seconds`, 'seconds'),
    openFiles: positive(raw?.open_files, `${key}.open_files`, 'descriptors'),
  };
}

function prepareGrant(g: NonNullable<RawSandbox['tools']>[number], i: number, baseDir: string): SandboxGrant {
  const key = `harness.sandbox.tools[${i}]`;
  const tools = normalizeList(g.tools);
  if (tools.length === 0)
    throw ConfigError.of(
      'value',
      `${key}.tools`,
      'is empty, so the entry grants nothing; list regular expressions over tool names such as ^fetch_',
    );
  tools.forEach((re, j) => {
    try {
      new RegExp(re, 'u');
    } catch (err) {
      throw ConfigError.of(
        'value',
        `${key}.tools[${j}]`,
        `${JSON.stringify(re)} is not a valid regular expression (${(err as Error).message})`,
      );
    }
  });
  const writable = paths(g.writable, `${key}.writable`, baseDir) ?? [];
  const network = g.network ?? false;
  if (!network && writable.length === 0)
    throw ConfigError.of('value', key, 'grants nothing; add network: true or writable paths, or remove the entry');
  return { tools, network, writable };
}

/** Prepares `harness.sandbox`; absent is a disabled sandbox with the defaults. */
export function prepareSandbox(raw: RawSandbox | undefined, baseDir: string): SandboxConfig {
  return {
    enabled: raw?.enabled ?? false,
    network: raw?.network ?? false,
    writable: paths(raw?.writable, 'harness.sandbox.writable', baseDir),
    hide: paths(raw?.hide, 'harness.sandbox.hide', baseDir),
    limits: prepareLimits(raw?.limits),
    tools: (raw?.tools ?? []).map((g, i) => prepareGrant(g, i, baseDir)),
  };
}

/**
 * An MCP client's sandbox keys. `sandbox` defaults to the harness switch; `network` and `writable`
 * belong to a sandboxed stdio server only, so on any other entry they are refused.
 */
export function prepareMcpSandbox(
  client: RawMcpClient,
  key: string,
  harnessEnabled: boolean,
  stdio: boolean,
  baseDir: string,
): McpSandboxConfig {
  const enabled = client.sandbox ?? harnessEnabled;
  const given = client.sandbox !== undefined || client.network !== undefined || client.writable !== undefined;
  if (!stdio && given) {
    const which = client.sandbox !== undefined ? 'sandbox' : client.network !== undefined ? 'network' : 'writable';
    throw ConfigError.of(
      'value',
      `${key}.${which}`,
      'applies to stdio servers only (a program fisk starts); remove it from this http entry',
    );
  }
  if (!enabled && (client.network !== undefined || client.writable !== undefined)) {
    const which = client.network !== undefined ? 'network' : 'writable';
    throw ConfigError.of(
      'value',
      `${key}.${which}`,
      `has no effect while the server runs unsandboxed; remove it, or set ${key}.sandbox: true (or harness.sandbox.enabled: true)`,
    );
  }
  return {
    enabled: stdio && enabled,
    network: client.network ?? false,
    writable: paths(client.writable, `${key}.writable`, baseDir),
  };
}
