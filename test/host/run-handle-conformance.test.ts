/**
 * One table of cases run against every implementation of `RunHandle`: the handle `startRun`
 * returns (what `fisk run`, `fisk web` and the full-screen view consume), the hosted handle over the
 * in-process a2a transport (the wire tested in process), and the remote handle over a real NATS
 * a2a exchange with a served agent (`fisk run --nats-context --identity`). Every case renders the
 * events through the line surface `fisk run` prints with and asserts the same lines from each,
 * and the same outcome.
 */
import { Writable } from 'node:stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAgentCard, createTransport, startToolService } from '../../src/a2a/index.js';
import type { AgentEvent } from '../../src/agent/events.js';
import type { RunOutcome } from '../../src/agent/outcome.js';
import { anthropicError, anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import type { FakeReply, FakeReplyStep } from '../../src/agenttest/fake-model-server.js';
import { anthropicEventStream, streamIfAsked } from '../../src/agenttest/sse-wire.js';
import { startFakeModelServer } from '../../src/agenttest/fake-model-server.js';
import type { FakeModelServer } from '../../src/agenttest/fake-model-server.js';
import { HeldTool } from '../../src/agenttest/held-tool.js';
import { startNatsServer } from '../../src/agenttest/nats-server.js';
import type { NatsServer } from '../../src/agenttest/nats-server.js';
import { LineSurface } from '../../src/render/line-surface.js';
import { HostError, startRun } from '../../src/host/index.js';
import type { RunHandle, JournaledRuntime } from '../../src/host/index.js';
import { serveRunsInProcess } from '../../src/serve/hosted-run.js';
import type { InprocRunHost } from '../../src/serve/hosted-run.js';
import { promptChannel } from '../../src/serve/prompt-channel.js';
import { startHostedRun, startRemoteRun } from '../../src/serve/remote-handle.js';
import { startServer } from '../../src/serve/server.js';
import type { Server } from '../../src/serve/server.js';
import type { Channel } from '../../src/serve/channel.js';
import { watchingCancels, workerRuntime } from '../../src/serve/test-runtime.js';

/** One implementation: how it starts a run whose questions come back through `answer(id)`. */
interface Implementation {
  readonly name: 'local' | 'hosted' | 'remote';
  start(prompt: string, stream: boolean): Promise<RunHandle>;
  /**
   * Resolves once the run doing the work has been told to suspend. A local handle is told as
   * `suspend` returns; a hosted or remote one sends a message that reaches the serving run later.
   */
  suspendHeard(): Promise<void>;
}

/** What a case does while its run goes on, given the tools it may hold. */
type Drive = (handle: RunHandle, event: AgentEvent, tools: { readonly hold: HeldTool; readonly suspendHeard: () => Promise<void> }) => void;

interface Case {
  readonly name: string;
  readonly replies: readonly FakeReplyStep[];
  readonly prompt: string;
  /** Ask for the model's text as `text_fragment` events, as `fisk run` does at a terminal. */
  readonly stream?: boolean;
  /** The text the fragments join to. */
  readonly fragments?: string;
  readonly drive?: Drive;
  /** A further prompt once the first turn ended, with its own replies. */
  readonly followUp?: { readonly prompt: string; readonly replies: readonly FakeReply[] };
  /** The lines every implementation renders on stderr, in order (the answer goes to stdout). */
  readonly lines: readonly string[];
  /** The outcome every implementation ends with, as a partial match. */
  readonly outcome: Readonly<Record<string, unknown>>;
  /** Calls of the gated tool the run made. */
  readonly rebooted: number;
  /** Text the last model request carried (what a follow-up continues). */
  readonly sent?: string;
}

/** Answers a question once, as a person at the full-screen view or a web page does. */
const answering =
  (value: 'once' | 'decline'): Drive =>
  (handle, event) => {
    if (event.type === 'question' && event.id !== undefined) handle.answer(event.id, value);
  };

/**
 * Once the held call is running, stops the run one way. A suspend lets the step finish, so the
 * call is let go once the serving run has heard the suspend (let go sooner, the step could end
 * before the message arrives and the run would rightly go on); a cancel must end the call itself
 * (the run's signal lets it go), so nothing else does, however long the stop takes to reach the run.
 */
const stopping =
  (how: 'suspend' | 'cancel'): Drive =>
  (handle, event, tools) => {
    if (event.type !== 'tool_call' || event.name !== 'hold') return;
    void tools.hold.until(1).then(async () => {
      if (how === 'cancel') return handle.cancel();
      const heard = tools.suspendHeard();
      handle.suspend();
      await heard;
      tools.hold.release();
    });
  };

const DECLINED = 'the operator declined this call; the decision is final, so do not retry it or reach the same effect another way';

const CASES: readonly Case[] = [
  {
    name: 'events: a tool call, its result and the answer',
    replies: [anthropicToolUse([{ id: 't1', name: 'lookup', input: {} }], { text: 'looking' }), anthropicText('the disk is fine')],
    prompt: 'check the disk',
    lines: ['-> lookup', '<- {"lookup":"ok"}'],
    outcome: {
      status: 'completed',
      answer: 'the disk is fine',
      counters: expect.objectContaining({ llmCalls: 2, toolCalls: 1 }) as unknown,
    },
    rebooted: 0,
  },
  {
    name: 'questions: an approval answered once runs the gated call',
    replies: [anthropicToolUse([{ id: 'r1', name: 'reboot', input: {} }]), anthropicText('web1 is back')],
    prompt: 'reboot web1',
    drive: answering('once'),
    lines: ['-> reboot', 'approval: reboot approved once (gated by ai:confirm)', '<- web1 rebooted'],
    outcome: { status: 'completed', answer: 'web1 is back' },
    rebooted: 1,
  },
  {
    name: 'questions: an approval declined leaves the call unrun and tells the model',
    replies: [anthropicToolUse([{ id: 'r1', name: 'reboot', input: {} }]), anthropicText('left web1 alone')],
    prompt: 'reboot web1',
    drive: answering('decline'),
    lines: ['-> reboot', 'approval: reboot declined (gated by ai:confirm)', `<- refused: ${DECLINED}`],
    outcome: { status: 'completed', answer: 'left web1 alone' },
    rebooted: 0,
    sent: DECLINED,
  },
  {
    name: 'suspend: the call in flight finishes and the run stops at its next boundary',
    replies: [anthropicToolUse([{ id: 'h1', name: 'hold', input: {} }]), anthropicText('never asked')],
    prompt: 'hold on',
    drive: stopping('suspend'),
    lines: ['-> hold', '<- {"hold":"ok"}'],
    outcome: { status: 'suspended' },
    rebooted: 0,
  },
  {
    name: 'cancel: the run stops now',
    replies: [anthropicToolUse([{ id: 'h1', name: 'hold', input: {} }]), anthropicText('never asked')],
    prompt: 'hold on',
    drive: stopping('cancel'),
    lines: ['-> hold'],
    outcome: { status: 'aborted' },
    rebooted: 0,
  },
  {
    name: 'streaming: the answer arrives as fragments that join to it',
    replies: [
      streamIfAsked(anthropicToolUse([{ id: 't1', name: 'lookup', input: {} }]), anthropicEventStream),
      streamIfAsked(anthropicText('streamed answer'), anthropicEventStream),
    ],
    prompt: 'say it',
    stream: true,
    fragments: 'streamed answer',
    lines: ['-> lookup', '<- {"lookup":"ok"}'],
    outcome: { status: 'completed', answer: 'streamed answer' },
    rebooted: 0,
  },
  {
    name: 'follow-up: a second prompt continues the conversation',
    replies: [anthropicText('the disk is 80% full')],
    prompt: 'how full is the disk?',
    followUp: { prompt: 'and yesterday?', replies: [anthropicText('it was 60% yesterday')] },
    lines: [],
    outcome: { status: 'completed', answer: 'it was 60% yesterday' },
    rebooted: 0,
    sent: 'the disk is 80% full',
  },
  {
    name: 'errors: a model call the provider refuses ends the run in error',
    replies: [anthropicError(400, 'invalid_request_error', 'the model refused this request')],
    prompt: 'fail',
    lines: [],
    outcome: { status: 'error', message: expect.stringContaining('the model refused this request') as unknown },
    rebooted: 0,
  },
];

/** Tells whoever waits that the serving run has been told to suspend; each wait takes the next telling. */
class Heard {
  #waiting: (() => void)[] = [];
  next(): Promise<void> {
    return new Promise((resolve) => this.#waiting.push(resolve));
  }
  tell(): void {
    for (const resolve of this.#waiting.splice(0)) resolve();
  }
}
const remoteHeard = new Heard();
/** Resolves once the latest hosted run's caller has published its cancel. */
let hostedCancel: Promise<void> = Promise.resolve();

/**
 * The served channel, telling `remoteHeard` when a run's park signal fires. The tap listens
 * before the server does, and waiters resume only after every listener ran, so by then the
 * server has suspended the run.
 */
function tappedChannel(channel: Channel): Channel {
  return {
    name: channel.name,
    workers: channel.workers,
    next: async (signal) => {
      const work = await channel.next(signal);
      work?.park?.addEventListener('abort', () => remoteHeard.tell(), { once: true });
      return work;
    },
    close: () => channel.close(),
    settled: () => channel.settled?.() ?? Promise.resolve(),
    watchPause: (listener) => channel.watchPause?.(listener),
  };
}

let fake: FakeModelServer;
let nats: NatsServer;
let dir: string;
let runtime: JournaledRuntime;
let hold: HeldTool;
let reboot: HeldTool;
let host: InprocRunHost;
let server: Server;
const connections: NatsConnection[] = [];
const opened: RunHandle[] = [];

beforeAll(async () => {
  fake = await startFakeModelServer();
  nats = await startNatsServer();
  dir = mkdtempSync(join(tmpdir(), 'fisk-run-handle-'));
  hold = new HeldTool({ name: 'hold' });
  reboot = new HeldTool({ name: 'reboot', gated: true, hold: false, output: 'web1 rebooted' });
  const lookup = new HeldTool({ name: 'lookup', hold: false });
  runtime = await workerRuntime(fake, dir, [lookup.tool(), hold.tool(), reboot.tool()]);
  host = await serveRunsInProcess({ runtime, identity: 'worker', workDir: dir });
  const serving = await connect({ servers: nats.url });
  const calling = await connect({ servers: nats.url });
  connections.push(serving, calling);
  const transport = createTransport('nats', { connection: serving });
  const channel = promptChannel({
    identity: 'worker',
    transport,
    workers: 1,
    elicitation: true,
    sessions: runtime.sessions,
    keepaliveMs: 50,
  });
  const service = await startToolService(transport, {
    identity: 'worker',
    card: buildAgentCard({ name: 'worker', version: '1.0.0', tools: [] }),
    tools: [],
    extraEndpoints: [channel.endpoint],
  });
  server = startServer(runtime, { channels: [tappedChannel(channel)], services: [{ name: 'service', close: () => service.stop() }] });
  caller = createTransport('nats', { connection: calling });
}, 60_000);

let caller: ReturnType<typeof createTransport>;

afterAll(async () => {
  for (const h of opened.splice(0)) await h.close();
  server.cancel();
  await server.drain();
  await host.close();
  await runtime.close();
  for (const c of connections) await c.close();
  await nats.stop();
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

const IMPLEMENTATIONS: readonly Implementation[] = [
  {
    name: 'local',
    start: (prompt, stream) => startRun(runtime, { prompt }, { prompter: 'handle', workDir: dir, ...(stream ? { stream } : {}) }),
    suspendHeard: () => Promise.resolve(),
  },
  {
    name: 'hosted',
    start: (prompt, stream) => {
      // the in-process bus delivers a cancel, and the host suspends the run, before publish returns
      const watched = watchingCancels(host.transport);
      hostedCancel = watched.cancelSent;
      return startHostedRun({
        transport: watched.transport,
        self: host.agent,
        agent: host.agent,
        start: { prompt, questions: 'events', ...(stream ? { stream } : {}) },
      });
    },
    suspendHeard: () => hostedCancel,
  },
  {
    name: 'remote',
    start: (prompt, stream) =>
      startRemoteRun({ transport: caller, self: 'client', agent: 'worker', prompt, keepaliveMs: 50, ...(stream ? { stream } : {}) }),
    suspendHeard: () => remoteHeard.next(),
  },
];

/** The lines `fisk run` prints on stderr for these events (tool output shown, no colour, uncut). */
function rendered(events: readonly AgentEvent[]): string[] {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  const surface = new LineSurface(sink, { toolOutput: true, verbose: false });
  for (const e of events) surface.emit(e);
  return text.split('\n').filter((l) => l !== '');
}

/** Runs one turn on `handle` under the case's drive; returns its events and outcome. */
async function turn(
  impl: Implementation,
  handle: RunHandle,
  drive: Drive | undefined,
): Promise<{ events: AgentEvent[]; outcome: RunOutcome }> {
  opened.push(handle);
  const events: AgentEvent[] = [];
  handle.subscribe({
    emit(event) {
      events.push(event);
      drive?.(handle, event, { hold, suspendHeard: () => impl.suspendHeard() });
    },
  });
  return { events, outcome: await handle.outcome };
}

/** Runs a case on one implementation: the lines it rendered, the last outcome, the gated calls. */
async function runCase(
  impl: Implementation,
  c: Case,
): Promise<{ lines: string[]; fragments: string; outcome: RunOutcome; rebooted: number }> {
  fake.reset();
  fake.reply(...c.replies, ...(c.followUp?.replies ?? []));
  const before = reboot.calls;
  const first = await turn(impl, await impl.start(c.prompt, c.stream === true), c.drive);
  let events = first.events;
  let outcome = first.outcome;
  if (c.followUp !== undefined) {
    const next = await turn(impl, await opened.at(-1)!.followUp(c.followUp.prompt), c.drive);
    events = [...events, ...next.events];
    outcome = next.outcome;
  }
  const fragments = events.map((e) => (e.type === 'text_fragment' ? e.text : '')).join('');
  return { lines: rendered(events), fragments, outcome, rebooted: reboot.calls - before };
}

describe.each(IMPLEMENTATIONS)('RunHandle conformance: $name', (impl) => {
  it.each(CASES)('$name', async (c) => {
    const r = await runCase(impl, c);
    expect(r.lines).toEqual(c.lines);
    expect(r.outcome).toMatchObject(c.outcome);
    expect(r.rebooted).toBe(c.rebooted);
    if (c.sent !== undefined) expect(JSON.stringify(fake.requests.at(-1)?.body)).toContain(c.sent);
    expect(r.fragments).toBe(c.fragments ?? '');
  });

  it('refuses an empty follow-up with the same error class, code and message', async () => {
    fake.reset();
    fake.reply(anthropicText('done'));
    const handle = await impl.start('once', false);
    opened.push(handle);
    await handle.outcome;
    const err = await handle.followUp('   ').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(HostError);
    expect(err).toMatchObject({ code: 'usage', category: 'usage', message: 'a follow-up needs a prompt' });
  });
});
