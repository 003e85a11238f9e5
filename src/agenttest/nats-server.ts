import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './eventually.js';

/** A private nats-server with JetStream, started for one test file and stopped after it. */
export interface NatsServer {
  /** `nats://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** The JetStream store directory (kept across `restart`, removed by `stop`). */
  readonly storeDir: string;
  /** Stops the server gracefully and removes its store directory. */
  stop(): Promise<void>;
  /** Kills the server with SIGKILL, keeping its store, to simulate a crash. */
  kill(): Promise<void>;
  /** Starts the server again on the same port and store after `kill`. */
  restart(): Promise<void>;
}

export interface NatsServerOptions {
  /** The binary to run; defaults to `nats-server` on PATH. */
  readonly binary?: string;
  /** How long to wait for the server to accept connections, in ms (default 10 s). */
  readonly readyTimeoutMs?: number;
  /**
   * A configuration file's text (users and their permissions, say), given to the server with
   * `-c`; the address, port and store on the command line still apply.
   */
  readonly config?: string;
}

/** Finds a free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect({ host: '127.0.0.1', port });
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string, child: ChildProcess): Promise<void> {
  await eventually(check, `nats-server to accept connections (${what})`, {
    timeoutMs,
    intervalMs: 50,
    stopIf: () => (child.exitCode !== null ? `${what}: nats-server exited with code ${child.exitCode}` : undefined),
  });
}

/**
 * Starts `nats-server -js` on a free loopback port with a temporary store directory. Tests never
 * depend on a server somebody else started.
 */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServer> {
  const binary = options.binary ?? 'nats-server';
  const readyTimeout = options.readyTimeoutMs ?? 10_000;
  const storeDir = mkdtempSync(join(tmpdir(), 'fisk-nats-'));
  const port = await freePort();
  const configArgs: string[] = [];
  if (options.config !== undefined) {
    const file = join(storeDir, 'nats-server.conf');
    writeFileSync(file, options.config);
    configArgs.push('-c', file);
  }
  let child: ChildProcess | undefined;
  let stderr = '';

  const launch = async (): Promise<void> => {
    stderr = '';
    const proc = spawn(binary, [...configArgs, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    proc.stderr?.on('data', (d: Buffer) => {
      if (stderr.length < 16_384) stderr += d.toString();
    });
    const spawned = new Promise<void>((resolve, reject) => {
      proc.once('spawn', resolve);
      proc.once('error', (err) => reject(new Error(`cannot start ${binary}: ${err.message}; install nats-server`)));
    });
    await spawned;
    child = proc;
    try {
      await waitFor(() => canConnect(port), readyTimeout, 'start', proc);
    } catch (err) {
      proc.kill('SIGKILL');
      throw new Error(`${(err as Error).message}\n${stderr}`, { cause: err });
    }
  };

  const exited = (proc: ChildProcess): Promise<void> =>
    proc.exitCode !== null || proc.signalCode !== null ? Promise.resolve() : new Promise((resolve) => proc.once('exit', () => resolve()));

  await launch();

  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    async stop() {
      if (child !== undefined) {
        const proc = child;
        child = undefined;
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
        await exited(proc);
        clearTimeout(timer);
      }
      rmSync(storeDir, { recursive: true, force: true });
    },
    async kill() {
      if (child === undefined) return;
      const proc = child;
      child = undefined;
      proc.kill('SIGKILL');
      await exited(proc);
    },
    async restart() {
      if (child !== undefined) throw new Error('restart: the server is still running; kill it first');
      await launch();
    },
  };
}
