/**
 * The full-screen view showing a run another agent hosts: the agent is served here over the
 * in-process a2a transport (the real prompts channel and server, the fake model server behind
 * it), and the view renders the handle the delegation client gives, as it renders a local one.
 */
import { workerRuntime } from '../serve/test-runtime.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildAgentCard, createTransport, InprocBus, startToolService } from '../a2a/index.js';
import type { Transport } from '../a2a/index.js';
import { anthropicText, anthropicToolUse } from '../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../agenttest/fake-model-server.js';
import type { FakeModelServer } from '../agenttest/fake-model-server.js';
import { HeldTool } from '../agenttest/held-tool.js';
import { anthropicEventStream, streamIfAsked } from '../agenttest/sse-wire.js';
import type { JournaledRuntime } from '../host/index.js';
import { promptChannel, startRemoteRun, startServer } from '../serve/index.js';
import type { RemoteRunHandle, Server } from '../serve/index.js';
import { headless } from '../../test/tui/headless-terminal.js';
import { runFullScreen } from './index.js';
import type { FullScreenResult } from './index.js';

let fake: FakeModelServer;
let dir: string;
let runtime: JournaledRuntime;
let purge: HeldTool;
let hold: HeldTool;
let caller: Transport;
let server: Server;

beforeAll(async () => {
  fake = await startFakeModelServer();
});
afterAll(async () => {
  await fake.close();
});

