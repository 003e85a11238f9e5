/**
 * `fisk run` and `fisk info` with `harness.sandbox` and the real bubblewrap: what a tool may write,
 * read and reach, the introspection, the start-up check, `fisk info --json`, and a resume under a
 * weaker sandbox. The application is a fixture that tries each thing a sandbox must stop.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../agenttest/fake-model-server.js';
import { EXIT } from '../exit-codes.js';
import { runCli } from '../program.js';
import { captureIo } from '../test-io.js';

const APP = resolve(import.meta.dirname, '../../../test/fixtures/sandbox-app.mjs');
const FIXTURE = resolve(import.meta.dirname, '../../../test/fixtures/fisk-app.mjs');

let dir: string;
let home: string;
let outside: string;
let fake: FakeModelServer;
let server: Server;
let port = 0;

beforeAll(async () => {
  server = createServer((s) => s.end('hello from the host\n'));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const a = server.address();
  port = typeof a === 'object' && a !== null ? a.port : 0;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fisk-sandbox-run-'));
  home = join(dir, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'PRIVATE-KEY-MATERIAL\n');
  // a sandboxed child has a /tmp of its own, so the place it must not write is elsewhere
  outside = mkdtempSync('/var/tmp/fisk-sandbox-run-outside-');
  fake = await startFakeModelServer();
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

function agent(sandbox: string, app = APP, budget = ''): string {
  const path = join(dir, 'agent.yaml');
  writeFileSync(
    path,
    `identity: boxed\napplication_path: ${app}\nsystem_prompt: You try things.\nllm:\n  model: claude-fake-1\n${budget}${sandbox}`,
  );
  return path;
}

const ON = 'harness:\n  sandbox:\n    enabled: true\n';

async function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo({ PATH: process.env['PATH'], HOME: home, ...env }, dir);
  const code = await runCli(args, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

const run = (config: string, ...args: string[]) =>
  cli(['run', '--config', config, '--base-url', fake.url, '--api-key', 'sk-test', ...args]);

/** The tool results the run sent back in request `index`, as text. */
function results(index: number): string {
  return JSON.stringify((fake.requests[index]?.body as { messages: unknown[] }).messages.at(-1));
}

describe('a sandboxed run', () => {
  it('writes in the work directory; a write outside it fails inside and leaves nothing behind', async () => {
    fake.reply(
      anthropicToolUse([
        { id: 't1', name: 'write', input: { path: join(outside, 'escaped.txt') } },
        { id: 't2', name: 'write', input: { path: join(dir, 'kept.txt') } },
      ]),
      anthropicText('done'),
    );
    const r = await run(agent(ON), 'write');
    expect(r.code, r.err).toBe(EXIT.ok);
    expect(results(1)).toMatch(/failed EROFS/);
    expect(results(1)).toMatch(/wrote .*kept\.txt/);
    expect(existsSync(join(outside, 'escaped.txt'))).toBe(false);
    expect(existsSync(join(dir, 'kept.txt'))).toBe(true);
  });

  it('reads nothing of ~/.ssh', async () => {
    fake.reply(anthropicToolUse([{ id: 't1', name: 'read', input: { path: join(home, '.ssh', 'id_rsa') } }]), anthropicText('done'));
    const r = await run(agent(ON), 'read');
    expect(r.code, r.err).toBe(EXIT.ok);
    expect(results(1)).toMatch(/failed ENOENT/);
    expect(results(1)).not.toContain('PRIVATE-KEY-MATERIAL');
  });

  it('reaches no loopback port without network, and does for a tool the operator granted network', async () => {
    fake.reply(anthropicToolUse([{ id: 't1', name: 'connect', input: { port: String(port) } }]), anthropicText('done'));
    expect((await run(agent(ON), 'connect')).code).toBe(EXIT.ok);
    expect(results(1)).toMatch(/refused E[A-Z]+/);
    expect(results(1)).not.toContain('hello from the host');

    fake.reset();
    fake.reply(anthropicToolUse([{ id: 't1', name: 'connect', input: { port: String(port) } }]), anthropicText('done'));
    const granted = await run(agent(`${ON}    tools:\n      - {tools: ["^connect$"], network: true}\n`), 'connect');
    expect(granted.code, granted.err).toBe(EXIT.ok);
    expect(results(1)).toContain('got hello from the host');
  });

  it('still runs the ordinary fixture application', async () => {
    fake.reply(anthropicToolUse([{ id: 't1', name: 'echo', input: { first: 'boxed' } }]), anthropicText('done'));
    const r = await run(agent(ON, FIXTURE), 'echo');
    expect(r.code, r.err).toBe(EXIT.ok);
    expect(results(1)).toContain('boxed');
  });

  it('refuses a resume under a weaker sandbox, naming it, unless forced', async () => {
    const state = ['--state-dir', join(dir, 'runs')];
    fake.reply(anthropicToolUse([{ id: 't1', name: 'read', input: { path: join(dir, 'agent.yaml') } }]));
    const once = '  budget: {max_iterations: 1}\n';
    const first = await run(agent(ON, APP, once), '--checkpoint', '--name', 'boxed-run', ...state, 'go');
    expect(first.code, first.err).toBe(EXIT.maxIterations);
    const weaker = agent(`${ON}    network: true\n`, APP, '  budget: {max_iterations: 3}\n');
    const refused = await run(weaker, '--resume', 'boxed-run', ...state);
    expect(refused.code).not.toBe(EXIT.ok);
    expect(refused.err).toContain('sandbox: weaker (connect gains the network; read gains the network; write gains the network)');
    fake.reply(anthropicText('resumed'));
    const forced = await run(weaker, '--resume', 'boxed-run', '--force', ...state);
    expect(forced.code, forced.err).toBe(EXIT.ok);
    expect(forced.out).toBe('resumed\n');
  });
});

