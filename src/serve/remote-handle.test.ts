import { mkdtempSync, rmSync } from 'node:fs';
import { watchingCancels, workerRuntime } from './test-runtime.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { A2aError, buildAgentCard, createTransport, InprocBus, startToolService } from '../a2a/index.js';
import type { ServiceHandle, Transport } from '../a2a/index.js';
import type { AgentEvent } from '../agent/events.js';
import { anthropicError, anthropicText, anthropicToolUse } from '../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../agenttest/fake-model-server.js';
import { anthropicEventStream, streamIfAsked } from '../agenttest/sse-wire.js';
import type { FakeModelServer } from '../agenttest/fake-model-server.js';
import type { JournaledRuntime } from '../host/index.js';
import { HeldTool } from '../agenttest/held-tool.js';
import { promptChannel } from './prompt-channel.js';
import { startRemoteRun } from './remote-handle.js';
import type { RemoteRunHandle } from './remote-handle.js';
import { startServer } from './server.js';
import type { Server } from './server.js';

let fake: FakeModelServer;
let dir: string;
let runtime: JournaledRuntime;
let lookup: HeldTool;
let reboot: HeldTool;
let caller: Transport;
let server: Server;
let service: ServiceHandle;
const handles: RemoteRunHandle[] = [];

beforeAll(async () => {
  fake = await startFakeModelServer();
});
afterAll(async () => {
  await fake.close();
});

