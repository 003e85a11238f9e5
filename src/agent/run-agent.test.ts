import { describe, expect, it } from 'vitest';
import { ScriptedProvider, hangingStep, scriptedResponse, textResponse, toolUseResponse } from '../agenttest/scripted-provider.js';
import { LlmError } from '../llm/errors.js';
import { RunStateError } from '../runstate/errors.js';
import type { Response } from '../llm/provider.js';
import type { Message, ToolResultBlock } from '../llm/types.js';
import { newFuncTool } from '../toolkit/functool/index.js';
import { DECLINED_REASON, NO_OPERATOR_REASON } from './confirm-gate.js';
import { CRASH_MESSAGE } from './errors.js';
import { EventLog } from './events.js';
import { MemoryJournal } from './journal.js';
import type { JournalEntry, RunJournal } from './journal.js';
import { runAgent, TRUNCATED_CALL } from './run-agent.js';
import { ScriptedPrompter, recordingTool, sourceOf, testSettings } from './test-support.js';
import { answerOf, deferredOf, errorOf, messageOf } from './outcome.js';
import { eventually } from '../agenttest/eventually.js';

function resultsIn(message: Message | undefined): ToolResultBlock[] {
  return (message?.content ?? []).filter((b): b is ToolResultBlock => b.type === 'tool_result');
}

