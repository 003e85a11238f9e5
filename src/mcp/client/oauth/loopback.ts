/**
 * The loopback redirect of a login (RFC 8252): a one-page HTTP listener on 127.0.0.1 that the
 * authorization server sends the browser back to with the authorization code. Only a request
 * carrying the `state` this login sent is accepted; anything else is answered and ignored, so a
 * stray or forged request cannot end the login.
 */
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const CALLBACK_PATH = '/callback';

function page(res: ServerResponse, status: number, text: string): void {
  const body = `<!doctype html><meta charset="utf-8"><title>fisk-ai</title><p>${text}</p>`;
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body);
}

/** A listening redirect endpoint; `close` it when the login is over. */
export class LoopbackRedirect {
  readonly #server: Server;
  readonly #port: number;
  #expected: string | undefined;
  #waiting: { resolve(code: string): void; reject(err: Error): void } | undefined;

  private constructor(server: Server, port: number) {
    this.#server = server;
    this.#port = port;
    server.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH) return page(res, 404, 'Not a fisk-ai login address.');
      const waiting = this.#waiting;
      if (waiting === undefined || this.#expected === undefined || url.searchParams.get('state') !== this.#expected) {
        return page(res, 400, 'This is not the login fisk-ai is waiting for. Start it again from the terminal.');
      }
      const error = url.searchParams.get('error');
      const code = url.searchParams.get('code');
      this.#waiting = undefined;
      if (error !== null) {
        const said = url.searchParams.get('error_description');
        page(res, 400, 'The authorization server refused the login. The terminal says why.');
        waiting.reject(new Error(`the authorization server refused the login: ${error}${said === null ? '' : ` (${said})`}`));
        return;
      }
      if (code === null || code === '') {
        page(res, 400, 'The authorization server sent no code. Start the login again.');
        waiting.reject(new Error('the authorization server redirected back without a code'));
        return;
      }
      page(res, 200, 'fisk-ai is logged in. You can close this tab and go back to the terminal.');
      waiting.resolve(code);
    });
  }

  /** Listens on 127.0.0.1:`port` (0 for any free port). Rejects when the port is taken. */
  static async listen(port: number): Promise<LoopbackRedirect> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new LoopbackRedirect(server, (server.address() as AddressInfo).port);
  }

  /** Where the authorization server sends the browser back to. */
  get redirectUrl(): string {
    return `http://127.0.0.1:${this.#port}${CALLBACK_PATH}`;
  }

  get port(): number {
    return this.#port;
  }

  /** Resolves with the code of the redirect that echoes `state`; rejects on `signal` or the server's refusal. */
  waitForCode(state: string | undefined, signal: AbortSignal): Promise<string> {
    this.#expected = state;
    return new Promise<string>((resolve, reject) => {
      const onAbort = (): void => {
        this.#waiting = undefined;
        reject(signal.reason instanceof Error ? signal.reason : new Error('the login was cancelled'));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting = {
        resolve: (code) => {
          signal.removeEventListener('abort', onAbort);
          resolve(code);
        },
        reject: (err) => {
          signal.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
    });
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
