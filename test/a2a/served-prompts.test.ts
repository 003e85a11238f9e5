/**
 * Served prompts end to end, as real processes on a private nats-server: `fisk serve` runs the
 * agent loop on prompts delegated by `fisk run --nats-context --identity` (the built CLI) against
 * the fake model server: a tool call, a question answered by the caller, a cancel that parks the
 * run, and a drain that lets the prompt in flight finish.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import { anthropicEventStream, streamIfAsked } from '../../src/agenttest/sse-wire.js';
import type { FakeModelServer } from '../../src/agenttest/fake-model-server.js';
import { startNatsServer } from '../../src/agenttest/nats-server.js';
import type { NatsServer } from '../../src/agenttest/nats-server.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { runCli } from '../../src/cli/program.js';
import { captureIo } from '../../src/cli/test-io.js';
import { MAIN, ROOT, ensureBuilt, startFisk as startFiskIn, waitForErr } from '../cli/support.js';
import type { FiskProcess } from '../cli/support.js';
import { hasTmux, tmuxPane } from '../tui/tmux.js';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'fisk-app.mjs');

/** The full-screen view is driven in a real tmux pane on its own server socket, when tmux is there. */
const SOCKET = `fisk-served-${process.pid}`;
const PANE = 'remote';
const pane = tmuxPane(SOCKET, PANE);
const tmux = pane.run;
const untilPane = pane.until;

let nats: NatsServer;
let fake: FakeModelServer;
let home: string;
let env: Record<string, string>;

type Fisk = FiskProcess;

function startFisk(args: readonly string[]): Fisk {
  return startFiskIn(args, home, env);
}

async function startWorker(): Promise<Fisk> {
  const f = startFisk([
    'serve',
    '--config',
    'worker.yaml',
    '--base-url',
    fake.url,
    '--api-key',
    'sk-test',
    '--state-dir',
    'state',
    '--workers',
    '2',
    '--verbose',
  ]);
  await waitForErr(f, 'Press Ctrl-C to stop');
  return f;
}

function client(...prompt: string[]): Fisk {
  return startFisk(['run', '--nats-context', 'lab', '--identity', 'worker', '--tool-output', ...prompt]);
}

