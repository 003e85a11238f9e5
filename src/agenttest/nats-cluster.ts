/**
 * A private JetStream cluster of real `nats-server` processes on loopback, for tests of what
 * happens when a node, or the leader of a stream, goes away. Each node keeps its store across a
 * kill and restart, so a node that comes back catches up as a real one would.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { freePort } from './nats-server.js';
import { eventually } from './eventually.js';

/** One node of a {@link NatsCluster}. */
export interface NatsClusterNode {
  /** The node's `server_name` (`n1`, `n2`, ...), as JetStream reports a leader. */
  readonly name: string;
  /** `nats://127.0.0.1:<port>` of this node alone. */
  readonly url: string;
  readonly port: number;
  /** Whether the process is running now. */
  readonly running: boolean;
  /** Kills the node with SIGKILL, keeping its store, to simulate a crash. */
  kill(): Promise<void>;
  /** Starts the node again on the same ports and store after `kill`, and waits until it is healthy. */
  restart(): Promise<void>;
}

/** A JetStream cluster started for one test file and stopped after it. */
export interface NatsCluster {
  readonly nodes: readonly NatsClusterNode[];
  /** Every node's client URL, comma-separated, as a NATS context's `url` takes them. */
  readonly url: string;
  /** The node whose `server_name` is `name`; throws for an unknown name. */
  node(name: string): NatsClusterNode;
  /**
   * The node leading `stream` now, asked of a running node; waits (up to 10 s) while the stream
   * has no leader, as after its leader was killed.
   */
  streamLeader(stream: string): Promise<NatsClusterNode>;
  /** Stops every node and removes every store directory. */
  stop(): Promise<void>;
}

export interface NatsClusterOptions {
  /** How many nodes (default 3). */
  readonly size?: number;
  /** The binary to run; defaults to `nats-server` on PATH. */
  readonly binary?: string;
  /** How long each node may take to report healthy, in ms (default 20 s). */
  readonly readyTimeoutMs?: number;
}

/** Whether the node's monitoring endpoint says it is healthy (JetStream current included). */
function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get({ host: '127.0.0.1', port, path: '/healthz', timeout: 1_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => {
      req.destroy();
      resolve(false);
    });
  });
}

const exited = (proc: ChildProcess): Promise<void> =>
  proc.exitCode !== null || proc.signalCode !== null ? Promise.resolve() : new Promise((resolve) => proc.once('exit', () => resolve()));

interface Ports {
  readonly client: number;
  readonly route: number;
  readonly monitor: number;
}

/**
 * Starts a JetStream cluster of `size` nodes on free loopback ports, each with its own store, and
 * resolves once every node reports healthy (a JetStream meta leader elected). Streams and buckets
 * made with `num_replicas: 3` are spread over all of them.
 */
