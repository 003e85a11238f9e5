import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aClient, InprocBus, buildAgentCard, createTransport, startPromptServer, startToolService } from '../a2a/index.js';
import type { AskResult, DelegationHandler, ServiceHandle, ToolServiceOptions, Transport } from '../a2a/index.js';
import type { AgentEvent } from '../agent/events.js';
import { fakeTool } from '../toolkit/test-tools.js';
import type { Prompter } from '../toolkit/tool.js';
import { eventFromBlock, runRemote, statusForStopReason } from './remote-run.js';

const bus = new InprocBus();
const serving = createTransport('inproc', { bus });
const calling: Transport = createTransport('inproc', { bus });
let service: ServiceHandle;
let handler: DelegationHandler;
const answers: AskResult[] = [];

beforeAll(async () => {
  const prompts = startPromptServer({
    identity: 'far',
    transport: serving,
    handler: (run) => handler(run),
    keepaliveMs: 50,
    questionWindowMs: 400,
  });
  service = await startToolService(serving, {
    identity: 'far',
    card: buildAgentCard({ name: 'far', version: '1', tools: [] }),
    tools: [],
    extraEndpoints: [prompts.endpoint],
  });
});
afterAll(async () => {
  await service.stop();
});

/** A prompter that answers after the question window would have closed, had no keepalive restarted it. */
function slowPrompter(): Prompter & { asked: string[] } {
  const asked: string[] = [];
  const later = <T>(v: T): Promise<T> => new Promise((r) => setTimeout(() => r(v), 800));
  return {
    asked,
    canPrompt: () => true,
    approve: (req) => (asked.push(`approve ${req.commandLine}`), later('once' as const)),
    confirm: (q) => (asked.push(`confirm ${q}`), later(true)),
    select: (q, options) => (asked.push(`select ${q} ${options.join('|')}`), later(options[1] ?? null)),
    input: (q) => (asked.push(`input ${q}`), later('typed')),
  };
}

describe('runRemote', () => {
  it('puts every kind of question to the prompter, keeping each open with keepalives, and renders clean events', async () => {
    handler = async (run) => {
      await run.emit({ type: 'tool_call', id: 'c1', name: 'look\u001b[2Jup', input: { deep: { key: 'v\u0007' } } });
      answers.push(await run.ask({ kind: 'approval', text: 'rm -rf /tmp/x' }));
      answers.push(await run.ask({ kind: 'confirm', text: 'Sure?' }));
      answers.push(await run.ask({ kind: 'select', text: 'Which?', options: ['a', 'b'] }));
      answers.push(await run.ask({ kind: 'input', text: 'Name?' }));
      await run.warn('careful');
      return { stop_reason: 'end_turn', text: 'all \u001b[31mdone', usage: { input_tokens: 1, output_tokens: 2 } };
    };
    const events: AgentEvent[] = [];
    const prompter = slowPrompter();
    const outcome = await runRemote({
      transport: calling,
      self: 'near',
      agent: 'far',
      prompt: 'go',
      sink: { emit: (e) => events.push(e) },
      prompter,
      keepaliveMs: 50,
      idleTimeoutMs: 10_000,
    });
    expect(outcome).toEqual({
      status: 'completed',
      stopReason: 'end_turn',
      text: 'all done',
      usage: { input_tokens: 1, output_tokens: 2 },
    });
    expect(prompter.asked).toEqual(['approve rm -rf /tmp/x', 'confirm Sure?', 'select Which? a|b', 'input Name?']);
    expect(answers).toEqual([
      { answered: true, value: 'once' },
      { answered: true, value: true },
      { answered: true, value: 'b' },
      { answered: true, value: 'typed' },
    ]);
    expect(events[0]).toEqual({ type: 'tool_call', id: 'c1', name: 'lookup', input: { deep: { key: 'v' } } });
    expect(events.filter((e) => e.type === 'question').map((e) => (e.type === 'question' ? e.kind : ''))).toEqual([
      'approval',
      'confirm',
      'select',
      'input',
    ]);
    expect(events).toContainEqual({ type: 'warning', text: 'careful' });
  });

  it('sends the cancel when its signal aborts, and reports a terminal error with its code', async () => {
    handler = async (run) => {
      await run.emit({ type: 'text', text: 'working' });
      await new Promise<void>((res) => (run.park.aborted ? res() : run.park.addEventListener('abort', () => res(), { once: true })));
      return { error: 'parked on request', stop_reason: 'suspended', code: 'parked' };
    };
    const cancel = new AbortController();
    const outcome = await runRemote({
      transport: calling,
      self: 'near',
      agent: 'far',
      prompt: 'go',
      sink: { emit: (e) => (e.type === 'text' ? cancel.abort() : undefined) },
      signal: cancel.signal,
    });
    expect(outcome).toMatchObject({
      status: 'suspended',
      stopReason: 'suspended',
      error: { message: 'parked on request', code: 'parked' },
    });
  });
});

