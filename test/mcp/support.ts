/** A real `fisk mcp` process for the end-to-end tests, built from `dist/`. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt as ensureBuiltFrom, MAIN, ROOT } from '../support/built.js';

export { MAIN, ROOT };
export const PID_APP = fileURLToPath(new URL('./fixtures/pid-app.mjs', import.meta.url));

/** Builds `dist/` and the bundled program when they are missing or older than the sources these tests exercise. */
export function ensureBuilt(): void {
  ensureBuiltFrom(['src/mcp', 'src/host', 'src/cli/commands/mcp.ts'], ['dist/mcp/server/index.js']);
}

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** A temporary directory holding an agent.yaml. */
export function agentDir(yaml: string): { dir: string; config: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'fisk-mcp-'));
  const config = join(dir, 'agent.yaml');
  writeFileSync(config, yaml);
  return { dir, config, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A running `fisk mcp`. */
export interface FiskMcp {
  readonly child: ChildProcess;
  readonly url: string;
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
  /** Kills the process if it is still running. */
  kill(): Promise<void>;
}

/** Starts `fisk mcp` and resolves once it printed its endpoint. */
export async function startFiskMcp(
  config: string,
  cwd: string,
  env: Record<string, string> = {},
  args: readonly string[] = [],
): Promise<FiskMcp> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN, 'mcp', '--config', config, '--port', String(port), ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout.resume();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (): void => {
      const m = /claude mcp add --transport http \S+ (\S+)/.exec(err);
      if (m?.[1] !== undefined) {
        child.stderr.off('data', onData);
        resolve(m[1]);
      }
    };
    child.stderr.on('data', onData);
    void exited.then((code) => reject(new Error(`fisk mcp exited with ${code} before serving:\n${err}`)));
  });
  return {
    child,
    url,
    stderr: () => err,
    exited,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

export { alive } from '../support/processes.js';