describe('runAgent: the iteration', () => {
  it('completes with the answer and derives counters from what happened', async () => {
    const provider = new ScriptedProvider([textResponse('hello there', { usage: { input: 10, output: 5 } })]);
    const events = new EventLog();
    const out = await runAgent({ settings: testSettings(), provider, tools: sourceOf([]), prompt: 'hi', events });
    expect(out.status).toBe('completed');
    expect(answerOf(out)).toBe('hello there');
    expect(out.counters.llmCalls).toBe(1);
    expect(out.counters.usage.input).toBe(10);
    expect(provider.requests[0]?.system).toEqual([{ text: 'You test things.' }]);
    expect(provider.requests[0]?.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
    expect(events.ofType('text')).toEqual([{ type: 'text', text: 'hello there', final: true }]);
  });

  it('runs tool calls, journals the assistant turn first and feeds all results back as one user message', async () => {
    const calls: Record<string, unknown>[] = [];
    const tool = recordingTool('echo', calls);
    const provider = new ScriptedProvider([
      toolUseResponse([
        { name: 'echo', input: { text: 'a' }, id: 't1' },
        { name: 'echo', input: { text: 'b' }, id: 't2' },
      ]),
      textResponse('done'),
    ]);
    const journal = new MemoryJournal();
    const out = await runAgent({ settings: testSettings(), provider, tools: sourceOf([tool]), prompt: 'go', journal });
    expect(out.status).toBe('completed');
    expect(calls).toEqual([{ text: 'a' }, { text: 'b' }]);
    const second = provider.requests[1]?.messages ?? [];
    expect(second).toHaveLength(3);
    expect(resultsIn(second[2]).map((r) => r.toolUseId)).toEqual(['t1', 't2']);
    expect(journal.entries().map((e) => e.type)).toEqual(['assistant', 'tool_result', 'tool_result', 'assistant', 'terminal']);
    expect(out.counters.toolCalls).toBe(2);
    expect(out.counters.toolCallsByKind.custom).toBe(2);
  });

  it('answers an unknown tool with an error result, warns, and never dispatches', async () => {
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'nope', input: {}, id: 'u1' }]), textResponse('ok')]);
    const events = new EventLog();
    const out = await runAgent({ settings: testSettings(), provider, tools: sourceOf([]), prompt: 'go', events });
    expect(out.status).toBe('completed');
    const [r] = resultsIn(provider.requests[1]?.messages[2]);
    expect(r?.isError).toBe(true);
    expect(r?.content).toContain('not available');
    expect(events.ofType('warning')[0]?.text).toContain('"nope"');
    expect(out.counters.toolCallsByKind.unknown).toBe(1);
  });

  it('never dispatches tool calls from a response cut at max_tokens, and tells the model', async () => {
    const calls: Record<string, unknown>[] = [];
    const provider = new ScriptedProvider([
      toolUseResponse([{ name: 'echo', input: '{"text": "trunc', id: 'c1' }], { stopReason: 'max_tokens' }),
      textResponse('fine'),
    ]);
    const out = await runAgent({ settings: testSettings(), provider, tools: sourceOf([recordingTool('echo', calls)]), prompt: 'go' });
    expect(out.status).toBe('completed');
    expect(calls).toEqual([]);
    const [r] = resultsIn(provider.requests[1]?.messages[2]);
    expect(r).toEqual({ type: 'tool_result', toolUseId: 'c1', content: TRUNCATED_CALL, isError: true });
  });

  it('passes an unknown stop reason through', async () => {
    const provider = new ScriptedProvider([textResponse('x', { stopReason: 'brand_new_reason' })]);
    const out = await runAgent({ settings: testSettings(), provider, tools: sourceOf([]), prompt: 'go' });
    expect(out.status).toBe('completed');
    expect(out.stopReason).toEqual({ unified: 'other', raw: 'brand_new_reason' });
  });

  it('continues after pause_turn without a user message', async () => {
    const provider = new ScriptedProvider([
      scriptedResponse([{ type: 'text', text: 'part' }], { stopReason: 'pause_turn' }),
      textResponse('whole'),
    ]);
    const out = await runAgent({ settings: testSettings(), provider, tools: sourceOf([]), prompt: 'go' });
    expect(answerOf(out)).toBe('whole');
    expect(provider.requests[1]?.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('ends with error, not an exception, when the model call fails', async () => {
    const provider = new ScriptedProvider([new LlmError('auth', 'HTTP 401 unauthorized')]);
    const out = await runAgent({ settings: testSettings(), provider, tools: sourceOf([]), prompt: 'go' });
    expect(out.status).toBe('error');
    expect(errorOf(out)).toEqual({ code: 'model', message: 'model call failed: HTTP 401 unauthorized' });
  });
});

describe('runAgent: budgets', () => {
  it('stops at max_iterations with a message naming the key', async () => {
    const calls: Record<string, unknown>[] = [];
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'echo', input: {} }]), toolUseResponse([{ name: 'echo', input: {} }])]);
    const out = await runAgent({
      settings: testSettings('  budget: { max_iterations: 2 }\n'),
      provider,
      tools: sourceOf([recordingTool('echo', calls)]),
      prompt: 'go',
    });
    expect(out.status).toBe('max_iterations');
    expect(messageOf(out)).toContain('llm.budget.max_iterations');
    expect(out.counters.llmCalls).toBe(2);
  });

  it('stops before a tool batch once the cumulative budget over all four tiers is spent', async () => {
    const calls: Record<string, unknown>[] = [];
    const provider = new ScriptedProvider([
      toolUseResponse([{ name: 'echo', input: {} }], { usage: { input: 400, output: 100, cacheRead: 300, cacheWrite: 200 } }),
    ]);
    const out = await runAgent({
      settings: testSettings('  budget: { max_tokens: 1000 }\n'),
      provider,
      tools: sourceOf([recordingTool('echo', calls)]),
      prompt: 'go',
    });
    expect(out.status).toBe('budget');
    expect(messageOf(out)).toContain('llm.budget.max_tokens');
    expect(calls).toEqual([]);
  });

  it('still returns a completed answer that went past the budget', async () => {
    const provider = new ScriptedProvider([textResponse('spent', { usage: { input: 5000 } })]);
    const out = await runAgent({ settings: testSettings('  budget: { max_tokens: 1000 }\n'), provider, tools: sourceOf([]), prompt: 'go' });
    expect(out.status).toBe('completed');
    expect(answerOf(out)).toBe('spent');
  });
});

