/**
 * Two real `fisk` processes on a private nats-server, as a person runs them: `fisk serve` lends the
 * fixture application's commands, and `fisk run` (the built CLI, its output piped) imports them
 * through `remote_tools` and runs a prompt on them against the fake model server. What is checked
 * is what the user sees: standard output, standard error and the exit status of each process.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { A2aClient, createTransport } from '../../src/a2a/index.js';
import { anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../src/agenttest/fake-model-server.js';
import { startNatsServer } from '../../src/agenttest/nats-server.js';
import type { NatsServer } from '../../src/agenttest/nats-server.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { MAIN, ROOT, ensureBuilt } from '../cli/support.js';
import { eventually } from '../../src/agenttest/eventually.js';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'fisk-app.mjs');

let nats: NatsServer;
let nc: NatsConnection;
let fake: FakeModelServer;
let home: string;
let env: Record<string, string>;
let lender: { child: ChildProcess; stderr: string; exited: Promise<number | null> };

interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built `fisk` in `home` with every stream piped, and waits for it to exit. */
function fisk(args: readonly string[]): Promise<Finished> {
  const child = spawn(process.execPath, [MAIN, ...args], { cwd: home, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end();
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** The run's model requests as text, for what the model was shown. */
const sentToModel = (i: number): string => JSON.stringify(fake.requests[i]?.body ?? null);

const run = (config: string, ...prompt: string[]): Promise<Finished> =>
  fisk(['run', '--config', config, '--base-url', fake.url, '--api-key', 'k', ...prompt]);

beforeAll(async () => {
  ensureBuilt();
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  fake = await startFakeModelServer();
  home = mkdtempSync(join(tmpdir(), 'fisk-pair-'));
  mkdirSync(join(home, 'xdg', 'nats', 'context'), { recursive: true });
  writeFileSync(join(home, 'xdg', 'nats', 'context', 'lab.json'), JSON.stringify({ url: nats.url }));
  env = {
    PATH: process.env['PATH'] ?? '',
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'xdg'),
    XDG_STATE_HOME: join(home, 'state'),
    NO_COLOR: '1',
  };
  writeFileSync(
    join(home, 'lender.yaml'),
    `identity: lender\napplication_path: ${FIXTURE}\nnats_context: lab\nexpose:\n  agent:\n    a2a:\n      serve_tools: true\n`,
  );
  writeFileSync(
    join(home, 'borrower.yaml'),
    'identity: borrower\nsystem_prompt: You borrow tools.\nnats_context: lab\nllm:\n  model: claude-fake-1\nremote_tools:\n  - name: lender\n    alias: lend\n',
  );
  writeFileSync(
    join(home, 'stranded.yaml'),
    'identity: stranded\nsystem_prompt: You are stranded.\nnats_context: lab\nllm:\n  model: claude-fake-1\nremote_tools:\n  - name: nobody-serves-this\n',
  );

  // no model key anywhere in its environment: lending tools calls no model
  const child = spawn(process.execPath, [MAIN, 'serve', '--config', 'lender.yaml', '--verbose'], {
    cwd: home,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  lender = { child, stderr: '', exited: new Promise((res) => child.once('close', (code) => res(code))) };
  child.stderr.on('data', (d: Buffer) => (lender.stderr += d.toString()));
  await eventually(() => lender.stderr.includes('Press Ctrl-C to stop'), 'fisk serve to start', {
    timeoutMs: 60_000,
    intervalMs: 20,
    observed: () => lender.stderr,
    stopIf: () => (child.exitCode !== null ? `fisk serve exited with ${child.exitCode}:\n${lender.stderr}` : undefined),
  });
}, 180_000);

afterAll(async () => {
  if (lender.child.exitCode === null) lender.child.kill('SIGKILL');
  await lender.exited;
  await nc.close();
  await nats.stop();
  await fake.close();
  rmSync(home, { recursive: true, force: true });
});

beforeEach(() => fake.reset());

describe('fisk run importing the tools fisk serve lends', () => {
  it('calls a lent command through the serving process and prints the answer', async () => {
    fake.reply(
      anthropicToolUse([{ id: 'toolu_1', name: 'echo', input: { first: 'hello', upper: true } }]),
      anthropicText('The lender echoed hello.'),
    );
    const r = await run('borrower.yaml', 'shout', 'hello');
    expect(r.code).toBe(EXIT.ok);
    expect(r.stdout).toBe('The lender echoed hello.\n');
    // the call line names the tool as the model sees it; the summary counts the call as remote
    expect(r.stderr).toContain('-> echo (on lender) first=hello upper=true');
    expect(r.stderr).toContain('remote_tool_calls=1');
    // the model was offered the lent commands, not the gated or denied ones
    const offered = ((fake.requests[0]?.body as { tools?: Array<{ name: string }> }).tools ?? []).map((t) => t.name);
    expect(offered).toEqual(expect.arrayContaining(['echo', 'stream_ls', 'sleep']));
    expect(offered).not.toContain('stream_purge');
    expect(offered).not.toContain('secret');
    // it read the command's result in the envelope a local command gives, run by the other process
    expect(sentToModel(1)).toContain('\\"exit_code\\":0');
    expect(sentToModel(1)).toContain('echo --upper -- hello');
    expect(lender.stderr).toMatch(/called echo for borrower: exit 0/);
  }, 60_000);

  it('answers a call to a tool the lender keeps behind approval as unavailable, and the run goes on', async () => {
    fake.reply(
      anthropicToolUse([{ id: 'toolu_1', name: 'stream_purge', input: { stream: 'orders' } }]),
      anthropicText('I could not purge it.'),
    );
    const r = await run('borrower.yaml', 'purge', 'orders');
    expect(r.code).toBe(EXIT.ok);
    expect(r.stdout).toBe('I could not purge it.\n');
    expect(r.stderr).toContain(
      'warning: the model called "stream_purge", which is not one of this run\'s tools; it was told so and nothing ran',
    );
    expect(r.stderr).toContain('<- refused: tool "stream_purge" is not available');
    expect(sentToModel(1)).toContain('is not available');
    expect(lender.stderr).not.toMatch(/called stream_purge/);
  }, 60_000);

  it('refuses the gated and the denied command to a peer that calls them by name, in-band', async () => {
    expect([lender.child.exitCode, lender.stderr]).toEqual([null, lender.stderr]);
    const client = new A2aClient(createTransport('nats', { connection: nc }), 'prober');
    for (const name of ['stream_purge', 'secret']) {
      const reply = await client.callTool('lender', name, name === 'stream_purge' ? { stream: 'orders' } : {});
      expect([name, reply.is_error, reply.output]).toEqual([
        name,
        true,
        `tool "${name}" is not available; call only the tools in your tool list`,
      ]);
    }
    expect(lender.stderr).not.toMatch(/called (stream_purge|secret) for prober: exit/);
  });

  it('refuses to start a run whose remote host does not answer, naming it, with nothing on standard output', async () => {
    const r = await run('stranded.yaml', 'hello');
    expect(r.code).toBe(EXIT.error);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^fisk: remote agent "nobody-serves-this" could not be discovered: remote agent unavailable: .*remove it from remote_tools\n$/,
    );
    expect(fake.requests).toHaveLength(0);
  }, 60_000);
});
