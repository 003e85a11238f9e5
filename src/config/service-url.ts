import { ConfigError } from './errors.js';
import { isLoopbackUrl } from '../util/loopback.js';

/**
 * A service URL must be https unless it points at this machine, and never carries credentials in
 * userinfo (they would be printed and logged). Shared by every configured endpoint.
 */
export function checkServiceUrl(value: string, key: string, opts: { allowHttpWhen?: boolean } = {}): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw ConfigError.of('value', key, `"${value}" is not a URL; write it as https://host[:port][/path]`);
  }
  if (url.username !== '' || url.password !== '') {
    throw ConfigError.of('value', key, 'must not carry a user name or password; put credentials in an environment variable');
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:') {
    if (isLoopbackUrl(url) || opts.allowHttpWhen === true) return url;
    throw ConfigError.of(
      'value',
      key,
      `"${value}" uses http to a host that is not this machine; use https, or a loopback address (127.0.0.1, ::1, localhost)`,
    );
  }
  throw ConfigError.of('value', key, `"${value}" must be an http(s) URL`);
}
