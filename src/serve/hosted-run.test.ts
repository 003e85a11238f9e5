import { completed, testTool } from '../agenttest/test-tool.js';
import { watchingCancels, workerRuntime } from './test-runtime.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTransport, delegate, InprocBus, startPromptServer, startToolService, buildAgentCard } from '../a2a/index.js';
import type { Transport } from '../a2a/index.js';
import type { AgentEvent } from '../agent/events.js';
import { anthropicText, anthropicToolUse } from '../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../agenttest/fake-model-server.js';
import type { FakeModelServer } from '../agenttest/fake-model-server.js';
import { HostError, startRun } from '../host/index.js';
import type { RunRuntime } from '../host/index.js';
import { ConfigError } from '../config/index.js';
import type { ApprovalDecision, ApprovalRequest, Prompter, Tool } from '../toolkit/tool.js';
import { failureOf, serveRunsInProcess } from './hosted-run.js';
import type { InprocRunHost } from './hosted-run.js';
import { HostedRunFailure, startHostedRun } from './remote-handle.js';
import type { HostedRunHandle } from './remote-handle.js';
import { eventually } from '../agenttest/eventually.js';

/** Holds a `gate` call until the test lets it go. */
let release: () => void = () => undefined;

/** A tool that answers at once; a `slow` key holds until its signal ends it, a `gate` key until released. */
function lookupTool(gated = false): Tool & { calls: string[] } {
  const calls: string[] = [];
  const tool = testTool({
    name: gated ? 'reboot' : 'lookup',
    description: 'lookup',
    properties: { key: { type: 'string' } },
    gated,
    execute: async (input, signal) => {
      calls.push(input);
      if (input.includes('gate')) await new Promise<void>((resolve) => (release = resolve));
      if (input.includes('slow')) {
        await new Promise<void>((resolve) => {
          if (signal.aborted) resolve();
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
        return { status: 'completed', output: 'stopped', isError: true };
      }
      return completed(`value of ${input}`);
    },
  });
  return Object.assign(tool, { calls });
}

/** A prompter that records each call as it arrived and answers from a script. */
class ScriptedPrompter implements Prompter {
  readonly approvals: ApprovalRequest[] = [];
  readonly inputs: string[] = [];
  constructor(
    private readonly decision: ApprovalDecision,
    private readonly text = '',
  ) {}
  canPrompt(): boolean {
    return true;
  }
  approve(request: ApprovalRequest): Promise<ApprovalDecision> {
    this.approvals.push(request);
    return Promise.resolve(this.decision);
  }
  confirm(): Promise<boolean> {
    return Promise.resolve(false);
  }
  select(): Promise<string | null> {
    return Promise.resolve(null);
  }
  input(question: string): Promise<string | null> {
    this.inputs.push(question);
    return Promise.resolve(this.text);
  }
}

let fake: FakeModelServer;
let dir: string;
let runtime: RunRuntime;
let tool: ReturnType<typeof lookupTool>;
let gated: ReturnType<typeof lookupTool>;
let host: InprocRunHost;

beforeAll(async () => {
  fake = await startFakeModelServer();
});
afterAll(async () => {
  await fake.close();
});

beforeEach(async () => {
  fake.reset();
  dir = mkdtempSync(join(tmpdir(), 'fisk-hosted-'));
  tool = lookupTool();
  gated = lookupTool(true);
  runtime = await workerRuntime(fake, dir, [tool, gated]);
  host = await serveRunsInProcess({ runtime, identity: 'worker', workDir: dir });
});
afterEach(async () => {
  await host.close();
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

const start = (
  s: Parameters<typeof startHostedRun>[0]['start'],
  prompter?: Prompter,
  transport: Transport = host.transport,
): Promise<HostedRunHandle> =>
  startHostedRun({ transport, self: host.agent, agent: host.agent, start: s, ...(prompter === undefined ? {} : { prompter }) });

const eventsOf = async (handle: { events(): AsyncIterable<AgentEvent> }): Promise<AgentEvent[]> => {
  const out: AgentEvent[] = [];
  for await (const e of handle.events()) out.push(e);
  return out;
};

describe('a hosted run', () => {
  it('emits exactly what the run itself emits, with the full outcome, and journals nothing without a checkpoint', async () => {
    const script = [
      anthropicToolUse([{ id: 't1', name: 'lookup', input: { key: 'disk' } }], { text: 'looking' }),
      anthropicText('disk is fine'),
    ];
    fake.reply(...script);
    const direct = await startRun(runtime, { prompt: 'check the disk' }, { workDir: dir });
    const directEvents = await eventsOf(direct);
    const directOutcome = await direct.outcome;
    await direct.close();

    fake.reply(...script);
    const handle = await start({ prompt: 'check the disk', questions: 'none' });
    expect(handle.start).toEqual({ kind: 'new', runId: undefined });
    expect(handle.system.length).toBeGreaterThan(0);
    const events = await eventsOf(handle);
    const outcome = await handle.outcome;
    // the local-only parts travel too: the call's presentation and the final answer
    expect(events).toEqual(directEvents);
    expect(events).toContainEqual(expect.objectContaining({ type: 'tool_call', name: 'lookup', presentation: 'traced' }));
    expect(events).toContainEqual({ type: 'text', text: 'disk is fine', final: true });
    expect(outcome).toMatchObject({
      status: 'completed',
      answer: 'disk is fine',
      model: directOutcome.model,
      counters: { llmCalls: 2, toolCalls: 1 },
    });
    expect(outcome.counters).toEqual(directOutcome.counters);
    expect(await runtime.sessions!.list()).toEqual([]);
  });

  it("puts an approval to the caller's prompter with its tool and trigger, unwindowed", async () => {
    const script = [anthropicToolUse([{ id: 'r1', name: 'reboot', input: { key: 'web1\u0007' } }]), anthropicText('rebooted')];
    fake.reply(...script);
    const local = new ScriptedPrompter('once');
    const direct = await startRun(runtime, { prompt: 'reboot web1' }, { prompter: local, workDir: dir });
    expect(await direct.outcome).toMatchObject({ status: 'completed' });
    await direct.close();

    fake.reply(...script);
    const prompter = new ScriptedPrompter('once');
    const handle = await start({ prompt: 'reboot web1', questions: 'ask' }, prompter);
    expect(await handle.outcome).toMatchObject({ status: 'completed', answer: 'rebooted' });
    // the request arrives as the run made it: the same tool, trigger and command line
    expect(prompter.approvals).toEqual(local.approvals);
    expect(prompter.approvals[0]).toMatchObject({ tool: 'reboot', trigger: 'ai:confirm' });
    expect(gated.calls).toHaveLength(2);
  });

  it('with nobody to answer, warns at the start and declines the gated call', async () => {
    fake.reply(anthropicToolUse([{ id: 'r1', name: 'reboot', input: { key: 'web1' } }]), anthropicText('could not'));
    const handle = await start({ prompt: 'reboot web1', questions: 'none' });
    const events = await eventsOf(handle);
    expect(events[0]?.type).toBe('warning');
    expect(events[0]?.type === 'warning' ? events[0].text : '').toMatch(/no interactive terminal/);
    const result = events.find((e) => e.type === 'tool_result');
    expect(result?.type === 'tool_result' ? result.refused : undefined).toBeDefined();
    expect(gated.calls).toEqual([]);
  });

  it('journals under --name with a checkpoint, and a resume that cannot start fails as the host raised it', async () => {
    fake.reply(anthropicText('done'));
    const handle = await start({ prompt: 'note it', checkpoint: true, name: 'named-run', questions: 'none' });
    expect(handle.runId).toBe('named-run');
    expect(await handle.outcome).toMatchObject({ status: 'completed' });
    expect((await runtime.sessions!.list()).map((r) => r.runId)).toEqual(['named-run']);

    let direct: unknown;
    await startRun(runtime, { resume: 'no-such-run' }).catch((err: unknown) => (direct = err));
    let hosted: unknown;
    await start({ resume: 'no-such-run', questions: 'none' }).catch((err: unknown) => (hosted = err));
    expect(hosted).toBeInstanceOf(HostedRunFailure);
    const d = direct as HostError;
    expect(hosted).toMatchObject({ code: d.code, category: d.category, message: d.message });
  });

  it('cancel stops a running tool now (aborted); suspend parks a journaled run at its next boundary', async () => {
    fake.reply(anthropicToolUse([{ id: 's1', name: 'lookup', input: { key: 'slow' } }]), anthropicText('never'));
    const running = await start({ prompt: 'wait', questions: 'none' });
    running.subscribe({ emit: (e) => (e.type === 'tool_call' ? running.cancel() : undefined) });
    expect(await running.outcome).toMatchObject({ status: 'aborted' });

    // the aborted run never asked for its second reply
    fake.reset();
    fake.reply(anthropicToolUse([{ id: 'l1', name: 'lookup', input: { key: 'gate' } }]), anthropicText('later'));
    const { transport, cancelSent } = watchingCancels(host.transport);
    const parked = await start({ prompt: 'look', checkpoint: true, questions: 'none' }, undefined, transport);
    parked.subscribe({ emit: (e) => (e.type === 'tool_call' ? parked.suspend() : undefined) });
    // the cancel reaches the host before the tool is let go: the run parks after the batch
    await cancelSent;
    await eventually(() => tool.calls.some((input) => input.includes('gate')), 'the gated lookup to be held');
    release();
    expect(await parked.outcome).toMatchObject({ status: 'suspended' });
    expect(parked.runId).toBeDefined();
  });

  it('continues the conversation in memory with a follow-up, without a journal', async () => {
    fake.reply(anthropicText('first answer'), anthropicText('second answer'));
    const first = await start({ prompt: 'one', questions: 'none' });
    expect(await first.outcome).toMatchObject({ status: 'completed', answer: 'first answer' });
    const second = await first.followUp('two');
    expect(await second.outcome).toMatchObject({ status: 'completed', answer: 'second answer' });
    expect(JSON.stringify(fake.requests[1]?.body)).toContain('first answer');
    expect(await runtime.sessions!.list()).toEqual([]);
  });

  it('answers a question sent out as an event through the handle', async () => {
    fake.reply(anthropicToolUse([{ id: 'q1', name: 'ask_human_input', input: { question: 'Which disk?' } }]), anthropicText('checked sdb'));
    const handle = await start({ prompt: 'check a disk', questions: 'events', interactive: true });
    handle.subscribe({ emit: (e) => (e.type === 'question' && e.id !== undefined ? void handle.answer(e.id, 'sdb') : undefined) });
    expect(await handle.outcome).toMatchObject({ status: 'completed', answer: 'checked sdb' });
    expect(JSON.stringify(fake.requests[1]?.body)).toContain('sdb');
  });

  it('is refused by an agent that does not host runs', async () => {
    const bus = new InprocBus();
    const serving = createTransport('inproc', { bus });
    const server = startPromptServer({
      identity: 'peer',
      transport: serving,
      handler: () => Promise.resolve({ stop_reason: 'end_turn', text: 'x' }),
    });
    const service = await startToolService(serving, {
      identity: 'peer',
      card: buildAgentCard({ name: 'peer', version: '1.0.0', tools: [] }),
      tools: [],
      extraEndpoints: [server.endpoint],
    });
    try {
      const caller = createTransport('inproc', { bus });
      await expect(delegate(caller, 'client', 'peer', { prompt: '', run: { prompt: 'p', questions: 'none' } })).rejects.toThrow(/refused/);
    } finally {
      await service.stop();
    }
  });

  it('a start the host refuses with a configuration error arrives as that ConfigError, each issue with its key', async () => {
    const raised = new ConfigError([
      { code: 'value', key: 'harness.sessions.backend', message: 'unknown session backend "tape"' },
      { code: 'missing', key: 'nats_context', message: 'is required by harness.sessions.backend: nats', at: 'agent.yaml:4:3' },
    ]);
    const bus = new InprocBus();
    const serving = createTransport('inproc', { bus });
    // a host whose run fails to start as the host's own begin does: the failure, then the refusal
    const server = startPromptServer({
      identity: 'peer',
      transport: serving,
      handler: () => Promise.resolve({ stop_reason: 'end_turn', text: 'x' }),
      hostedRuns: async (run) => {
        await run.outcome({ failure: failureOf(raised) });
        return { error: raised.message, stop_reason: 'error', code: 'refused' };
      },
    });
    const service = await startToolService(serving, {
      identity: 'peer',
      card: buildAgentCard({ name: 'peer', version: '1.0.0', tools: [] }),
      tools: [],
      extraEndpoints: [server.endpoint],
    });
    try {
      const caller = createTransport('inproc', { bus });
      const err: unknown = await startHostedRun({
        transport: caller,
        self: 'client',
        agent: 'peer',
        start: { prompt: 'p', questions: 'none' },
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect(err).toMatchObject({
        key: 'harness.sessions.backend',
        code: 'value',
        category: 'configuration',
        message: raised.message,
        issues: raised.issues,
      });
    } finally {
      await service.stop();
    }
  });

  it('a host error keeps its class and code across the transport', async () => {
    fake.reply(anthropicText('done'));
    const handle = await start({ prompt: 'once', questions: 'none' });
    await handle.outcome;
    const err: unknown = await handle.followUp('   ').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostError);
    expect(err).toMatchObject({ code: 'usage', message: 'a follow-up needs a prompt' });
  });
});