beforeAll(async () => {
  ensureBuilt();
  nats = await startNatsServer();
  fake = await startFakeModelServer();
  home = mkdtempSync(join(tmpdir(), 'fisk-served-'));
  mkdirSync(join(home, 'xdg', 'nats', 'context'), { recursive: true });
  writeFileSync(join(home, 'xdg', 'nats', 'context', 'lab.json'), JSON.stringify({ url: nats.url }));
  env = {
    PATH: process.env['PATH'] ?? '',
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'xdg'),
    XDG_STATE_HOME: join(home, 'xdg-state'),
    NO_COLOR: '1',
  };
  writeFileSync(
    join(home, 'worker.yaml'),
    `identity: worker
application_path: ${FIXTURE}
system_prompt: You help.
nats_context: lab
llm:
  model: claude-sonnet-4-6
  no_tool_search: true
harness:
  human_in_the_loop: {enabled: true}
expose:
  agent:
    a2a:
      prompts: true
      elicitation: true
`,
  );
  writeFileSync(join(home, 'idle.yaml'), 'identity: idle\nnats_context: lab\n');
}, 180_000);
afterAll(async () => {
  await fake.close();
  await nats.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('fisk serve with expose.agent.a2a.prompts', () => {
  let worker: Fisk;
  beforeAll(async () => {
    worker = await startWorker();
  }, 60_000);
  afterAll(() => {
    if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  });

  it('lists the prompt endpoint in its banner', () => {
    expect(worker.stderr).toMatch(/Serving prompts over a2a as worker\/\S+ on NATS context lab/);
    expect(worker.stderr).toContain('Prompts:   choria.fisk-ai.prompt.worker (2 at once; questions go to the caller)');
  });

  it("runs a delegated prompt: the tool call renders at the caller, the run's question reaches it, the answer prints", async () => {
    fake.reset();
    fake.reply(
      anthropicToolUse([{ id: 'toolu_1', name: 'echo', input: { first: 'hello', upper: true } }]),
      anthropicToolUse([{ id: 'toolu_2', name: 'ask_human_confirm', input: { question: 'Shout it?' } }]),
      anthropicText('all done'),
    );
    const f = client('say', 'hello');
    expect(await f.exited).toBe(0);
    expect(f.stdout).toBe('all done\n');
    expect(f.stderr).toContain('echo');
    expect(f.stderr).toContain('--upper');
    // no terminal here: the caller answers the question itself, conservatively, and says so
    expect(f.stderr).toMatch(/nobody can answer worker's confirm question here/);
    expect(f.stderr).toMatch(/Run summary: agent=worker stop_reason=end_turn tokens=\d+\/\d+/);
    expect(JSON.stringify(fake.requests[2]?.body)).toContain('confirmed\\":false');
    await waitForErr(worker, /ended a2a prompt from fisk-ai \(session a2a-[0-9a-f]{32}\): completed/);
    // journaled under the state directory given on the command line
    expect(readdirSync(join(home, 'state')).length).toBeGreaterThan(0);
  });

  it('parks the served run on Ctrl-C at the caller: it ends suspended, resumable', async () => {
    fake.reset();
    // long enough for the cancel to land while the call runs, on a loaded machine too
    fake.reply(anthropicToolUse([{ id: 'toolu_3', name: 'sleep', input: { seconds: 4 } }]));
    const f = client('wait', 'a', 'moment');
    await waitForErr(f, 'sleep');
    f.child.kill('SIGINT');
    const code = await f.exited;
    // cancelled, as a local run the person stops with Ctrl-C is
    expect(code, f.stderr).toBe(130);
    expect(f.stderr).toContain('cancel sent to worker');
    expect(f.stderr).toContain('worker suspended the run at its next step');
    await waitForErr(worker, /ended a2a prompt from fisk-ai \(session a2a-[0-9a-f]{32}\): suspended/);
    // the sleep finished before the run parked: only one model call was made
    expect(fake.requests).toHaveLength(1);
  });

  it.skipIf(!hasTmux)(
    'shows the delegated run in the full-screen view at a terminal: the question is its modal, the answer is reprinted on exit',
    async () => {
      fake.reset();
      const streamed = (r: ReturnType<typeof anthropicText>): ReturnType<typeof streamIfAsked> => streamIfAsked(r, anthropicEventStream);
      fake.reply(
        streamed(anthropicToolUse([{ id: 'toolu_5', name: 'ask_human_confirm', input: { question: 'Shout it?' } }])),
        streamed(anthropicText('shouted, as you agreed')),
      );
      const done = join(home, 'pane-exit-status');
      const vars = Object.entries(env).map(([k, v]) => `${k}='${v}'`);
      const command = [process.execPath, MAIN, 'run', '--nats-context', 'lab', '--identity', 'worker', 'say', 'it']
        .map((a) => `'${a}'`)
        .join(' ');
      // CI=true as a CI runner sets it: a terminal is what chooses the view
      tmux(
        'new-session',
        '-d',
        '-s',
        PANE,
        '-x',
        '90',
        '-y',
        '24',
        '-c',
        home,
        `env ${vars.join(' ')} CI=true ${command} 2> pane-errors.txt; echo $? > '${done}'; sleep 600`,
      );
      try {
        const modal = await untilPane((t) => t.includes('BLOCKED'), 'the question');
        expect(modal).toContain('Shout it?');
        expect(modal).toMatch(/› 1\) No/);
        expect(modal).toContain('BLOCKED │ worker');
        // the card says what a peer does not tell: its telemetry
        expect(modal).toContain('worker (remote)');
        expect(modal).toContain('telemetry  unknown: the agent did not say');
        tmux('send-keys', '-t', PANE, '2');
        const answered = await untilPane((t) => t.includes('AWAITING INPUT'), 'the end of the turn');
        expect(answered).toContain('shouted, as you agreed');
        tmux('send-keys', '-t', PANE, 'C-d');
        // the shell creates the file before it writes the status: wait for the status itself
        await untilPane(() => existsSync(done) && readFileSync(done, 'utf8').trim() !== '', 'the process ending');
        expect(readFileSync(done, 'utf8').trim()).toBe('0');
        expect(readFileSync(join(home, 'pane-errors.txt'), 'utf8')).toMatch(
          /Run summary: agent=worker stop_reason=end_turn tokens=\d+\/\d+/,
        );
        // the answer went back to the agent: the model read the confirmation
        expect(JSON.stringify(fake.requests[1]?.body)).toContain('confirmed\\":true');
        const after = tmux('capture-pane', '-p', '-t', PANE);
        expect(after).not.toContain('AWAITING INPUT');
        expect(after).toContain('shouted, as you agreed');
      } finally {
        pane.stop();
      }
    },
    120_000,
  );

  it('drains on Ctrl-C with a prompt in flight: the run finishes and answers, then the process exits', async () => {
    fake.reset();
    fake.reply(anthropicToolUse([{ id: 'toolu_4', name: 'sleep', input: { seconds: 3 } }]), anthropicText('finished while draining'));
    const f = client('slow', 'work');
    await waitForErr(worker, /started a2a prompt from fisk-ai/);
    await waitForErr(f, 'sleep');
    worker.child.kill('SIGINT');
    const code = await f.exited;
    expect(code, f.stderr).toBe(0);
    expect(f.stdout).toBe('finished while draining\n');
    expect(await worker.exited).toBe(0);
    expect(worker.stderr).toContain('draining: finishing the calls in flight and the runs');
    expect(worker.stderr).toContain('a2a server stopped');
  }, 30_000);
});

describe('an agent that goes silent after taking a prompt', () => {
  it('leaves the caller saying how to carry the conversation on, and the command it gives goes on in the same session', async () => {
    const worker = await startWorker();
    try {
      fake.reset();
      let release = (): void => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      fake.reply({ ...anthropicText('finished while you were away'), until: held }, anthropicText('yes, it is done'));
      const caller = client('the', 'long', 'job');
      await waitForErr(worker, /started a2a prompt from fisk-ai/);
      // nothing more comes from the agent: no keepalive, no answer, as when its NATS went away
      worker.child.kill('SIGSTOP');
      let code: number | null;
      try {
        code = await caller.exited;
      } finally {
        worker.child.kill('SIGCONT');
      }
      expect(code, caller.stderr).toBe(1);
      const hint =
        /worker had taken the prompt and its run goes on, or ended, there: carry the conversation on with: (fisk run --nats-context lab --identity worker --resume (\S+)) "<your next prompt>"/u.exec(
          caller.stderr,
        );
      expect(hint, caller.stderr).not.toBeNull();
      release();
      await waitForErr(worker, /ended a2a prompt from fisk-ai \(session a2a-[0-9a-f]{32}\)/);
      const next = startFisk(['run', '--nats-context', 'lab', '--identity', 'worker', '--resume', hint?.[2] ?? '', 'is', 'it', 'done?']);
      expect(await next.exited, next.stderr).toBe(0);
      expect(next.stdout).toBe('yes, it is done\n');
      // the follow-up went on in the session the lost answer ended: the model saw it
      expect(JSON.stringify(fake.requests.at(-1)?.body)).toContain('finished while you were away');
    } finally {
      worker.child.kill('SIGINT');
      await worker.exited;
    }
  }, 120_000);
});

describe('fisk serve refusals', () => {
  it('refuses a configuration enabling no endpoint, and a bad --workers, naming what to change', async () => {
    const io = captureIo(env, home);
    expect(await runCli(['serve', '--config', 'idle.yaml'], io)).toBe(EXIT.config);
    expect(io.stderr()).toContain('expose.agent.a2a.prompts');
    const io2 = captureIo(env, home);
    expect(await runCli(['serve', '--config', 'worker.yaml', '--workers', '0'], io2)).toBe(EXIT.usage);
    expect(io2.stderr()).toContain('--workers "0" is not a whole number of at least 1');
    const io3 = captureIo(env, home);
    expect(await runCli(['serve', '--config', 'worker.yaml', '--base-url', ''], io3)).toBe(EXIT.usage);
    expect(io3.stderr()).toContain('--base-url is empty; give it a value');
  });
});
