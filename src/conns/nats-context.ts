/**
 * NATS CLI contexts: the JSON files `nats context save` writes under
 * `$XDG_CONFIG_HOME/nats/context/<name>.json` (default `~/.config/nats/context`). Operators
 * already keep their servers, credentials and TLS material there, so an agent names a context
 * instead of repeating secrets in agent.yaml.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { ConnError } from './errors.js';

/** A parsed context. Paths are absolute (a leading `~` expanded); empty fields are `undefined`. */
export interface NatsContext {
  readonly name: string;
  /** The file it was read from, for messages. */
  readonly file: string;
  /** Server URLs (the context's comma-separated `url`); empty means the client default. */
  readonly servers: readonly string[];
  readonly token?: string;
  readonly user?: string;
  readonly password?: string;
  /** A credentials file (JWT and seed). */
  readonly creds?: string;
  /** An nkey seed file. */
  readonly nkey?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly ca?: string;
  readonly tlsFirst: boolean;
  readonly inboxPrefix?: string;
  readonly jetstreamDomain?: string;
  readonly jetstreamApiPrefix?: string;
}

/** Context names become file names: no separators, no leading dot. */
const CONTEXT_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/**
 * Fields the NATS CLI writes that this build cannot honour. Connecting while ignoring one would
 * connect differently than the operator configured (another proxy, another identity), so a
 * context that sets any of them is refused.
 */
const UNSUPPORTED = [
  'nsc',
  'socks_proxy',
  'user_jwt',
  'windows_cert_store',
  'windows_cert_match',
  'windows_cert_match_by',
  'windows_ca_certs_match',
] as const;

const STRING_FIELDS = [
  'description',
  'url',
  'token',
  'user',
  'password',
  'creds',
  'nkey',
  'cert',
  'key',
  'ca',
  'inbox_prefix',
  'jetstream_domain',
  'jetstream_api_prefix',
  'jetstream_event_prefix',
  'color_scheme',
] as const;

/** The directory contexts live in, honouring `XDG_CONFIG_HOME` when it is absolute. */
export function natsContextDir(env: Readonly<Record<string, string | undefined>>): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg !== undefined && xdg !== '' && isAbsolute(xdg) ? xdg : join(env.HOME ?? homedir(), '.config');
  return join(base, 'nats', 'context');
}

function expandHome(path: string, env: Readonly<Record<string, string | undefined>>): string {
  if (path === '~') return env.HOME ?? homedir();
  if (path.startsWith('~/')) return join(env.HOME ?? homedir(), path.slice(2));
  return path;
}

/**
 * Reads a named context. Refuses (ConnError): a name that is not a plain file name, a missing or
 * unreadable file (`context_not_found`), a file that is not a JSON object, a field of the wrong
 * type, and a context setting a field this build cannot honour (`context_invalid`).
 */
export function loadNatsContext(name: string, env: Readonly<Record<string, string | undefined>>): NatsContext {
  if (!CONTEXT_NAME.test(name)) {
    throw new ConnError(
      'context_invalid',
      `nats_context ${JSON.stringify(name)} is not a context name (letters, digits, '.', '-', '_'; no path)`,
    );
  }
  const file = join(natsContextDir(env), `${name}.json`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : (err as Error).message;
    throw new ConnError(
      'context_not_found',
      `NATS context ${JSON.stringify(name)}: ${file} ${why}; create it with "nats context save ${name} --server URL" or fix nats_context`,
      { cause: err },
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConnError('context_invalid', `NATS context ${JSON.stringify(name)}: ${file} is not valid JSON: ${(err as Error).message}`, {
      cause: err,
    });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ConnError('context_invalid', `NATS context ${JSON.stringify(name)}: ${file} is not a JSON object`);
  }
  const obj = raw as Record<string, unknown>;
  const str: Partial<Record<(typeof STRING_FIELDS)[number], string>> = {};
  for (const field of STRING_FIELDS) {
    const value = obj[field];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string')
      throw new ConnError('context_invalid', `NATS context ${JSON.stringify(name)}: ${file}: ${field} must be a string`);
    str[field] = value;
  }
  for (const field of UNSUPPORTED) {
    const value = obj[field];
    if (value !== undefined && value !== null && value !== '' && value !== false) {
      throw new ConnError(
        'context_invalid',
        `NATS context ${JSON.stringify(name)}: ${file} sets ${field}, which fisk-ai cannot honour; use a context without it`,
      );
    }
  }
  const tlsFirst = obj.tls_first;
  if (tlsFirst !== undefined && typeof tlsFirst !== 'boolean') {
    throw new ConnError('context_invalid', `NATS context ${JSON.stringify(name)}: ${file}: tls_first must be true or false`);
  }
  const path = (p: string | undefined): string | undefined => (p === undefined ? undefined : expandHome(p, env));
  const servers = (str.url ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return {
    name,
    file,
    servers,
    ...(str.token !== undefined ? { token: str.token } : {}),
    ...(str.user !== undefined ? { user: str.user } : {}),
    ...(str.password !== undefined ? { password: str.password } : {}),
    ...(str.creds !== undefined ? { creds: path(str.creds) } : {}),
    ...(str.nkey !== undefined ? { nkey: path(str.nkey) } : {}),
    ...(str.cert !== undefined ? { cert: path(str.cert) } : {}),
    ...(str.key !== undefined ? { key: path(str.key) } : {}),
    ...(str.ca !== undefined ? { ca: path(str.ca) } : {}),
    tlsFirst: tlsFirst === true,
    ...(str.inbox_prefix !== undefined ? { inboxPrefix: str.inbox_prefix } : {}),
    ...(str.jetstream_domain !== undefined ? { jetstreamDomain: str.jetstream_domain } : {}),
    ...(str.jetstream_api_prefix !== undefined ? { jetstreamApiPrefix: str.jetstream_api_prefix } : {}),
  } as NatsContext;
}
