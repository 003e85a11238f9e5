import { completed, testTool } from '../agenttest/test-tool.js';
import { workerRuntime } from './test-runtime.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTransport, delegate, encode, InprocBus, stampRequest, subjects } from '../a2a/index.js';
import type { DelegationUpdate, ServiceHandle, Transport } from '../a2a/index.js';
import { startToolService, buildAgentCard } from '../a2a/index.js';
import { anthropicError, anthropicText, anthropicToolUse } from '../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../agenttest/fake-model-server.js';
import type { FakeModelServer } from '../agenttest/fake-model-server.js';
import type { JournaledRuntime } from '../host/index.js';
import { loadRun } from '../runstate/index.js';
import type { Tool } from '../toolkit/tool.js';
import { promptChannel } from './prompt-channel.js';
import type { PromptChannel } from './prompt-channel.js';
import { startServer } from './server.js';
import type { Server } from './server.js';

/** A tool that answers at once, or holds until the run's signal ends it when asked to wait. */
function lookupTool(gated = false): Tool & { calls: string[] } {
  const calls: string[] = [];
  const tool = testTool({
    name: gated ? 'reboot' : 'lookup',
    description: 'lookup',
    properties: { key: { type: 'string' } },
    gated,
    execute: async (input) => {
      calls.push(input);
      if (input.includes('slow')) await new Promise((r) => setTimeout(r, 300));
      return completed(`value of ${input}`);
    },
  });
  return Object.assign(tool, { calls });
}

let fake: FakeModelServer;
let dir: string;
let runtime: JournaledRuntime;
let tool: ReturnType<typeof lookupTool>;
let gatedTool: ReturnType<typeof lookupTool>;
let caller: Transport;
let channel: PromptChannel;
let server: Server;
let service: ServiceHandle;

beforeAll(async () => {
  fake = await startFakeModelServer();
});
afterAll(async () => {
  await fake.close();
});

async function serveAgent(opts: { elicitation: boolean; workers?: number; questionWindowMs?: number }): Promise<void> {
  const bus = new InprocBus();
  const serving = createTransport('inproc', { bus });
  caller = createTransport('inproc', { bus });
  channel = promptChannel({
    identity: 'worker',
    transport: serving,
    workers: opts.workers ?? 1,
    elicitation: opts.elicitation,
    sessions: runtime.sessions,
    ...(opts.questionWindowMs === undefined ? {} : { questionWindowMs: opts.questionWindowMs }),
  });
  service = await startToolService(serving, {
    identity: 'worker',
    card: buildAgentCard({ name: 'worker', version: '1.0.0', tools: [] }),
    tools: [],
    extraEndpoints: [channel.endpoint],
  });
  server = startServer(runtime, { channels: [channel], services: [{ name: 'service', close: () => service.stop() }] });
}