describe('runAgent: the confirm gate', () => {
  const gated = (calls: Record<string, unknown>[]) => recordingTool('deploy', calls, { confirm: { trigger: 'ai:confirm' } });

  it('denies a gated call with no prompter, before asking anything, as a non-error result', async () => {
    const calls: Record<string, unknown>[] = [];
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'deploy', input: { text: 'x' } }]), textResponse('ok')]);
    await runAgent({ settings: testSettings(), provider, tools: sourceOf([gated(calls)]), prompt: 'go' });
    expect(calls).toEqual([]);
    const [r] = resultsIn(provider.requests[1]?.messages[2]);
    expect(r?.isError).toBeUndefined();
    expect(JSON.parse(r?.content ?? '{}')).toEqual({ allowed: false, reason: NO_OPERATOR_REASON });
  });

  it('shows the resolved call and trigger; a decline is final and not an error', async () => {
    const calls: Record<string, unknown>[] = [];
    const prompter = new ScriptedPrompter(['decline']);
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'deploy', input: { text: 'prod\u001b[2J' } }]), textResponse('ok')]);
    const events = new EventLog();
    await runAgent({ settings: testSettings(), provider, tools: sourceOf([gated(calls)]), prompt: 'go', prompter, events });
    expect(calls).toEqual([]);
    expect(prompter.approvals).toEqual([{ tool: 'deploy', commandLine: 'deploy text="prod\\u001b[2J"', trigger: 'ai:confirm' }]);
    const [r] = resultsIn(provider.requests[1]?.messages[2]);
    expect(JSON.parse(r?.content ?? '{}')).toEqual({ allowed: false, reason: DECLINED_REASON });
    expect(events.ofType('question')).toHaveLength(1);
  });

  it('gates by harness.confirm_tags on tagged tools', async () => {
    const calls: Record<string, unknown>[] = [];
    const tool = recordingTool('write', calls, { tags: ['impact:rw'] });
    const prompter = new ScriptedPrompter(['once']);
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'write', input: {} }]), textResponse('ok')]);
    await runAgent({
      settings: testSettings('harness:\n  confirm_tags: [impact:rw]\n'),
      provider,
      tools: sourceOf([tool]),
      prompt: 'go',
      prompter,
    });
    expect(prompter.approvals[0]?.trigger).toBe('impact:rw');
    expect(calls).toHaveLength(1);
  });

  it('honours an always-grant at once and journals it only after the triggering call is answered', async () => {
    const calls: Record<string, unknown>[] = [];
    const prompter = new ScriptedPrompter(['always']);
    const provider = new ScriptedProvider([
      toolUseResponse([
        { name: 'deploy', input: { text: 'a' }, id: 'g1' },
        { name: 'deploy', input: { text: 'b' }, id: 'g2' },
      ]),
      textResponse('ok'),
    ]);
    const journal = new MemoryJournal();
    await runAgent({ settings: testSettings(), provider, tools: sourceOf([gated(calls)]), prompt: 'go', prompter, journal });
    expect(prompter.approvals).toHaveLength(1);
    expect(calls).toHaveLength(2);
    expect(journal.entries().map((e) => e.type)).toEqual(['assistant', 'tool_result', 'grant', 'tool_result', 'assistant', 'terminal']);
  });

  it('does not honour a restored grant with nobody present', async () => {
    const calls: Record<string, unknown>[] = [];
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'deploy', input: {} }]), textResponse('ok')]);
    await runAgent({ settings: testSettings(), provider, tools: sourceOf([gated(calls)]), prompt: 'go', grants: { standing: ['deploy'] } });
    expect(calls).toEqual([]);
  });

  it('validates required arguments before the gate, so nobody approves a call that cannot run', async () => {
    const calls: Record<string, unknown>[] = [];
    const tool = newFuncTool({
      name: 'need',
      description: 'needs a name',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      confirm: { trigger: 'ai:confirm' },
      handler: (i) => {
        calls.push(i);
        return Promise.resolve({ status: 'completed', output: 'ran', isError: false });
      },
    });
    const prompter = new ScriptedPrompter(['once']);
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'need', input: {} }]), textResponse('ok')]);
    await runAgent({ settings: testSettings(), provider, tools: sourceOf([tool]), prompt: 'go', prompter });
    expect(prompter.approvals).toEqual([]);
    const [r] = resultsIn(provider.requests[1]?.messages[2]);
    expect(r?.isError).toBe(true);
    expect(r?.content).toContain('"name"');
  });
});