describe('runRemote shows an approval as the agent decides it', () => {
  const approvals = (events: readonly AgentEvent[]): AgentEvent[] => events.filter((e) => e.type === 'approval');

  it('puts the tool and its tag to the prompter, and shows the decision for the call waiting on it', async () => {
    handler = async (run) => {
      await run.emit({ type: 'tool_call', id: 'c7', name: 'reboot', input: {} });
      answers.push(await run.ask({ kind: 'approval', text: 'reboot web1', tool: 'reboot', trigger: 'ops:dangerous' }));
      return { stop_reason: 'end_turn', text: 'ok' };
    };
    const events: AgentEvent[] = [];
    const seen: string[] = [];
    const prompter: Prompter = {
      canPrompt: () => true,
      approve: (req) => (seen.push(`${req.tool} ${req.trigger}`), Promise.resolve({ decision: 'decline' as const, reason: 'use web2' })),
      confirm: () => Promise.resolve(false),
      select: () => Promise.resolve(null),
      input: () => Promise.resolve(null),
    };
    await runRemote({
      transport: calling,
      self: 'near',
      agent: 'far',
      prompt: 'go',
      sink: { emit: (e) => events.push(e) },
      prompter,
      keepaliveMs: 50,
    });
    expect(seen).toEqual(['reboot ops:dangerous']);
    expect(events).toContainEqual({
      type: 'question',
      id: expect.any(String) as unknown,
      kind: 'approval',
      text: 'reboot web1',
      tool: 'reboot',
      trigger: 'ops:dangerous',
    });
    expect(approvals(events)).toEqual([
      { type: 'approval', call_id: 'c7', tool: 'reboot', trigger: 'ops:dangerous', outcome: 'declined', reason: 'use web2' },
    ]);
  });

  it('says nobody here could approve a call when there is no prompter, and shows nothing for an agent that names no tool', async () => {
    handler = async (run) => {
      await run.emit({ type: 'tool_call', id: 'c8', name: 'reboot', input: {} });
      answers.push(await run.ask({ kind: 'approval', text: 'reboot web1', tool: 'reboot', trigger: 'ai:confirm' }));
      // as an agent of an earlier version asks: the question alone
      answers.push(await run.ask({ kind: 'approval', text: 'reboot web2' }));
      return { stop_reason: 'end_turn', text: 'ok' };
    };
    const events: AgentEvent[] = [];
    await runRemote({
      transport: calling,
      self: 'near',
      agent: 'far',
      prompt: 'go',
      sink: { emit: (e) => events.push(e) },
      keepaliveMs: 50,
    });
    expect(approvals(events)).toEqual([{ type: 'approval', call_id: 'c8', tool: 'reboot', trigger: 'ai:confirm', outcome: 'no_operator' }]);
    expect(answers.slice(-2)).toEqual([
      { answered: true, value: 'decline' },
      { answered: true, value: 'decline' },
    ]);
  });
});

