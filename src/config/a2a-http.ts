/**
 * `expose.agent.a2a_http`: where `fisk serve` answers the A2A standard over HTTP, which card URL
 * it advertises, and the bearer token that guards it. Listening off this machine without a token
 * is refused here, naming the key, before anything is opened.
 */
import { ConfigError } from './errors.js';
import { isLoopbackHost } from '../util/loopback.js';
import { parseDuration } from './normalize.js';
import type { ExposeA2aHttpConfig } from './types.js';
import { workerCount } from './workers.js';

/** The block as the schema accepts it. */
export interface RawA2aHttp {
  readonly address?: string | undefined;
  readonly port?: number | undefined;
  readonly public_url?: string | undefined;
  readonly auth_token_env?: string | undefined;
  readonly workers?: number | undefined;
  readonly question_timeout?: string | 0 | undefined;
}

const KEY = 'expose.agent.a2a_http';
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/u;

function port(value: number | undefined): number {
  if (value === undefined)
    throw ConfigError.of('missing', `${KEY}.port`, 'is required: the TCP port A2A callers reach the agent on (1 to 65535)');
  if (value < 1 || value > 65535) throw ConfigError.of('value', `${KEY}.port`, `${value} is not a TCP port; use 1 to 65535`);
  return value;
}

function publicUrl(value: string | undefined): string | undefined {
  const text = (value ?? '').trim();
  if (text === '') return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw ConfigError.of(
      'value',
      `${KEY}.public_url`,
      `"${text}" is not a URL; write the address callers reach the agent at, as https://host[:port][/path]`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw ConfigError.of('value', `${KEY}.public_url`, `"${text}" must be an http(s) URL`);
  if (url.username !== '' || url.password !== '')
    throw ConfigError.of('value', `${KEY}.public_url`, 'must not carry a user name or password: it is printed on the public agent card');
  if (url.search !== '' || url.hash !== '')
    throw ConfigError.of('value', `${KEY}.public_url`, `"${text}" must not carry a query or fragment; give the base URL callers post to`);
  return url.href.endsWith('/') ? url.href : `${url.href}/`;
}

function tokenEnv(value: string | undefined): string | undefined {
  const text = (value ?? '').trim();
  if (text === '') return undefined;
  if (!ENV_NAME.test(text)) {
    throw ConfigError.of(
      'value',
      `${KEY}.auth_token_env`,
      `"${text}" is not an environment variable name; name the variable that holds the token (letters, digits and _), never the token itself`,
    );
  }
  return text;
}

/** Validates the block; throws `ConfigError` naming the key to change. */
export function prepareA2aHttp(raw: RawA2aHttp): ExposeA2aHttpConfig {
  const address = (raw.address ?? '').trim() === '' ? '127.0.0.1' : (raw.address ?? '').trim();
  const authTokenEnv = tokenEnv(raw.auth_token_env);
  if (authTokenEnv === undefined && !isLoopbackHost(address)) {
    throw ConfigError.of(
      'missing',
      `${KEY}.auth_token_env`,
      `is required to listen on ${address}, which is not this machine: name the environment variable holding the bearer token callers must present, or listen on 127.0.0.1`,
    );
  }
  const workers = workerCount(raw.workers, `${KEY}.workers`);
  const questionTimeout = parseDuration(raw.question_timeout, `${KEY}.question_timeout`, '10m');
  if (questionTimeout.ms <= 0) throw ConfigError.of('value', `${KEY}.question_timeout`, `must be positive, got "${questionTimeout.text}"`);
  return { address, port: port(raw.port), publicUrl: publicUrl(raw.public_url), authTokenEnv, workers, questionTimeout };
}
