import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../agent/events.js';
import { anthropicText, anthropicToolUse } from '../agenttest/anthropic-wire.js';
import { startFakeModelServer } from '../agenttest/fake-model-server.js';
import type { FakeModelServer } from '../agenttest/fake-model-server.js';
import { completed, testTool } from '../agenttest/test-tool.js';
import type { Runtime } from '../host/index.js';
import type { ApprovalAnswer, Prompter, Tool } from '../toolkit/tool.js';
import { serveRunsInProcess } from './hosted-run.js';
import type { InprocRunHost } from './hosted-run.js';
import { startHostedRun } from './remote-handle.js';
import { workerRuntime } from './test-runtime.js';

let fake: FakeModelServer;
let dir: string;
let runtime: Runtime;
let host: InprocRunHost;
let ran: string[];

function reboot(): Tool {
  return testTool({
    name: 'reboot',
    description: 'reboot',
    properties: { key: { type: 'string' } },
    gated: true,
    execute: (input) => (ran.push(input), Promise.resolve(completed('rebooted'))),
  });
}

/** Answers approvals from a script and every yes/no question with yes. */
class Answering implements Prompter {
  constructor(private readonly approval: ApprovalAnswer) {}
  canPrompt = (): boolean => true;
  approve = (): Promise<ApprovalAnswer> => Promise.resolve(this.approval);
  confirm = (): Promise<boolean> => Promise.resolve(true);
  select = (): Promise<string | null> => Promise.resolve(null);
  input = (): Promise<string | null> => Promise.resolve(null);
}

/** The text of one tool result block as the Anthropic wire carries it (a string or text blocks). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((b: { text?: string }) => b.text ?? '').join('') : '';
}

/** The tool results the model was sent in the last request. */
function lastResults(): { content?: unknown }[] {
  const body = fake.requests.at(-1)?.body as { messages?: { content?: unknown }[] } | undefined;
  const content = body?.messages?.at(-1)?.content;
  return Array.isArray(content) ? (content as { type?: string; content?: unknown }[]).filter((b) => b.type === 'tool_result') : [];
}

beforeAll(async () => {
  fake = await startFakeModelServer();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(async () => {
  fake.reset();
  ran = [];
  dir = mkdtempSync(join(tmpdir(), 'fisk-decline-'));
  runtime = await workerRuntime(fake, dir, [reboot()]);
  host = await serveRunsInProcess({ runtime, identity: 'worker', workDir: dir });
});
afterEach(async () => {
  await host.close();
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

const REASON = 'reboot web2 first, web1 is serving';

describe('a decline with a reason, across the in-process transport', () => {
  it("reaches the model from the caller's own prompter", async () => {
    fake.reply(anthropicToolUse([{ id: 'r1', name: 'reboot', input: { key: 'web1' } }]), anthropicText('ok'));
    const handle = await startHostedRun({
      transport: host.transport,
      self: host.agent,
      agent: host.agent,
      start: { prompt: 'reboot web1', questions: 'ask' },
      prompter: new Answering({ decision: 'decline', reason: REASON }),
    });
    expect(await handle.outcome).toMatchObject({ status: 'completed' });
    expect(ran).toEqual([]);
    expect(JSON.parse(textOf(lastResults()[0]?.content))).toMatchObject({ allowed: false, operator_reason: REASON });
  });

  it('reaches the model when answered through the handle, and the approval event names the tag', async () => {
    fake.reply(anthropicToolUse([{ id: 'r1', name: 'reboot', input: { key: 'web1' } }]), anthropicText('ok'));
    const handle = await startHostedRun({
      transport: host.transport,
      self: host.agent,
      agent: host.agent,
      start: { prompt: 'reboot web1', questions: 'events' },
    });
    const events: AgentEvent[] = [];
    handle.subscribe({
      emit: (e) => {
        events.push(e);
        if (e.type === 'question' && e.id !== undefined) handle.answer(e.id, { decision: 'decline', reason: REASON });
      },
    });
    expect(await handle.outcome).toMatchObject({ status: 'completed' });
    expect(ran).toEqual([]);
    expect(JSON.parse(textOf(lastResults()[0]?.content))).toMatchObject({ allowed: false, operator_reason: REASON });
    expect(events).toContainEqual(expect.objectContaining({ type: 'question', kind: 'approval', tool: 'reboot', trigger: 'ai:confirm' }));
    expect(events).toContainEqual({
      type: 'approval',
      call_id: 'r1',
      tool: 'reboot',
      trigger: 'ai:confirm',
      outcome: 'declined',
      reason: REASON,
    });
  });
});

describe('many questions in one turn', () => {
  it('leave no listener behind on the run: no MaxListenersExceededWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => void warnings.push(w);
    process.on('warning', onWarning);
    try {
      const calls = Array.from({ length: 12 }, (_, i) => ({ id: `q${i}`, name: 'ask_human_confirm', input: { question: `step ${i}?` } }));
      fake.reply(anthropicToolUse(calls), anthropicText('all confirmed'));
      const handle = await startHostedRun({
        transport: host.transport,
        self: host.agent,
        agent: host.agent,
        start: { prompt: 'ask me', questions: 'ask' },
        prompter: new Answering('decline'),
      });
      expect(await handle.outcome).toMatchObject({ status: 'completed' });
      expect(lastResults()).toHaveLength(12);
      // a warning is emitted on the next tick after the listener that crossed the limit
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
  });
});
