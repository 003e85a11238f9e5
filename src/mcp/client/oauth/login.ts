/**
 * `fisk mcp login NAME`: a person authorizes this agent at an MCP server's authorization server.
 * A loopback listener is opened for the redirect, the server is connected to with a person
 * standing by (so its 401 starts discovery, registration and the authorization code flow with
 * PKCE), the URL is shown and opened in a browser, and once the code comes back the tokens are
 * stored (0600) and the tool list is read to prove they work.
 */
import type { McpClientConfig } from '../../../config/types.js';
import { connectServer } from '../connect.js';
import type { ConnectOptions } from '../connect.js';
import { LoopbackRedirect } from './loopback.js';
import type { OAuthAuthorizer } from './oauth-fetch.js';
import { oauthStateFileFor } from './setup.js';
import { httpTarget } from '../http-transport.js';
import { resolveMcpClient } from '../../../config/expand.js';

/** How the login reaches the person. */
export interface LoginUi {
  /** Shows the authorization URL (always, so a login works with no browser on this machine). */
  show(url: URL, redirectUrl: string): void;
  /** Opens the URL in a browser, when there is one. */
  open?(url: URL): void;
}

/** What a login did. */
export interface LoginResult {
  /** Where the login is kept. */
  readonly file: string;
  /** How many tools the server lists with the new authorization. */
  readonly tools: number;
}

async function listenFor(port: number, remembered: string | undefined): Promise<LoopbackRedirect> {
  if (port !== 0) return LoopbackRedirect.listen(port);
  // the port of the last login keeps its client registration valid; any free port otherwise
  const previous = remembered === undefined ? 0 : Number(new URL(remembered).port);
  if (previous > 0) {
    try {
      return await LoopbackRedirect.listen(previous);
    } catch {
      // taken: a new port, and registration again
    }
  }
  return LoopbackRedirect.listen(0);
}

/** A person standing by: a loopback redirect listener and the authorizer that shows them the URL. */
export interface LoopbackAuthorizer {
  readonly authorizer: OAuthAuthorizer;
  close(): Promise<void>;
}

/**
 * Opens the loopback redirect (on `port`, else the port of `remembered`, else any free one) and
 * the authorizer that shows each authorization URL through `ui` and waits for the browser to come
 * back with the code, until `signal`. Runs given it (`ConnectOptions.authorizer`) can complete an
 * authorization, including a scope step-up in the middle of a call.
 */
export async function openLoopbackAuthorizer(
  port: number,
  remembered: string | undefined,
  ui: LoginUi,
  signal: AbortSignal,
): Promise<LoopbackAuthorizer> {
  const loopback = await listenFor(port, remembered);
  const authorizer: OAuthAuthorizer = {
    redirectUrl: loopback.redirectUrl,
    authorize: (url, state) => {
      const code = loopback.waitForCode(state, signal);
      ui.show(url, loopback.redirectUrl);
      ui.open?.(url);
      return code;
    },
  };
  return { authorizer, close: () => loopback.close() };
}

/**
 * Logs in to `entry` (the `index`th of `mcp_clients`). Any stored tokens are dropped first, so a
 * login always asks again (with the scope a server last demanded, if any). Throws what connecting
 * throws, or an error naming the key when the entry cannot be logged in to.
 */
export async function loginMcpServer(entry: McpClientConfig, index: number, opts: ConnectOptions, ui: LoginUi): Promise<LoginResult> {
  const key = `mcp_clients[${index}]`;
  if (entry.transport === 'stdio')
    throw new Error(`${key} (${entry.name}) is a stdio server; a login applies only to an http server with oauth`);
  if (entry.oauth === undefined) throw new Error(`${key} (${entry.name}) has no oauth block; add \`oauth: {}\` to it to log in with OAuth`);
  if (entry.oauth.grant !== 'authorization_code')
    throw new Error(`${key}.oauth.grant is ${entry.oauth.grant}: the client authenticates by itself and nobody needs to log in`);
  const resolved = resolveMcpClient(entry, index, opts.env);
  const file = oauthStateFileFor(entry, httpTarget(resolved.url ?? '', {}, key).url, opts.env);
  const stored = file.read();
  const cancelled = new AbortController();
  const signal = opts.signal === undefined ? cancelled.signal : AbortSignal.any([cancelled.signal, opts.signal]);
  const standing = await openLoopbackAuthorizer(entry.oauth.redirectPort, stored.redirect_uri, ui, signal);
  try {
    if (stored.tokens !== undefined) file.update(({ tokens: _old, expires_at: _due, ...rest }) => rest);
    const authorizer = standing.authorizer;
    const open = await connectServer(entry, index, { ...opts, signal, authorizer });
    const tools = open.listing.length;
    await open.close();
    return { file: file.path, tools };
  } finally {
    cancelled.abort();
    await standing.close();
  }
}
