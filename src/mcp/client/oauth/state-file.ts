/**
 * Where an MCP server's OAuth login is kept between processes: one JSON file per server and URL
 * under the state directory, readable by its owner only (0600, in a 0700 directory), written
 * whole through a rename so a reader never sees half a file. It holds the tokens and the client
 * registration; the PKCE verifier never leaves the process that made it.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** What one server's file holds. Field names are the file format: keep them stable. */
export interface OAuthState {
  /** The MCP endpoint the login was for; a file for another URL is ignored. */
  readonly server_url: string;
  readonly client_information?: OAuthClientInformationMixed;
  readonly tokens?: OAuthTokens;
  /** Milliseconds since the epoch when the access token is refreshed, ahead of the `expires_in` it came with. */
  readonly expires_at?: number;
  /** The loopback redirect URI the registration was made with, reused by the next login. */
  readonly redirect_uri?: string;
  /** A scope the server asked for (step-up) that the stored token lacks; the next login requests it. */
  readonly needed_scope?: string;
}

/** `$XDG_STATE_HOME/fisk-ai/mcp-oauth`, else `~/.local/state/fisk-ai/mcp-oauth`. */
export function oauthStateDirectory(env: Readonly<Record<string, string | undefined>>): string {
  const xdg = env['XDG_STATE_HOME'];
  const base = xdg !== undefined && xdg !== '' ? xdg : join(env['HOME'] ?? homedir(), '.local', 'state');
  return join(base, 'fisk-ai', 'mcp-oauth');
}

/** The file of server `name` at `serverUrl`: the name for people, a digest of the URL so two endpoints never share a login. */
export function oauthStatePath(directory: string, name: string, serverUrl: string): string {
  const digest = createHash('sha256').update(serverUrl).digest('hex').slice(0, 12);
  return join(directory, `${name}-${digest}.json`);
}

/** One server's stored login. */
export class OAuthStateFile {
  readonly #path: string;
  readonly #serverUrl: string;

  constructor(path: string, serverUrl: string) {
    this.#path = path;
    this.#serverUrl = serverUrl;
  }

  get path(): string {
    return this.#path;
  }

  /** The stored state, or a fresh one when there is no file, it does not parse, or it is for another URL. */
  read(): OAuthState {
    let text: string;
    try {
      text = readFileSync(this.#path, 'utf8');
    } catch {
      return { server_url: this.#serverUrl };
    }
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null && 'server_url' in parsed && parsed.server_url === this.#serverUrl)
        return parsed as OAuthState;
    } catch {
      // a damaged file counts as no login: the next login replaces it
    }
    return { server_url: this.#serverUrl };
  }

  /** Applies `change` to the stored state and writes the result, owner-only. */
  update(change: (state: OAuthState) => OAuthState): OAuthState {
    const next = { ...change(this.read()), server_url: this.#serverUrl };
    const dir = join(this.#path, '..');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const temp = `${this.#path}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    // the mode given to writeFileSync is filtered by the umask; the file must be 0600 whatever it is
    chmodSync(temp, 0o600);
    renameSync(temp, this.#path);
    return next;
  }

  /** Forgets the login entirely. */
  remove(): void {
    rmSync(this.#path, { force: true });
  }
}
