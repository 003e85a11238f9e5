/**
 * `fisk serve` and the client mode of `fisk run`, as real processes on a private nats-server:
 * one `fisk serve` lends the fixture application's tools; this process imports them and runs an
 * agent on them against the fake model server; the serving process answers `$SRV` requests,
 * drains on Ctrl-C and is killed mid-call; and `fisk run --nats-context --identity` runs a prompt
 * on an agent served here by a test handler (a tool call, a question and a cancel).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAgentCard, createTransport, startPromptServer, startToolService } from '../../src/a2a/index.js';
import type { AskResult, ServiceHandle } from '../../src/a2a/index.js';
import { answerOf } from '../../src/agent/outcome.js';
import { anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import { startNatsServer } from '../../src/agenttest/nats-server.js';
import type { NatsServer } from '../../src/agenttest/nats-server.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { runCli } from '../../src/cli/program.js';
import { captureIo } from '../../src/cli/test-io.js';
import { parseConfigForMode } from '../../src/config/index.js';
import { connectNats } from '../../src/conns/index.js';
import { openRuntime, startRun } from '../../src/host/index.js';
import { importRemoteTools } from '../../src/remotetools/index.js';
import type { Tool } from '../../src/toolkit/tool.js';
import { ROOT, ensureBuilt, startFisk as startFiskIn, waitForErr } from '../cli/support.js';
import type { FiskProcess } from '../cli/support.js';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'fisk-app.mjs');
const SECRET = 'sk-ant-served-secret-0123456789';

let nats: NatsServer;
let nc: NatsConnection;
let home: string;
let env: Record<string, string>;

type Fisk = FiskProcess;

function startFisk(args: readonly string[], extraEnv: Record<string, string> = {}): Fisk {
  return startFiskIn(args, home, { ...env, ...extraEnv });
}

/** Resolves with the first tool request the serving identity receives (a plain subscriber gets a copy). */
function nextToolRequest(identity: string): Promise<void> {
  const sub = nc.subscribe(`choria.fisk-ai.tool.${identity}`, { max: 1 });
  return (async () => {
    for await (const m of sub) void m;
  })();
}

async function startServe(config = 'lender.yaml'): Promise<Fisk> {
  const f = startFisk(['serve', '--config', config, '--verbose'], { ANTHROPIC_API_KEY: SECRET });
  await waitForErr(f, 'Press Ctrl-C to stop');
  return f;
}

async function importLender(timeoutMs: number): Promise<Map<string, Tool>> {
  const transport = createTransport('nats', { connection: nc });
  const imported = await importRemoteTools(
    transport,
    [{ name: 'lender', alias: 'lend', include: { tools: [], tags: [] }, exclude: { tools: [], tags: [] } }],
    {
      localNames: [],
      mode: 'strict',
      identity: 'borrower',
      timeoutMs,
    },
  );
  return new Map((imported.sources[0]?.tools ?? []).map((t) => [t.name, t]));
}