beforeEach(async () => {
  fake.reset();
  dir = mkdtempSync(join(tmpdir(), 'fisk-remote-view-'));
  purge = new HeldTool({ name: 'purge', gated: true, hold: false, output: 'purged 12 messages\nfreed 4 MB\nkept the audit copy' });
  hold = new HeldTool({ name: 'wait' });
  runtime = await workerRuntime(fake, dir, [purge.tool(), hold.tool()], { humanInTheLoop: false });
  const bus = new InprocBus();
  const serving = createTransport('inproc', { bus });
  caller = createTransport('inproc', { bus });
  const channel = promptChannel({
    identity: 'worker',
    transport: serving,
    workers: 1,
    elicitation: true,
    sessions: runtime.sessions,
    keepaliveMs: 50,
  });
  const service = await startToolService(serving, {
    identity: 'worker',
    card: buildAgentCard({ name: 'worker', version: '1.0.0', tools: [] }),
    tools: [],
    extraEndpoints: [channel.endpoint],
  });
  server = startServer(runtime, { channels: [channel], services: [{ name: 'service', close: () => service.stop() }] });
});
afterEach(async () => {
  server.cancel();
  await server.drain();
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

const streamed = (...replies: Parameters<typeof anthropicEventStream>[0][]): ReturnType<typeof streamIfAsked>[] =>
  replies.map((r) => streamIfAsked(r, anthropicEventStream));

/** Shows a remote run in the view, as `fisk run --nats-context` does at a terminal. */
async function showRemote(prompt: string): Promise<{ screen: ReturnType<typeof headless>; running: Promise<FullScreenResult> }> {
  const screen = headless();
  const start = (text: string): Promise<RemoteRunHandle> =>
    startRemoteRun({ transport: caller, self: 'client', agent: 'worker', prompt: text, stream: true, keepaliveMs: 50 });
  const running = runFullScreen({
    handle: await start(prompt),
    prompt,
    identity: 'worker',
    startSession: start,
    verbose: false,
    toolOutput: false,
    noBell: true,
    env: {},
    stdout: screen.stdout,
    stdin: screen.stdin,
  });
  return { screen, running };
}

describe('the full-screen view of a remote run', () => {
  it("puts the agent's approval up as the modal, sends the answer back, and takes a follow-up in the remote conversation", async () => {
    fake.reply(
      ...streamed(
        anthropicToolUse([{ id: 't1', name: 'purge', input: {} }], { text: 'Purging.' }),
        anthropicText('Purged.', { usage: { input_tokens: 100, output_tokens: 20 } }),
        anthropicText('Still purged.', { usage: { input_tokens: 150, output_tokens: 5 } }),
      ),
    );
    const { screen, running } = await showRemote('purge the orders');
    const blocked = await screen.until('BLOCKED');
    expect(blocked).toMatchInlineSnapshot(`
      "> purge the orders
      Purging.
      -> purge



      ╭──────────────────────────────────────────────────────────────────────╮
      │ Approval needed to run (gated by ai:confirm):                        │
      │   purge                                                              │
      │ › 1) No, do not run it                                               │
      │   2) Yes, run it once                                                │
      │   3) Yes, and allow it for the rest of this run                      │
      │   4) No, and tell the agent what to do instead                       │
      ╰──────────────────────────────────────────────────────────────────────╯
      Enter answers · Esc declines · Ctrl-C stops the run
       BLOCKED │ worker │ tokens 0                                 folding on"
    `);
    screen.press('2');
    const done = await screen.until('AWAITING INPUT');
    expect(done).toMatchInlineSnapshot(`
      "> purge the orders
      Purging.
      -> purge
      approval: purge approved once (gated by ai:confirm)
      <- … 3 lines of output folded
      Purged.








      > █
       AWAITING INPUT │ worker │ tokens 120                        folding on"
    `);
    expect(purge.calls).toBe(1);
    screen.press('and again\r');
    const followed = await screen.until(/Still purged\.[\s\S]*AWAITING INPUT/);
    expect(followed).toContain('> and again');
    // the follow-up continued the served session: the model saw the whole conversation
    expect(fake.requests).toHaveLength(3);
    expect(JSON.stringify(fake.requests[2]?.body)).toContain('purge the orders');
    expect(await runtime.sessions.list()).toHaveLength(1);
    screen.press('\u0004'); // Ctrl-D at an empty input row leaves
    const result = await running;
    expect(result.outcome).toMatchObject({ status: 'completed', answer: 'Still purged.' });
    expect(result.abandoned).toBe(false);
    for (const handle of result.handles) await handle.close();
  });

  it('parks the remote run on the first Ctrl-C: it finishes its step and the view says it was suspended', async () => {
    fake.reply(...streamed(anthropicToolUse([{ id: 't1', name: 'wait', input: {} }])));
    const { screen, running } = await showRemote('wait a while');
    await hold.until(1);
    await screen.until('-> wait');
    // the remote conversation carries the run on, so the first Ctrl-C is the suspend (the a2a cancel)
    screen.press('\u0003');
    await screen.until('suspend requested');
    hold.release();
    const parked = await screen.until('SUSPENDED');
    expect(parked.replace(/\n/g, ' ')).toContain('send a follow-up in this conversation to continue');
    // the call in flight finished, and the model was not asked again
    expect(hold.calls).toBe(1);
    expect(fake.requests).toHaveLength(1);
    screen.press('\u0004');
    const result = await running;
    expect(result.outcome?.status).toBe('suspended');
    for (const h of result.handles) await h.close();
  });

  it('stops the remote run now on the second Ctrl-C: the call in flight is killed and the view says it was cancelled', async () => {
    fake.reply(...streamed(anthropicToolUse([{ id: 't1', name: 'wait', input: {} }])));
    const { screen, running } = await showRemote('wait a while');
    await hold.until(1);
    await screen.until('-> wait');
    screen.press('\u0003');
    await screen.until('suspend requested');
    // the held call is never let go here: only the abort that reached the agent ends it
    screen.press('\u0003');
    const stopped = await screen.until('ABORTED');
    expect(stopped).toContain('stopped: the run was cancelled while wait ran');
    expect(hold.calls).toBe(1);
    expect(fake.requests).toHaveLength(1);
    screen.press('\u0004');
    const result = await running;
    expect(result.outcome?.status).toBe('aborted');
    for (const h of result.handles) await h.close();
  });
});
