/**
 * Binding a listener `fisk serve` opens beside its channels (the health probe, the A2A HTTP channel):
 * a port that cannot be had is refused naming the configuration key to change.
 */
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServeError } from './errors.js';

/** The listeners, by the key under `expose.agent` that configures each. */
export type ListenerKey = 'health' | 'a2a_http';

/** Listens on `address:port` and resolves with the bound origin (`http://host:port`), or rejects naming `expose.agent.<key>`. */
export async function listenOn(http: HttpServer, address: string, port: number, key: ListenerKey): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException): void => {
      const why =
        err.code === 'EADDRINUSE'
          ? 'the port is taken'
          : err.code === 'EADDRNOTAVAIL'
            ? 'the address is not on this machine'
            : (err.code ?? err.message);
      reject(
        new ServeError(
          key,
          `expose.agent.${key}: cannot listen on ${address}:${port} (${why}); set expose.agent.${key}.port (and address) to a free one`,
          { cause: err },
        ),
      );
    };
    http.once('error', failed);
    http.listen(port, address, () => {
      http.off('error', failed);
      resolve();
    });
  });
  const bound = http.address() as AddressInfo;
  return `http://${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`;
}