describe('runAgent: hooks', () => {
  it('lets PreToolUse deny a call', async () => {
    const calls: Record<string, unknown>[] = [];
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'echo', input: {} }]), textResponse('ok')]);
    await runAgent({
      settings: testSettings(),
      provider,
      tools: sourceOf([recordingTool('echo', calls)]),
      prompt: 'go',
      hooks: { preToolUse: () => ({ action: 'deny', reason: 'policy says no' }) },
    });
    expect(calls).toEqual([]);
    expect(resultsIn(provider.requests[1]?.messages[2])[0]?.content).toContain('policy says no');
  });

  it('gates a rewrite if the effective tool is gated', async () => {
    const safe: Record<string, unknown>[] = [];
    const risky: Record<string, unknown>[] = [];
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'safe', input: {} }]), textResponse('ok')]);
    const prompter = new ScriptedPrompter(['decline']);
    await runAgent({
      settings: testSettings(),
      provider,
      tools: sourceOf([recordingTool('safe', safe), recordingTool('risky', risky, { confirm: { trigger: 'ai:confirm' } })]),
      prompt: 'go',
      prompter,
      hooks: { preToolUse: () => ({ action: 'rewrite', name: 'risky', input: '{}' }) },
    });
    expect(prompter.approvals[0]?.tool).toBe('risky');
    expect(safe).toEqual([]);
    expect(risky).toEqual([]);
  });

  it.each([
    ['an unregistered tool', { action: 'rewrite' as const, name: 'ghost', input: '{}' }],
    ['invalid JSON', { action: 'rewrite' as const, name: 'echo', input: '{nope' }],
  ])('stops the run when PreToolUse rewrites to %s', async (_what, decision) => {
    const calls: Record<string, unknown>[] = [];
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'echo', input: {} }])]);
    const out = await runAgent({
      settings: testSettings(),
      provider,
      tools: sourceOf([recordingTool('echo', calls)]),
      prompt: 'go',
      hooks: { preToolUse: () => decision },
    });
    expect(out.status).toBe('error');
    expect(errorOf(out)?.code).toBe('hook');
    expect(calls).toEqual([]);
  });

  it('fires RunEnd exactly once, with the outcome', async () => {
    const seen: string[] = [];
    const provider = new ScriptedProvider([textResponse('x')]);
    await runAgent({
      settings: testSettings(),
      provider,
      tools: sourceOf([]),
      prompt: 'go',
      hooks: { runEnd: (o) => void seen.push(o.status) },
    });
    expect(seen).toEqual(['completed']);
  });

  it('PostToolUse output is what the model, journal and events see', async () => {
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'echo', input: {}, id: 'p1' }]), textResponse('ok')]);
    const journal = new MemoryJournal();
    const events = new EventLog();
    await runAgent({
      settings: testSettings(),
      provider,
      tools: sourceOf([recordingTool('echo', [])]),
      prompt: 'go',
      journal,
      events,
      hooks: { postToolUse: () => ({ action: 'replace', output: 'rewritten' }) },
    });
    expect(resultsIn(provider.requests[1]?.messages[2])[0]?.content).toBe('rewritten');
    expect(events.ofType('tool_result')[0]?.output).toBe('rewritten');
    const entry = journal.entries().find((e) => e.type === 'tool_result');
    expect(entry?.type === 'tool_result' ? entry.result.content : '').toBe('rewritten');
  });
});