beforeAll(async () => {
  ensureBuilt();
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  home = mkdtempSync(join(tmpdir(), 'fisk-serve-'));
  mkdirSync(join(home, 'xdg', 'nats', 'context'), { recursive: true });
  writeFileSync(join(home, 'xdg', 'nats', 'context', 'lab.json'), JSON.stringify({ url: nats.url }));
  env = { PATH: process.env['PATH'] ?? '', HOME: home, XDG_CONFIG_HOME: join(home, 'xdg'), NO_COLOR: '1' };
  writeFileSync(
    join(home, 'lender.yaml'),
    `identity: lender\napplication_path: ${FIXTURE}\nnats_context: lab\nexpose:\n  agent:\n    a2a:\n      serve_tools: true\n`,
  );
  writeFileSync(
    join(home, 'victim.yaml'),
    `identity: lender\napplication_path: ${FIXTURE}\nnats_context: lab\nexpose:\n  agent:\n    a2a:\n      serve_tools: true\n      tool_timeout: 2s\n`,
  );
  writeFileSync(
    join(home, 'borrower.yaml'),
    'identity: borrower\nsystem_prompt: You borrow tools.\nnats_context: lab\nllm:\n  model: claude-fake-1\nremote_tools:\n  - name: lender\n',
  );
  writeFileSync(join(home, 'idle.yaml'), 'identity: idle\nnats_context: lab\n');
}, 180_000);
afterAll(async () => {
  await nc.close();
  await nats.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('fisk serve', () => {
  let lender: Fisk;
  beforeAll(async () => {
    lender = await startServe();
  }, 60_000);
  afterAll(() => {
    if (lender.child.exitCode === null) lender.child.kill('SIGKILL');
  });

  it('prints the identity, context, subjects, served tools and each dropped tool with its reason', () => {
    const err = lender.stderr;
    expect(err).toMatch(/Serving \d+ tools? over a2a as lender\/\S+ on NATS context lab/);
    expect(err).toContain('Discovery: choria.fisk-ai.discovery.lender');
    expect(err).toContain('Tools:     choria.fisk-ai.tool.lender');
    const exposed = /Exposed: +(.*)/.exec(err)?.[1]?.split(', ') ?? [];
    expect(exposed).toContain('stream_ls');
    expect(exposed).toContain('echo');
    expect(exposed).not.toContain('stream_purge');
    expect(exposed).not.toContain('secret');
    expect(err).toMatch(/not serving stream_purge \(gated\)/);
    expect(err).toMatch(/not serving secret \(/);
  });

  it('answers $SRV.PING and $SRV.INFO as a micro service named after the identity', async () => {
    const ping = (await nc.request('$SRV.PING.lender', '', { timeout: 5000 })).json<{ name: string; id: string; version: string }>();
    expect(ping).toMatchObject({ name: 'lender', version: '0.0.0' });
    const info = (await nc.request(`$SRV.INFO.lender.${ping.id}`, '', { timeout: 5000 })).json<{
      name: string;
      endpoints: { subject: string; queue_group: string }[];
    }>();
    expect(info.name).toBe('lender');
    expect(info.endpoints.map((e) => e.subject).sort()).toEqual(['choria.fisk-ai.discovery.lender', 'choria.fisk-ai.tool.lender']);
    expect(info.endpoints.every((e) => e.queue_group === 'lender')).toBe(true);
  });

  it('lends its tools to an agent run in another process, against the fake model server', async () => {
    // remote_tools is imported here and handed to the host as tools of the run
    const fake = await startFakeModelServer();
    try {
      fake.reply(anthropicToolUse([{ id: 'toolu_1', name: 'echo', input: { first: 'hello', upper: true } }]), anthropicText('echoed'));
      const config = parseConfigForMode({ path: join(home, 'borrower.yaml') }, 'run');
      const conn = await connectNats('lab', { env, name: 'borrower' });
      try {
        const transport = createTransport('nats', { connection: conn.connection });
        const imported = await importRemoteTools(transport, config.remoteTools, {
          localNames: [],
          mode: 'strict',
          identity: config.identity,
          timeoutMs: 10_000,
        });
        const tools = imported.sources.flatMap((s) => s.tools);
        expect(tools.map((t) => t.name)).toContain('echo');
        const runtime = await openRuntime(config, 'run', { env, customTools: tools, providerOptions: { baseUrl: fake.url, apiKey: 'k' } });
        try {
          const handle = await startRun(runtime, { prompt: 'echo hello' }, { workDir: home });
          const outcome = await handle.outcome;
          await handle.close();
          expect(outcome.status).toBe('completed');
          expect(answerOf(outcome)).toBe('echoed');
        } finally {
          await runtime.close();
        }
      } finally {
        await conn.connection.close();
      }
      // the model read the command's result envelope, as from a local command
      const second = JSON.stringify(fake.requests[1]?.body);
      expect(second).toContain('\\"exit_code\\":0');
      expect(second).toContain('hello');
      expect(second).toContain('--upper');
      await waitForErr(lender, 'called echo for borrower: exit 0');
    } finally {
      await fake.close();
    }
  });

  it("keeps the serving process's credentials out of a lent command's environment", async () => {
    const tools = await importLender(10_000);
    const outcome = await tools.get('env')?.execute('{}', {}, new AbortController().signal);
    expect(outcome?.status).toBe('completed');
    const output = outcome?.status === 'completed' ? outcome.output : '';
    expect(output).toContain('LLMFORMAT');
    expect(output).not.toContain(SECRET);
  });

  it('drains on the first Ctrl-C: the call in flight is answered, then the process exits', async () => {
    const tools = await importLender(10_000);
    const seen = nextToolRequest('lender');
    const pending = tools.get('sleep')?.execute(JSON.stringify({ seconds: 1 }), {}, new AbortController().signal);
    await seen;
    lender.child.kill('SIGINT');
    const outcome = await pending;
    expect(outcome).toMatchObject({ status: 'completed', isError: false });
    expect(await lender.exited).toBe(0);
    expect(lender.stderr).toContain('draining: finishing the calls in flight');
    expect(lender.stderr).toContain('a2a server stopped');
    await expect(nc.request('$SRV.PING.lender', '', { timeout: 2000 })).rejects.toThrow();
  });

  it('a serving process killed mid-call is given up on at its advertised tool timeout, as a call that may have run', async () => {
    // the caller's own limit is the default model call timeout, far beyond the test's own bound:
    // only the peer's advertised 2 s (plus the margin) can end the wait in time
    const victim = await startServe('victim.yaml');
    try {
      const tools = await importLender(120_000);
      const seen = nextToolRequest('lender');
      const pending = tools.get('sleep')?.execute(JSON.stringify({ seconds: 30 }), {}, new AbortController().signal);
      await seen;
      victim.child.kill('SIGKILL');
      const outcome = await pending;
      expect(outcome).toMatchObject({ status: 'completed', isError: true });
      const said = outcome?.status === 'completed' ? outcome.output : '';
      expect(said).toMatch(
        /remote agent "lender" did not answer the call to "sleep" within 7 s \(its own limit for a call is 2 s\): the call may or may not have run/,
      );
      expect(said).not.toContain('could not run');
      await expect(nc.request('$SRV.PING.lender', '', { timeout: 2000 })).rejects.toThrow();
    } finally {
      if (victim.child.exitCode === null) victim.child.kill('SIGKILL');
    }
  }, 30_000);

  it('refuses a configuration that lends nothing and flags that belong to served runs, naming them', async () => {
    const io = captureIo(env, home);
    expect(await runCli(['serve', '--config', 'idle.yaml'], io)).toBe(EXIT.config);
    expect(io.stderr()).toContain('expose.agent.a2a.serve_tools');
    const io2 = captureIo(env, home);
    expect(await runCli(['serve', '--config', 'lender.yaml', '--workers', '2'], io2)).toBe(EXIT.usage);
    expect(io2.stderr()).toMatch(/--workers .*remove --workers/);
    const io3 = captureIo(env, home);
    expect(await runCli(['serve', '--config', 'lender.yaml', '--work-dir', 'nowhere'], io3)).toBe(EXIT.usage);
    expect(io3.stderr()).toContain('--work-dir "nowhere" is not an existing directory');
  });
});

describe('fisk run --nats-context --identity', () => {
  let service: ServiceHandle;
  let drain: () => Promise<void>;
  const seen: { parked: boolean; asked: AskResult | undefined; caller: string; followups: { conversation: string; prompt: string }[] } = {
    parked: false,
    asked: undefined,
    caller: '',
    followups: [],
  };

  beforeAll(async () => {
    const transport = createTransport('nats', { connection: nc });
    const prompts = startPromptServer({
      identity: 'helper',
      transport,
      handler: async (run) => {
        seen.caller = run.caller;
        if (run.request.protocol === 'io.choria.fisk-ai.v1.followup')
          seen.followups.push({ conversation: run.request.conversation, prompt: run.request.prompt });
        await run.emit({ type: 'tool_call', id: 'c1', name: 'lookup', input: { key: 'disk\u001b[31m' } });
        await run.emit({ type: 'tool_result', call_id: 'c1', output: 'found it', exec: { command: 'lookup disk', exit_code: 0 } });
        if (run.request.prompt === 'wait for me') {
          await new Promise<void>((res) => (run.park.aborted ? res() : run.park.addEventListener('abort', () => res(), { once: true })));
          seen.parked = true;
          return { stop_reason: 'suspended' };
        }
        seen.asked = await run.ask({ kind: 'confirm', text: 'Proceed?' });
        return { stop_reason: 'end_turn', text: `asked: ${JSON.stringify(seen.asked)}`, usage: { input_tokens: 3, output_tokens: 4 } };
      },
    });
    drain = () => prompts.drain();
    service = await startToolService(transport, {
      identity: 'helper',
      card: buildAgentCard({ name: 'helper', version: '1.0.0', tools: [] }),
      tools: [],
      extraEndpoints: [prompts.endpoint],
    });
  });
  afterAll(async () => {
    await drain();
    await service.stop();
  });

  it('renders the remote run on the line surface, answers its question and prints the answer', async () => {
    const f = startFisk(['run', '--nats-context', 'lab', '--identity', 'helper', '--tool-output', 'look', 'it', 'up']);
    expect(await f.exited).toBe(0);
    expect(f.stdout).toBe('asked: {"answered":true,"value":false}\n');
    expect(f.stderr).toContain('lookup');
    expect(f.stderr).not.toContain('\u001b');
    expect(f.stderr).toContain('found it');
    expect(f.stderr).toMatch(/nobody can answer helper's confirm question here/);
    expect(f.stderr).toContain('Run summary: agent=helper stop_reason=end_turn tokens=3/4');
    expect(seen.caller).toBe('fisk-ai');
  });

  it('sends the cancel on Ctrl-C: the remote run parks, the command exits as cancelled and says how to resume', async () => {
    const f = startFisk(['run', '--nats-context', 'lab', '--identity', 'helper', 'wait', 'for', 'me']);
    await waitForErr(f, 'lookup');
    f.child.kill('SIGINT');
    expect(await f.exited).toBe(EXIT.aborted);
    expect(seen.parked).toBe(true);
    expect(f.stderr).toContain('cancel sent to helper');
    expect(f.stderr).toContain('helper suspended the run at its next step');
    expect(f.stdout).toBe('');
    const hint = /suspended; resume with: (fisk run --nats-context lab --identity helper --resume (\S+))\n/.exec(f.stderr);
    expect(hint).not.toBeNull();
    // the printed command continues that conversation on the agent
    const conversation = hint![2]!;
    const again = startFisk(['run', '--nats-context', 'lab', '--identity', 'helper', '--resume', conversation]);
    expect(await again.exited).toBe(0);
    expect(seen.followups).toEqual([{ conversation, prompt: '' }]);
    const bad = captureIo(env, home);
    expect(await runCli(['run', '--nats-context', 'lab', '--identity', 'helper', '--resume', 'not/an id'], bad)).toBe(EXIT.usage);
    expect(bad.stderr()).toContain('is not a conversation id');
  });

  it('refuses --identity without --nats-context and flags of a local worker', async () => {
    const io = captureIo(env, home);
    expect(await runCli(['run', '--identity', 'helper', 'hi'], io)).toBe(EXIT.usage);
    expect(io.stderr()).toContain('--identity names an agent on a NATS cluster and needs --nats-context');
    const io2 = captureIo(env, home);
    expect(await runCli(['run', '--nats-context', 'lab', '--identity', 'helper', '--checkpoint', '--api-key', 'k', 'hi'], io2)).toBe(
      EXIT.usage,
    );
    expect(io2.stderr()).toContain('--checkpoint, --api-key configure a local run');
    // an exported variable is not a flag typed on the command line
    const io3 = captureIo({ ...env, HTTP_DEBUG: '1' }, home);
    expect(await runCli(['run', '--nats-context', 'lab', '--identity', 'nobody-here', 'hi'], io3)).not.toBe(EXIT.usage);
  });
});