beforeEach(async () => {
  fake.reset();
  dir = mkdtempSync(join(tmpdir(), 'fisk-prompts-'));
  tool = lookupTool();
  gatedTool = lookupTool(true);
  runtime = await workerRuntime(fake, dir, [tool, gatedTool]);
});
afterEach(async () => {
  server.cancel();
  await server.drain();
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the a2a prompts channel', () => {
  it('runs a delegated prompt with a tool call, streams its events and journals it under a derived session', async () => {
    await serveAgent({ elicitation: false });
    fake.reply(
      anthropicToolUse([{ id: 't1', name: 'lookup', input: { key: 'disk' } }], { text: 'looking' }),
      anthropicText('disk is fine'),
    );
    const updates: DelegationUpdate[] = [];
    const end = await delegate(caller, 'client', 'worker', { prompt: 'check the disk', onUpdate: (u) => updates.push(u) });
    expect(end).toMatchObject({ protocol: 'io.choria.fisk-ai.v1.result', stop_reason: 'end_turn', text: 'disk is fine' });
    const blocks = updates.flatMap((u) => (u.protocol === 'io.choria.fisk-ai.v1.event' ? [u.block] : []));
    expect(blocks).toContainEqual({ type: 'tool_call', id: 't1', name: 'lookup', input: { key: 'disk' } });
    expect(blocks).toContainEqual(expect.objectContaining({ type: 'tool_result', call_id: 't1', output: 'value of {"key":"disk"}' }));
    expect(blocks).toContainEqual({ type: 'text', text: 'looking' });
    // the answer travels in the result only
    expect(blocks.filter((b) => b.type === 'text' && b.text === 'disk is fine')).toHaveLength(0);
    const runs = await runtime.sessions.list();
    expect(runs).toHaveLength(1);
    expect(runs[0]?.runId).toMatch(/^a2a-[0-9a-f]{32}$/);
  });

  it('ends a run the model failed with a terminal error naming the failure', async () => {
    await serveAgent({ elicitation: false });
    fake.reply(anthropicError(400, 'invalid_request_error', 'the model refused this request'));
    const end = await delegate(caller, 'client', 'worker', { prompt: 'fail' });
    expect(end.protocol).toBe('io.choria.fisk-ai.v1.error');
    expect(end.protocol === 'io.choria.fisk-ai.v1.error' ? end.error : '').toMatch(/refused this request/);
  });

  it("puts the run's question to the caller and uses the answer", async () => {
    await serveAgent({ elicitation: true });
    fake.reply(anthropicToolUse([{ id: 'q1', name: 'ask_human_input', input: { question: 'Which disk?' } }]), anthropicText('checked sdb'));
    const asked: string[] = [];
    const end = await delegate(caller, 'client', 'worker', {
      prompt: 'check a disk',
      onQuestion: (q) => {
        asked.push(`${q.kind}: ${q.text}`);
        return Promise.resolve('sdb');
      },
    });
    expect(asked).toEqual(['input: Which disk?']);
    expect(end).toMatchObject({ stop_reason: 'end_turn', text: 'checked sdb' });
    expect(JSON.stringify(fake.requests[1]?.body)).toContain('sdb');
  });

  it('defers a question met with silence: the run suspends, naming its session', async () => {
    await serveAgent({ elicitation: true, questionWindowMs: 100 });
    fake.reply(anthropicToolUse([{ id: 'q1', name: 'ask_human_confirm', input: { question: 'Reboot?' } }]));
    const end = await delegate(caller, 'client', 'worker', { prompt: 'reboot' });
    expect(end).toMatchObject({ stop_reason: 'suspended' });
    const sessionId = /session (a2a-[0-9a-f]+)/.exec(end.protocol === 'io.choria.fisk-ai.v1.result' ? (end.text ?? '') : '')?.[1];
    expect(sessionId).toBeDefined();
    const stored = await loadRun(runtime.sessions, sessionId!);
    expect(stored.pending?.calls.map((c) => c.state)).toEqual(['deferred']);
    expect(fake.requests).toHaveLength(1);
    // a deferred call waits for its answer: a follow-up is refused, saying how to supply it
    const next = await delegate(caller, 'client', 'worker', { prompt: 'well?', conversation: end.request });
    expect(next).toMatchObject({ protocol: 'io.choria.fisk-ai.v1.error', code: 'refused' });
    expect(next.protocol === 'io.choria.fisk-ai.v1.error' ? next.error : '').toMatch(/fisk session answer/);
    expect(fake.requests).toHaveLength(1);
  });

  it('stops the run at the confirm gate when the approval meets silence, leaving the call to ask again', async () => {
    await serveAgent({ elicitation: true, questionWindowMs: 100 });
    fake.reply(anthropicToolUse([{ id: 'g1', name: 'reboot', input: { key: 'now' } }]));
    const kinds: string[] = [];
    const end = await delegate(caller, 'client', 'worker', {
      prompt: 'reboot',
      onUpdate: (u) => (u.protocol === 'io.choria.fisk-ai.v1.question' ? kinds.push(u.kind) : undefined),
    });
    expect(kinds).toEqual(['approval']);
    expect(end).toMatchObject({ stop_reason: 'canceled' });
    expect(gatedTool.calls).toHaveLength(0);
    const runs = await runtime.sessions.list();
    const stored = await loadRun(runtime.sessions, runs[0]!.runId);
    // not deferred: the gated call is still unanswered, so a resume asks about it again
    expect(stored.pending?.calls.map((c) => c.state)).toEqual(['unanswered']);

    // a follow-up finishes the stopped batch first, asking again, then takes the further prompt
    fake.reply(anthropicText('rebooted'), anthropicText('and it is up'));
    const updates: DelegationUpdate[] = [];
    const next = await delegate(caller, 'client', 'worker', {
      prompt: 'is it up?',
      conversation: end.request,
      onUpdate: (u) => updates.push(u),
      onQuestion: (q) => {
        kinds.push(q.kind);
        return Promise.resolve('once');
      },
    });
    expect(kinds).toEqual(['approval', 'approval']);
    expect(next).toMatchObject({ stop_reason: 'end_turn', text: 'and it is up' });
    expect(gatedTool.calls).toHaveLength(1);
    // the finished turn's answer reached the caller as prose before the further prompt ran
    expect(updates.some((u) => u.protocol === 'io.choria.fisk-ai.v1.event' && u.block.type === 'text' && u.block.text === 'rebooted')).toBe(
      true,
    );
    const sent = JSON.stringify(fake.requests[2]?.body);
    expect(sent).toContain('rebooted');
    expect(sent).toContain('is it up?');
    expect((await loadRun(runtime.sessions, runs[0]!.runId)).status).toBe('completed');
  });

  it('declines questions when elicitation is off', async () => {
    await serveAgent({ elicitation: false });
    fake.reply(anthropicToolUse([{ id: 'q1', name: 'ask_human_confirm', input: { question: 'Reboot?' } }]), anthropicText('not rebooted'));
    let asked = 0;
    const end = await delegate(caller, 'client', 'worker', {
      prompt: 'reboot',
      onQuestion: () => {
        asked++;
        return Promise.resolve(true);
      },
    });
    expect(asked).toBe(0);
    expect(end).toMatchObject({ stop_reason: 'end_turn', text: 'not rebooted' });
    expect(JSON.stringify(fake.requests[1]?.body)).toContain('confirmed\\":false');
  });

  it('parks the run on a cancel, and a follow-up in the same conversation continues its journal', async () => {
    await serveAgent({ elicitation: false });
    fake.reply(anthropicToolUse([{ id: 't1', name: 'lookup', input: { key: 'slow' } }]), anthropicText('resumed and answered'));
    const cancel = new AbortController();
    const first = await delegate(caller, 'client', 'worker', {
      prompt: 'look slowly',
      signal: cancel.signal,
      onUpdate: (u) => {
        if (u.protocol === 'io.choria.fisk-ai.v1.event' && u.block.type === 'tool_call') cancel.abort();
      },
    });
    expect(first).toMatchObject({ stop_reason: 'suspended' });
    // the tool call in flight finished: parking waits for the boundary
    expect(tool.calls).toHaveLength(1);
    const second = await delegate(caller, 'client', 'worker', { prompt: 'go on', conversation: first.request });
    expect(second).toMatchObject({ stop_reason: 'end_turn', text: 'resumed and answered' });
    const runs = await runtime.sessions.list();
    expect(runs).toHaveLength(1);
    const stored = await loadRun(runtime.sessions, runs[0]!.runId);
    expect(stored.status).toBe('completed');
    // the model saw the earlier tool result and the further prompt in one conversation
    const sent = JSON.stringify(fake.requests[1]?.body);
    expect(sent).toContain('value of');
    expect(sent).toContain('go on');
    expect(tool.calls).toHaveLength(1);
  });

  it('continues a completed conversation with a follow-up, and refuses one from another caller', async () => {
    await serveAgent({ elicitation: false });
    fake.reply(anthropicText('first answer'), anthropicText('second answer'));
    const first = await delegate(caller, 'client', 'worker', { prompt: 'one' });
    const second = await delegate(caller, 'client', 'worker', { prompt: 'two', conversation: first.request });
    expect(second).toMatchObject({ stop_reason: 'end_turn', text: 'second answer' });
    expect(JSON.stringify(fake.requests[1]?.body)).toContain('first answer');
    // the session id is derived from the caller too: another caller naming the conversation reaches nothing
    const stranger = await delegate(caller, 'stranger', 'worker', { prompt: 'three', conversation: first.request });
    expect(stranger).toMatchObject({ protocol: 'io.choria.fisk-ai.v1.error', code: 'refused' });
    // the refusal says what to do, never where this host keeps its journals
    const said = stranger.protocol === 'io.choria.fisk-ai.v1.error' ? stranger.error : '';
    expect(said).toMatch(/agent worker holds no conversation to continue under this id .*start a new conversation/);
    expect(said).not.toContain(dir);
    expect(said).not.toMatch(/\/(tmp|runs)/);
    expect(fake.requests).toHaveLength(2);
  });

  it('refuses an empty prompt as a bad request, and takes an empty follow-up as carrying the run on', async () => {
    await serveAgent({ elicitation: false });
    // the client refuses it before it leaves
    await expect(delegate(caller, 'client', 'worker', { prompt: '  ' })).rejects.toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/empty prompt/) as string,
    });
    // and the agent answers one sent anyway with the bad-request status, starting nothing
    const req = stampRequest(
      'io.choria.fisk-ai.v1.request',
      { prompt: ' \n' },
      { sender: { name: 'client' }, recipient: { name: 'worker' } },
    );
    const stream = await caller.requestStream(subjects.prompt('worker'), encode(req));
    try {
      await expect(stream.next(5000)).rejects.toMatchObject({
        code: 'rejected',
        status: 400,
        message: expect.stringMatching(/empty prompt: put what the agent should do in prompt/) as string,
      });
    } finally {
      stream.close();
    }
    expect(fake.requests).toHaveLength(0);
    expect(await runtime.sessions.list()).toHaveLength(0);

    fake.reply(anthropicToolUse([{ id: 't1', name: 'lookup', input: { key: 'slow' } }]), anthropicText('carried on'));
    const cancel = new AbortController();
    const first = await delegate(caller, 'client', 'worker', {
      prompt: 'look slowly',
      signal: cancel.signal,
      onUpdate: (u) => {
        if (u.protocol === 'io.choria.fisk-ai.v1.event' && u.block.type === 'tool_call') cancel.abort();
      },
    });
    expect(first).toMatchObject({ stop_reason: 'suspended' });
    const resumed = await delegate(caller, 'client', 'worker', { prompt: '', conversation: first.request });
    expect(resumed).toMatchObject({ stop_reason: 'end_turn', text: 'carried on' });
    // no empty user turn reached the model: the stored conversation went on from the tool result
    const sent = JSON.stringify(fake.requests[1]?.body);
    expect(sent).toContain('value of');
    expect(fake.requests[1]?.bodyText ?? '').not.toContain('"text":""');
  });

  it('drains with a prompt in flight: that run answers, a new prompt is refused', async () => {
    await serveAgent({ elicitation: false });
    fake.reply(anthropicToolUse([{ id: 't1', name: 'lookup', input: { key: 'slow' } }]), anthropicText('finished while draining'));
    let sawCall!: () => void;
    const called = new Promise<void>((r) => (sawCall = r));
    const inFlight = delegate(caller, 'client', 'worker', {
      prompt: 'slow',
      onUpdate: (u) => (u.protocol === 'io.choria.fisk-ai.v1.event' && u.block.type === 'tool_call' ? sawCall() : undefined),
    });
    await called;
    const drained = server.drain();
    const late = await delegate(caller, 'client', 'worker', { prompt: 'too late' }).catch((err: Error) => err);
    expect(late instanceof Error ? late.message : JSON.stringify(late)).toMatch(/shutting down|no responders|unavailable|draining/);
    expect(await inFlight).toMatchObject({ stop_reason: 'end_turn', text: 'finished while draining' });
    expect(await drained).toBeUndefined();
  });
});