describe('runAgent: timeouts, deferral, suspend, abort', () => {
  const slow = (name: string, paced: boolean) =>
    newFuncTool({
      name,
      description: 'waits for its signal',
      inputSchema: { type: 'object', properties: {} },
      ...(paced ? { operatorPaced: true } : {}),
      handler: (_i, call) =>
        new Promise((resolve) => {
          // the paced tool outlives the 50ms timeout; had it been given one, it would report being killed
          call.signal.addEventListener('abort', () => resolve({ status: 'completed', output: 'killed', isError: true }), { once: true });
          if (paced) setTimeout(() => resolve({ status: 'completed', output: 'answered', isError: false }), 200);
        }),
    });

  it('substitutes the timeout message before PostToolUse, so every reader sees the same text', async () => {
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'slow', input: {} }]), textResponse('ok')]);
    const seenByHook: string[] = [];
    await runAgent({
      settings: testSettings('  budget: { tool_timeout: 50ms }\n'),
      provider,
      tools: sourceOf([slow('slow', false)]),
      prompt: 'go',
      hooks: { postToolUse: (r) => void seenByHook.push(r.output) },
    });
    expect(seenByHook[0]).toContain('did not finish within 50ms');
    expect(resultsIn(provider.requests[1]?.messages[2])[0]?.content).toBe(seenByHook[0]);
  });

  it('exempts an operator-paced tool from the tool timeout', async () => {
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'paced', input: {} }]), textResponse('ok')]);
    await runAgent({
      settings: testSettings('  budget: { tool_timeout: 50ms }\n'),
      provider,
      tools: sourceOf([slow('paced', true)]),
      prompt: 'go',
    });
    expect(resultsIn(provider.requests[1]?.messages[2])[0]?.content).toBe('answered');
  });

  it('ends suspended on a deferral and appends nothing', async () => {
    const later = newFuncTool({
      name: 'later',
      description: 'answers later',
      inputSchema: { type: 'object', properties: {} },
      handler: () => Promise.resolve({ status: 'deferred', reason: 'waiting on a person' }),
    });
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'later', input: {}, id: 'd1' }])]);
    const journal = new MemoryJournal();
    const out = await runAgent({ settings: testSettings(), provider, tools: sourceOf([later]), prompt: 'go', journal });
    expect(out.status).toBe('suspended');
    expect(deferredOf(out)).toEqual([{ toolUseId: 'd1', name: 'later', reason: 'waiting on a person' }]);
    expect(out.messages.at(-1)?.role).toBe('assistant');
    expect(journal.entries().map((e) => e.type)).toEqual(['assistant', 'tool_deferred', 'terminal']);
  });

  it('suspends at the boundary without consuming the iteration', async () => {
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'echo', input: {} }])]);
    let polls = 0;
    const out = await runAgent({
      settings: testSettings(),
      provider,
      tools: sourceOf([recordingTool('echo', [])]),
      prompt: 'go',
      suspendRequested: () => ++polls > 1,
    });
    expect(out.status).toBe('suspended');
    expect(out.nextIteration).toBe(1);
    expect(out.counters.llmCalls).toBe(1);
  });

  it('ends aborted when cancelled during a model call', async () => {
    const ac = new AbortController();
    const provider = new ScriptedProvider([hangingStep()]);
    const events = new EventLog();
    const run = runAgent({ settings: testSettings(), provider, tools: sourceOf([]), prompt: 'go', signal: ac.signal, events });
    await eventually(() => provider.requests.length === 1, 'the model call to start');
    ac.abort();
    const out = await run;
    expect(out.status).toBe('aborted');
  });

  it('stops before a tool when the run was taken over', async () => {
    const calls: Record<string, unknown>[] = [];
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'echo', input: {} }])]);
    const out = await runAgent({
      settings: testSettings(),
      provider,
      tools: sourceOf([recordingTool('echo', calls)]),
      prompt: 'go',
      journal: { append: () => Promise.resolve(), stillOwned: () => Promise.resolve(false) },
    });
    expect(out.status).toBe('error');
    expect(errorOf(out)?.code).toBe('taken_over');
    expect(calls).toEqual([]);
  });

  it('ends with a journal error when the journal refuses a record', async () => {
    const provider = new ScriptedProvider([textResponse('x')]);
    const out = await runAgent({
      settings: testSettings(),
      provider,
      tools: sourceOf([]),
      prompt: 'go',
      journal: { append: () => Promise.reject(new Error('disk full')) },
    });
    expect(out.status).toBe('error');
    expect(errorOf(out)?.code).toBe('journal');
  });

  it('ends taken over, not failed, when the journal moved on under another writer', async () => {
    const calls: Record<string, unknown>[] = [];
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'echo', input: {} }]), textResponse('x')]);
    const out = await runAgent({
      settings: testSettings(),
      provider,
      tools: sourceOf([recordingTool('echo', calls)]),
      prompt: 'go',
      journal: { append: () => Promise.reject(new RunStateError('locked', 'run is already locked (another writer holds it): "r"')) },
    });
    expect(out.status).toBe('error');
    expect(errorOf(out)?.code).toBe('taken_over');
    expect(errorOf(out)?.message).toContain('another writer holds it');
    // the model's turn was never stored, so nothing it asked for ran
    expect(calls).toEqual([]);
    expect(provider.requests).toHaveLength(1);
  });

  it('makes no further model call once the journal refused a tool result (a full disk)', async () => {
    const calls: Record<string, unknown>[] = [];
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'echo', input: {} }]), textResponse('never asked for')]);
    const written: string[] = [];
    const out = await runAgent({
      settings: testSettings(),
      provider,
      tools: sourceOf([recordingTool('echo', calls)]),
      prompt: 'go',
      journal: {
        append: (entry) => {
          if (entry.type === 'tool_result') return Promise.reject(new Error('cannot write run "r": ENOSPC: no space left on device'));
          written.push(entry.type);
          return Promise.resolve();
        },
      },
    });
    expect(out.status).toBe('error');
    expect(errorOf(out)?.code).toBe('journal');
    expect(errorOf(out)?.message).toContain('ENOSPC');
    expect(calls).toHaveLength(1);
    expect(provider.requests).toHaveLength(1);
    // the error is still journaled where the journal lets it
    expect(written).toEqual(['assistant', 'terminal']);
  });
});