describe('runRemote stops a run now when its abort fires', () => {
  it('sends run.abort ahead of the cancel: the agent sees the abort, and its park behind it', async () => {
    let order: string[] = [];
    handler = async (run) => {
      order = [];
      run.abort.addEventListener('abort', () => order.push('abort'), { once: true });
      run.park.addEventListener('abort', () => order.push('park'), { once: true });
      await run.emit({ type: 'text', text: 'working' });
      await new Promise<void>((res) => (run.park.aborted ? res() : run.park.addEventListener('abort', () => res(), { once: true })));
      return { stop_reason: run.abort.aborted ? 'canceled' : 'suspended', text: 'stopped' };
    };
    const abort = new AbortController();
    const cancel = new AbortController();
    const outcome = await runRemote({
      transport: calling,
      self: 'near',
      agent: 'far',
      prompt: 'go',
      sink: {
        emit: (e) => {
          if (e.type !== 'text') return;
          abort.abort();
          cancel.abort();
        },
      },
      signal: cancel.signal,
      abort: abort.signal,
    });
    expect(order).toEqual(['abort', 'park']);
    expect(outcome).toMatchObject({ status: 'aborted', stopReason: 'canceled' });
  });
});

describe('eventFromBlock and statusForStopReason', () => {
  it('keeps a refusal the agent marked, and takes one it does not know as a denial', () => {
    expect(eventFromBlock({ type: 'tool_result', call_id: 'c', output: 'no', refused: 'unknown_tool' })).toEqual({
      type: 'tool_result',
      call_id: 'c',
      is_error: false,
      output: 'no',
      refused: 'unknown_tool',
    });
    expect(eventFromBlock({ type: 'tool_result', call_id: 'c', output: 'no', refused: 'vetoed' })).toMatchObject({ refused: 'denied' });
    expect(eventFromBlock({ type: 'tool_result', call_id: 'c', output: 'yes' })).not.toHaveProperty('refused');
  });

  it('bounds the walk over a deep tool input and shows an unknown block as a warning', () => {
    let input: Record<string, unknown> = { leaf: 'x' };
    for (let i = 0; i < 100; i++) input = { a: input };
    const event = eventFromBlock({ type: 'tool_call', id: 'c', name: 'n', input });
    expect(JSON.stringify(event)).toContain('nested too deeply to show');
    expect(eventFromBlock({ type: 'opaque', kind: 'hologram', raw: {} })).toEqual({
      type: 'warning',
      text: 'the agent sent a "hologram" block, which this build does not show',
    });
    expect(eventFromBlock({ type: 'status', phase: 'dreaming' })).toBeUndefined();
  });

  it('maps every stop reason, and one it does not know to an error', () => {
    expect(
      ['end_turn', 'suspended', 'canceled', 'budget_exhausted', 'max_iterations', 'error', 'from_the_future'].map(statusForStopReason),
    ).toEqual(['completed', 'suspended', 'aborted', 'budget', 'max_iterations', 'error', 'error']);
  });
});

describe('the tool service options a server passes', () => {
  it('scrubs credentials from output, hands the work dir to tools that declare it, and reports each call', async () => {
    const seen: unknown[] = [];
    const tool = fakeTool('where', {
      exposure: { mcp: false, a2a: true },
      needsWorkDir: true,
      handler: (_input, call) =>
        Promise.resolve({ status: 'completed', output: `in ${call.deps.workDir ?? 'nowhere'} with sk-secret-value`, isError: false }),
    });
    const opts: ToolServiceOptions = {
      identity: 'lend',
      card: buildAgentCard({ name: 'lend', version: '1', tools: [tool] }),
      tools: [tool],
      workDir: '/srv/work',
      scrub: (t) => t.replaceAll('sk-secret-value', '[redacted]'),
      observe: (c) => seen.push({ tool: c.tool, caller: c.caller, isError: c.isError }),
    };
    const handle = await startToolService(serving, opts);
    try {
      const reply = await new A2aClient(calling, 'near').callTool('lend', 'where', {});
      expect(reply.output).toBe('in /srv/work with [redacted]');
      await new A2aClient(calling, 'near').callTool('lend', 'nothing', {});
      expect(seen).toEqual([
        { tool: 'where', caller: 'near', isError: false },
        { tool: 'nothing', caller: 'near', isError: true },
      ]);
    } finally {
      await handle.stop();
    }
  });
});