beforeEach(async () => {
  fake.reset();
  lookup = new HeldTool({ name: 'lookup' });
  reboot = new HeldTool({ name: 'reboot', gated: true, hold: false, output: 'web1 rebooted' });
  dir = mkdtempSync(join(tmpdir(), 'fisk-remote-handle-'));
  runtime = await workerRuntime(fake, dir, [lookup.tool(), reboot.tool()]);
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
  service = await startToolService(serving, {
    identity: 'worker',
    card: buildAgentCard({ name: 'worker', version: '1.0.0', tools: [] }),
    tools: [],
    extraEndpoints: [channel.endpoint],
  });
  server = startServer(runtime, { channels: [channel], services: [{ name: 'service', close: () => service.stop() }] });
});
afterEach(async () => {
  for (const h of handles.splice(0)) await h.close();
  server.cancel();
  await server.drain();
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

async function start(prompt: string, stream = false, transport = caller): Promise<RemoteRunHandle> {
  const h = await startRemoteRun({
    transport,
    self: 'client',
    agent: 'worker',
    prompt,
    keepaliveMs: 50,
    ...(stream ? { stream: true } : {}),
  });
  handles.push(h);
  return h;
}

describe('a delegated run as a run handle', () => {
  it("renders the remote tool call, routes the run's question by its id to answer(), and ends with the answer", async () => {
    fake.reply(
      anthropicToolUse([{ id: 't1', name: 'reboot', input: {} }], { text: 'rebooting' }),
      anthropicText('web1 is back', { usage: { input_tokens: 20, output_tokens: 7 } }),
    );
    const handle = await start('reboot web1');
    const events: AgentEvent[] = [];
    const answered: boolean[] = [];
    handle.subscribe({
      emit(e) {
        events.push(e);
        // answered at once, from inside the event: the question is already waiting for it
        if (e.type === 'question' && e.id !== undefined) answered.push(handle.answer(e.id, 'once'), handle.answer(e.id, 'decline'));
      },
    });
    const outcome = await handle.outcome;
    expect(outcome).toMatchObject({ status: 'completed', answer: 'web1 is back', stopReason: { raw: 'end_turn' } });
    // one answer is taken; a second for the same question is refused
    expect(answered).toEqual([true, false]);
    expect(reboot.calls).toBe(1);
    const question = events.find((e) => e.type === 'question');
    expect(question).toMatchObject({ type: 'question', kind: 'approval', text: expect.stringContaining('reboot') as unknown });
    expect(events).toContainEqual({ type: 'tool_call', id: 't1', name: 'reboot', input: {} });
    expect(events).toContainEqual(expect.objectContaining({ type: 'tool_result', call_id: 't1', output: 'web1 rebooted' }));
    // the answer arrives as the final text, as a local run ends, and nothing comes after it
    expect(events.at(-1)).toEqual({ type: 'text', text: 'web1 is back', final: true });
    expect(outcome.counters).toMatchObject({ toolCalls: 1, llmCalls: 2 });
    expect(outcome.counters.usage).toMatchObject({ input: 20, output: 7 });
    expect(handle.answer(question?.type === 'question' ? (question.id ?? '') : '', 'once')).toBe(false);
    // the event stream ends with the turn
    const streamed: string[] = [];
    for await (const event of handle.events()) streamed.push(event.type);
    expect(streamed.at(-1)).toBe('text');
  });

  it('continues the remote conversation with a follow-up in the same session', async () => {
    fake.reply(anthropicText('the disk is 80% full'), anthropicText('it was 60% yesterday'));
    const first = await start('how full is the disk?');
    expect(await first.outcome).toMatchObject({ status: 'completed', answer: 'the disk is 80% full' });
    const next = await first.followUp('and yesterday?');
    handles.push(next);
    expect(next.conversation).toBe(first.conversation);
    expect(await next.outcome).toMatchObject({ status: 'completed', answer: 'it was 60% yesterday' });
    // the model saw the whole conversation, and the agent kept it in one session
    expect(JSON.stringify(fake.requests[1]?.body)).toContain('how full is the disk?');
    expect(JSON.stringify(fake.requests[1]?.body)).toContain('the disk is 80% full');
    expect(await runtime.sessions.list()).toHaveLength(1);
    await expect(next.followUp('   ')).rejects.toThrow('a follow-up needs a prompt');
  });

  it('sends the cancel on suspend: the remote run parks at its next step, and a follow-up resumes it', async () => {
    fake.reply(anthropicToolUse([{ id: 't1', name: 'lookup', input: {} }]), anthropicText('resumed and done'));
    const { transport, cancelSent } = watchingCancels(caller);
    const handle = await start('look it up', false, transport);
    await lookup.until(1);
    handle.suspend();
    // the cancel parks the run at its next boundary: the call in flight is let finish once the
    // cancel has reached the worker
    await cancelSent;
    lookup.release();
    const outcome = await handle.outcome;
    expect(outcome.status).toBe('suspended');
    expect(outcome.status === 'suspended' ? outcome.message : '').toContain('send a follow-up in this conversation to continue');
    expect((await handle.remote).stopReason).toBe('suspended');
    // the call in flight finished; the model was not asked again
    expect(lookup.calls).toBe(1);
    expect(fake.requests).toHaveLength(1);
    const next = await handle.followUp('go on');
    handles.push(next);
    expect(await next.outcome).toMatchObject({ status: 'completed', answer: 'resumed and done' });
    // the resumed session carried the call's result to the model, and the follow-up with it
    expect(JSON.stringify(fake.requests[1]?.body)).toContain(JSON.stringify('{"lookup":"ok"}').slice(1, -1));
    expect(JSON.stringify(fake.requests[1]?.body)).toContain('go on');
  });

  it('streams the answer as fragments when asked, and refuses a follow-up to a turn that failed', async () => {
    fake.reply(streamIfAsked(anthropicText('streamed answer'), anthropicEventStream));
    const handle = await start('say it', true);
    const fragments: string[] = [];
    handle.subscribe({ emit: (e) => (e.type === 'text_fragment' ? fragments.push(e.text) : undefined) });
    expect(await handle.outcome).toMatchObject({ status: 'completed', answer: 'streamed answer' });
    expect(fragments.join('')).toBe('streamed answer');

    fake.reply(anthropicError(400, 'invalid_request_error', 'the model refused this request'));
    const failed = await start('fail');
    const outcome = await failed.outcome;
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'remote' } });
    expect(outcome.status === 'error' ? outcome.message : '').toContain('the model refused this request');
    await expect(failed.followUp('again')).rejects.toThrow("a follow-up continues a completed or suspended turn; worker's ended error");
  });

  it('throws before any handle exists when nobody serves the agent', async () => {
    await expect(startRemoteRun({ transport: caller, self: 'client', agent: 'nobody', prompt: 'hello' })).rejects.toBeInstanceOf(A2aError);
  });
});
