/** The built CLI for end-to-end tests that drive `fisk` as a person does, from another directory. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../src/agenttest/fake-model-server.js';
import { hasTmux } from '../tui/tmux.js';
import type { TmuxPane } from '../tui/tmux.js';
import { eventually } from '../../src/agenttest/eventually.js';
import { ensureBuilt, MAIN, ROOT } from '../support/built.js';

export { ensureBuilt, MAIN, ROOT };

/** What a finished `fisk` process left behind. */
export interface FiskResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built `fisk` with `args` in `cwd`, without a terminal, and waits for it to exit. */
export async function runFisk(
  args: readonly string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
  stdin = '',
): Promise<FiskResult> {
  const child = spawn(process.execPath, [MAIN, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(stdin);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  return { code, stdout, stderr };
}

/** A `fisk` child process still running, and what it has written so far. */
export interface FiskProcess {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  readonly exited: Promise<number | null>;
}

/** Starts the built `fisk` with `args` in `cwd` under exactly `env`, without a terminal. */
export function startFisk(args: readonly string[], cwd: string, env: Record<string, string>): FiskProcess {
  const child = spawn(process.execPath, [MAIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const f: FiskProcess = { child, stdout: '', stderr: '', exited: new Promise((res) => child.once('close', (code) => res(code))) };
  child.stdout?.on('data', (d: Buffer) => (f.stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (f.stderr += d.toString()));
  return f;
}

/** Resolves once the process has written `text` to stderr; rejects if it exits first. */
export async function waitForErr(f: FiskProcess, text: string | RegExp): Promise<void> {
  await eventually(
    () => (typeof text === 'string' ? f.stderr.includes(text) : text.test(f.stderr)),
    `fisk to write ${String(text)} to stderr`,
    {
      timeoutMs: 60_000,
      intervalMs: 20,
      observed: () => f.stderr,
      stopIf: () => (f.child.exitCode !== null ? `fisk exited with ${f.child.exitCode}:\n${f.stderr}` : undefined),
    },
  );
}

/** What a tmux test of the built CLI works with: a fake model server, and a directory holding agent.yaml. */
export interface PaneAgent {
  fake: FakeModelServer;
  dir: string;
}

/**
 * Registers, for the file's tests, a fake model server and a directory whose `agent.yaml` names
 * `identity` over the fixture application; both are torn down after the tests, with the tmux server
 * `pane` runs on. Without tmux nothing is set up: those tests are skipped.
 */
export function paneAgent(identity: string, pane: TmuxPane): PaneAgent {
  const agent = {} as PaneAgent;
  beforeAll(async () => {
    if (!hasTmux) return;
    ensureBuilt();
    agent.fake = await startFakeModelServer();
    agent.dir = mkdtempSync(join(tmpdir(), `fisk-${identity}-`));
    writeFileSync(
      join(agent.dir, 'agent.yaml'),
      `identity: ${identity}\nsystem_prompt: You purge.\napplication_path: ${join(ROOT, 'test/fixtures/fisk-app.mjs')}\nllm:\n  model: claude-fake-1\n`,
    );
  }, 180_000);
  afterAll(async () => {
    if (!hasTmux) return;
    pane.stop();
    await agent.fake.close();
    rmSync(agent.dir, { recursive: true, force: true });
  });
  return agent;
}