describe('runAgent: the crash barrier', () => {
  it('fires RunEnd once, sends the stack to the sink only, and returns a stackless crashed outcome', async () => {
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'echo', input: {} }])]);
    const events = new EventLog();
    const ends: string[] = [];
    const out = await runAgent({
      settings: testSettings(),
      provider,
      tools: sourceOf([recordingTool('echo', [])]),
      prompt: 'go',
      events,
      hooks: {
        preToolUse: () => {
          throw new TypeError('hook bug');
        },
        runEnd: (o) => void ends.push(o.status),
      },
    });
    expect(out.status).toBe('crashed');
    expect(errorOf(out)).toEqual({ code: 'crashed', message: CRASH_MESSAGE });
    expect(JSON.stringify(errorOf(out))).not.toContain('hook bug');
    expect(ends).toEqual(['crashed']);
    const [crash] = events.ofType('crash');
    expect(crash?.message).toBe('hook bug');
    expect(crash?.stack).toContain('TypeError: hook bug');
  });

  it('fires RunEnd only once even when RunEnd itself throws', async () => {
    let fired = 0;
    const out = await runAgent({
      settings: testSettings(),
      provider: new ScriptedProvider([textResponse('x')]),
      tools: sourceOf([]),
      prompt: 'go',
      hooks: {
        runEnd: () => {
          fired++;
          throw new Error('end bug');
        },
      },
    });
    expect(out.status).toBe('crashed');
    expect(fired).toBe(1);
  });
});

describe('runAgent: advisories', () => {
  it('reports advisories queued by other sources as warnings with the next snapshot', async () => {
    const source = sourceOf([]);
    source.advise('MCP server "docs" changed its tool list');
    const events = new EventLog();
    await runAgent({ settings: testSettings(), provider: new ScriptedProvider([textResponse('x')]), tools: source, prompt: 'go', events });
    expect(events.ofType('warning').map((w) => w.text)).toEqual(['MCP server "docs" changed its tool list']);
  });
});

describe('runAgent: the crash barrier holds when the run state itself is broken', () => {
  it('returns crashed rather than throwing when a provider breaks its contract', async () => {
    const ends: string[] = [];
    const broken = { capabilities: () => new ScriptedProvider().capabilities(), call: () => Promise.resolve({} as Response) };
    const out = await runAgent({
      settings: testSettings(),
      provider: broken,
      tools: sourceOf([]),
      prompt: 'go',
      hooks: { runEnd: (o) => void ends.push(o.status) },
    });
    expect(out.status).toBe('crashed');
    expect(errorOf(out)).toEqual({ code: 'crashed', message: CRASH_MESSAGE });
    expect(ends).toEqual(['crashed']);
  });
});

