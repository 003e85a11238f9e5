/** A real `fisk mcp` process for the end-to-end tests, built from `dist/`. */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The program the package installs as `fisk`: the bundle `npm run build` writes. */
export const MAIN = join(ROOT, 'dist/bin/fisk.cjs');
export const PID_APP = fileURLToPath(new URL('./fixtures/pid-app.mjs', import.meta.url));

function newestMtime(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((f) => newestMtime(join(path, f))));
}

/** Builds `dist/` and the bundled program when they are missing or older than the sources these tests exercise. */
export function ensureBuilt(): void {
  const sources = Math.max(newestMtime(join(ROOT, 'src/mcp')), newestMtime(join(ROOT, 'src/host')), newestMtime(join(ROOT, 'src/cli/commands/mcp.ts')));
  const built = existsSync(MAIN) && existsSync(join(ROOT, 'dist/mcp/server/index.js')) ? statSync(MAIN).mtimeMs : 0;
  if (built >= sources) return;
  try {
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'pipe' });
  } catch {
    // type errors elsewhere in the tree still emit JavaScript; a missing entry point is the real failure
  }
  execFileSync(process.execPath, ['scripts/bundle-cli.mjs'], { cwd: ROOT, stdio: 'pipe' });
  if (!existsSync(MAIN)) throw new Error('dist/bin/fisk.cjs is missing; run npm run build');
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
export async function startFiskMcp(config: string, cwd: string, env: Record<string, string> = {}, args: readonly string[] = []): Promise<FiskMcp> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN, 'mcp', '--config', config, '--port', String(port), ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
