import { ConfigError } from './errors.js';
import type { McpClientConfig, RemoteAgentConfig } from './types.js';

/** An MCP client entry with its `${VAR}` references resolved. */
export interface ResolvedMcpClient {
  readonly env: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string>>;
  readonly url: string | undefined;
  /**
   * Resolved values of eight characters or more, longest first, to be replaced wherever an
   * endpoint or error might be printed.
   */
  readonly secrets: readonly string[];
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Expands `${VAR}` references in an MCP client's env values, header values and url. Nothing else
 * is expanded: a value in command or args is literal. A reference to an unset variable is an error
 * naming the key, because connecting with an empty credential fails in a far less readable way.
 */
export function resolveMcpClient(
  client: McpClientConfig,
  index: number,
  env: Readonly<Record<string, string | undefined>>,
): ResolvedMcpClient {
  const secrets = new Set<string>();
  const expand = (value: string, key: string): string =>
    value.replace(REFERENCE, (_whole, name: string) => {
      const v = env[name];
      if (v === undefined) {
        throw ConfigError.of('value', key, `refers to \${${name}}, which is not set in the environment; export it or remove the reference`);
      }
      if (v.length >= 8) secrets.add(v);
      return v;
    });
  const base = `mcp_clients[${index}]`;
  const mapValues = (rec: Readonly<Record<string, string>>, key: string): Record<string, string> =>
    Object.fromEntries(Object.entries(rec).map(([k, v]) => [k, expand(v, `${base}.${key}.${k}`)]));
  const resolved = {
    env: mapValues(client.env, 'env'),
    headers: mapValues(client.headers, 'headers'),
    url: client.url === undefined ? undefined : expand(client.url, `${base}.url`),
  };
  return { ...resolved, secrets: [...secrets].sort((a, b) => b.length - a.length) };
}

/** A `remote_agents` entry's headers with their `${VAR}` references resolved, and the secrets they hold. */
export interface ResolvedHeaders {
  readonly headers: Readonly<Record<string, string>>;
  /** Resolved values of eight characters or more, longest first. */
  readonly secrets: readonly string[];
}

/**
 * Expands `${VAR}` references in a `remote_agents` entry's header values. A reference to an unset
 * variable is an error naming the key. Every resolved value counts as a secret: a header is how a
 * peer is told who is calling.
 */
export function resolveRemoteAgentHeaders(
  agent: RemoteAgentConfig,
  index: number,
  env: Readonly<Record<string, string | undefined>>,
): ResolvedHeaders {
  const secrets = new Set<string>();
  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(agent.headers)) {
    const key = `remote_agents[${index}].headers.${name}`;
    const value = template.replace(REFERENCE, (_whole, variable: string) => {
      const v = env[variable];
      if (v === undefined)
        throw ConfigError.of(
          'value',
          key,
          `refers to \${${variable}}, which is not set in the environment; export it or remove the reference`,
        );
      if (v.length >= 8) secrets.add(v);
      return v;
    });
    if (value.length >= 8) secrets.add(value);
    headers[name] = value;
  }
  return { headers, secrets: [...secrets].sort((a, b) => b.length - a.length) };
}

/** Replaces every secret in `text` with a marker, longest first so a value containing another goes whole. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(s).join('[REDACTED]');
  return out;
}

/** Drops userinfo from a URL for display, leaving the path (which may itself need `redactSecrets`). */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.username !== '' || url.password !== '') {
      url.username = 'REDACTED';
      url.password = '';
    }
    return url.toString();
  } catch {
    return value;
  }
}