describe('runAgent: records written back to back', () => {
  /** A journal that logs each write, a batch as one line, beside the events and tool runs it sees. */
  function loggingJournal(log: string[], options: { refuse?: (entries: readonly JournalEntry[]) => boolean } = {}): RunJournal {
    return {
      append: (entry) => {
        log.push(`append ${entry.type}`);
        return Promise.resolve();
      },
      appendAll: (entries) => {
        log.push(`batch ${entries.map((e) => e.type).join(',')}`);
        return options.refuse?.(entries) === true ? Promise.reject(new Error('disk full')) : Promise.resolve();
      },
    };
  }
  const textLog = (log: string[]): EventLog => {
    const events = new EventLog();
    const emit = events.emit.bind(events);
    events.emit = (event) => {
      if (event.type === 'text') log.push(`text ${event.text}`);
      emit(event);
    };
    return events;
  };

  it('stores a final turn with its terminal entry as one step, and shows its text only once it is stored', async () => {
    const log: string[] = [];
    const tool = recordingTool('echo', [], {}, () => {
      log.push('tool');
      return 'ran';
    });
    const provider = new ScriptedProvider([
      toolUseResponse([{ name: 'echo', input: {}, id: 't1' }], { text: 'calling' }),
      textResponse('done'),
    ]);
    const out = await runAgent({
      settings: testSettings(),
      provider,
      tools: sourceOf([tool]),
      prompt: 'go',
      events: textLog(log),
      journal: loggingJournal(log),
    });
    expect(out.status).toBe('completed');
    expect(log).toEqual(['batch assistant', 'text calling', 'tool', 'batch tool_result', 'batch assistant,terminal', 'text done']);
  });

  it('gives a journal without a batch append its entries one at a time', async () => {
    const written: string[] = [];
    const out = await runAgent({
      settings: testSettings(),
      provider: new ScriptedProvider([textResponse('done')]),
      tools: sourceOf([]),
      prompt: 'go',
      journal: {
        append: (entry) => {
          written.push(entry.type);
          return Promise.resolve();
        },
      },
    });
    expect(out.status).toBe('completed');
    expect(written).toEqual(['assistant', 'terminal']);
  });

  it('fails the run with a journal error when the final turn is refused with its terminal entry, showing none of its text', async () => {
    const log: string[] = [];
    const ends: string[] = [];
    const out = await runAgent({
      settings: testSettings(),
      provider: new ScriptedProvider([textResponse('done')]),
      tools: sourceOf([]),
      prompt: 'go',
      events: textLog(log),
      hooks: { runEnd: (o) => void ends.push(o.status) },
      journal: loggingJournal(log, { refuse: (entries) => entries[0]?.type === 'assistant' }),
    });
    expect(out.status).toBe('error');
    expect(errorOf(out)?.code).toBe('journal');
    expect(ends).toEqual(['error']);
    // the error is still journaled where the journal lets it
    expect(log).toEqual(['batch assistant,terminal', 'batch terminal']);
  });

  it('stores a response cut at the output limit with the refusals of its calls as one step', async () => {
    const log: string[] = [];
    const provider = new ScriptedProvider([
      toolUseResponse(
        [
          { name: 'echo', input: {} },
          { name: 'echo', input: {} },
        ],
        { stopReason: 'max_tokens' },
      ),
      textResponse('ok'),
    ]);
    const out = await runAgent({
      settings: testSettings(),
      provider,
      tools: sourceOf([recordingTool('echo', [])]),
      prompt: 'go',
      journal: loggingJournal(log),
    });
    expect(out.status).toBe('completed');
    expect(log).toEqual(['batch assistant,tool_result,tool_result', 'batch assistant,terminal']);
  });

  it('stores a grant with the answer of the call that earned it', async () => {
    const log: string[] = [];
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'deploy', input: { text: 'a' }, id: 'g1' }]), textResponse('ok')]);
    await runAgent({
      settings: testSettings(),
      provider,
      tools: sourceOf([recordingTool('deploy', [], { confirm: { trigger: 'ai:confirm' } })]),
      prompt: 'go',
      prompter: new ScriptedPrompter(['always']),
      journal: loggingJournal(log),
    });
    expect(log).toEqual(['batch assistant', 'batch tool_result,grant', 'batch assistant,terminal']);
  });

  it('stores a held turn alone when the run crashes before its terminal entry', async () => {
    const log: string[] = [];
    let asked = 0;
    const out = await runAgent({
      settings: testSettings(),
      provider: new ScriptedProvider([textResponse('thinking on', { stopReason: 'pause_turn' }), textResponse('never asked for')]),
      tools: sourceOf([]),
      prompt: 'go',
      suspendRequested: () => {
        if (++asked > 1) throw new TypeError('suspend check bug');
        return false;
      },
      journal: loggingJournal(log),
    });
    expect(out.status).toBe('crashed');
    expect(log).toEqual(['batch assistant']);
  });

  it('stores a paused turn before the next model call', async () => {
    const log: string[] = [];
    const provider = new ScriptedProvider([textResponse('thinking on', { stopReason: 'pause_turn' }), textResponse('done')]);
    const journal = loggingJournal(log);
    const out = await runAgent({
      settings: testSettings(),
      provider,
      tools: sourceOf([]),
      prompt: 'go',
      modelCall: (_request, call) => {
        log.push('model call');
        return call();
      },
      journal,
    });
    expect(out.status).toBe('completed');
    expect(log).toEqual(['model call', 'batch assistant', 'model call', 'batch assistant,terminal']);
  });
});