describe('a sandboxed introspection', () => {
  it('cannot write, so an application that must write to answer fails to load', async () => {
    const probe = join(outside, 'introspected.txt');
    const r = await cli(['info', '--config', agent(ON)], { SANDBOX_APP_INTROSPECT_WRITE: probe });
    expect(r.code, r.out).not.toBe(EXIT.ok);
    expect(r.err).toMatch(/it exited with status 3: error: cannot write .*introspected\.txt: EROFS/);
    expect(existsSync(probe)).toBe(false);
  });
});

describe('the sandbox start-up check', () => {
  it('stops before anything runs when bwrap is not on PATH, naming the key and how to install it', async () => {
    const probe = join(outside, 'ran-unsandboxed.txt');
    const r = await cli(['info', '--config', agent(ON)], { PATH: join(dir, 'no-bin'), SANDBOX_APP_INTROSPECT_WRITE: probe });
    expect(r.code).not.toBe(EXIT.ok);
    expect(r.err).toMatch(
      /harness\.sandbox\.enabled: bubblewrap \(bwrap\) is not on PATH; install bubblewrap \(Debian and Ubuntu: apt-get install bubblewrap/,
    );
    expect(existsSync(probe)).toBe(false);
  });
});

describe('fisk info --json', () => {
  it("shows each tool's sandbox and the runtime's", async () => {
    const r = await cli(
      ['info', '--json', '--config', agent(`${ON}    writable: [out]\n    tools:\n      - {tools: ["^connect$"], network: true}\n`)],
      {},
    );
    mkdirSync(join(dir, 'out'), { recursive: true });
    expect(r.code, r.err).toBe(EXIT.ok);
    const report = JSON.parse(r.out) as { tools: { name: string; sandbox: unknown }[]; sandbox: { enabled: boolean; hide: string[] } };
    const byName = Object.fromEntries(report.tools.map((t) => [t.name, t.sandbox]));
    expect(byName['connect']).toEqual({ enabled: true, network: true, writable: [join(dir, 'out')], grants: [0] });
    expect(byName['write']).toEqual({ enabled: true, network: false, writable: [join(dir, 'out')], grants: [] });
    expect(report.sandbox.enabled).toBe(true);
    expect(report.sandbox.hide).toContain(join(home, '.ssh'));
    const text = await cli(['info', '--config', agent(ON)]);
    expect(text.out).toMatch(/write\s+application\s+no\s+no\s+on \(no network; writes <work directory>\)/);
    const off = await cli(['info', '--json', '--config', agent('')]);
    expect((JSON.parse(off.out) as { tools: { sandbox: unknown }[]; sandbox: unknown }).tools[0]?.sandbox).toEqual({ enabled: false });
  });
});