export async function startNatsCluster(options: NatsClusterOptions = {}): Promise<NatsCluster> {
  const size = options.size ?? 3;
  const binary = options.binary ?? 'nats-server';
  const readyTimeout = options.readyTimeoutMs ?? 20_000;
  if (!Number.isInteger(size) || size < 1) throw new Error(`a cluster needs at least one node, not ${size}`);
  const root = mkdtempSync(join(tmpdir(), 'fisk-nats-cluster-'));
  const ports: Ports[] = [];
  for (let i = 0; i < size; i++) ports.push({ client: await freePort(), route: await freePort(), monitor: await freePort() });
  const routes = ports.map((p) => `nats-route://127.0.0.1:${p.route}`);

  const nodes = ports.map((port, i) => {
    const name = `n${i + 1}`;
    const dir = join(root, name);
    mkdirSync(join(dir, 'js'), { recursive: true });
    const conf = join(dir, 'nats-server.conf');
    writeFileSync(
      conf,
      [
        `server_name: ${name}`,
        `listen: 127.0.0.1:${port.client}`,
        `http: 127.0.0.1:${port.monitor}`,
        `jetstream { store_dir: ${JSON.stringify(join(dir, 'js'))} }`,
        `cluster { name: fisk-test, listen: 127.0.0.1:${port.route}, routes: [${routes.filter((_, j) => j !== i).join(', ')}] }`,
        '',
      ].join('\n'),
    );
    let child: ChildProcess | undefined;
    let stderr = '';

    const launch = async (): Promise<void> => {
      stderr = '';
      const proc = spawn(binary, ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
      proc.stderr?.on('data', (d: Buffer) => {
        if (stderr.length < 16_384) stderr += d.toString();
      });
      await new Promise<void>((resolve, reject) => {
        proc.once('spawn', resolve);
        proc.once('error', (err) => reject(new Error(`cannot start ${binary}: ${err.message}; install nats-server`)));
      });
      child = proc;
    };

    const ready = async (): Promise<void> => {
      const deadline = Date.now() + readyTimeout;
      for (;;) {
        const proc = child;
        if (proc === undefined) throw new Error(`node ${name} is not running`);
        if (proc.exitCode !== null) throw new Error(`node ${name}: nats-server exited with code ${proc.exitCode}\n${stderr}`);
        if (await healthy(port.monitor)) return;
        if (Date.now() > deadline) throw new Error(`node ${name} did not report healthy within ${readyTimeout} ms\n${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };

    const kill = async (): Promise<void> => {
      if (child === undefined) return;
      const proc = child;
      child = undefined;
      proc.kill('SIGKILL');
      await exited(proc);
    };

    const node: NatsClusterNode & { launch(): Promise<void>; ready(): Promise<void>; stop(): Promise<void> } = {
      name,
      url: `nats://127.0.0.1:${port.client}`,
      port: port.client,
      get running() {
        return child !== undefined;
      },
      kill,
      async restart() {
        if (child !== undefined) throw new Error(`restart: node ${name} is still running; kill it first`);
        await launch();
        await ready();
      },
      launch,
      ready,
      async stop() {
        if (child === undefined) return;
        const proc = child;
        child = undefined;
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 5_000);
        await exited(proc);
        clearTimeout(timer);
      },
    };
    return node;
  });

  const stopAll = async (): Promise<void> => {
    await Promise.all(nodes.map((n) => n.stop()));
    rmSync(root, { recursive: true, force: true });
  };
  try {
    // every node starts before any is asked to be healthy: a lone node has no meta leader
    for (const node of nodes) await node.launch();
    await Promise.all(nodes.map((n) => n.ready()));
  } catch (err) {
    await stopAll();
    throw err;
  }

  return {
    nodes,
    url: nodes.map((n) => n.url).join(','),
    node(name) {
      const found = nodes.find((n) => n.name === name);
      if (found === undefined)
        throw new Error(`no node ${JSON.stringify(name)} in the cluster; nodes are ${nodes.map((n) => n.name).join(', ')}`);
      return found;
    },
    async streamLeader(stream) {
      const nc = await connect({ servers: nodes.filter((n) => n.running).map((n) => n.url), timeout: 2_000 });
      try {
        // no account check up front: while a killed node's cluster elects a new meta leader that
        // check times out, and the loop below is what waits for the answer
        const jsm = await jetstreamManager(nc, { timeout: 2_000, checkAPI: false });
        let last = 'no answer';
        return await eventually(
          async () => {
            try {
              const leader = (await jsm.streams.info(stream)).cluster?.leader;
              last = `leader ${leader ?? 'none'}`;
              return nodes.find((n) => n.name === leader && n.running);
            } catch (err) {
              last = (err as Error).message;
              return undefined;
            }
          },
          `stream ${stream} to have a running leader`,
          { timeoutMs: 10_000, intervalMs: 100, observed: () => last },
        );
      } finally {
        await nc.close();
      }
    },
    stop: stopAll,
  };
}
