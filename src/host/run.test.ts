import { completed, testTool } from '../agenttest/test-tool.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ScriptedProvider, hangingStep, textResponse, toolUseResponse } from '../agenttest/scripted-provider.js';
import type { AgentEvent } from '../agent/events.js';
import { runCli } from '../cli/program.js';
import { captureIo } from '../cli/test-io.js';
import { parseConfigForMode } from '../config/index.js';
import { KnowledgeReader } from '../knowledge/index.js';
import type { Message } from '../llm/types.js';
import { loadRun } from '../runstate/index.js';
import { memorySessionStore } from '../runstate/memory-store.js';
import type { SessionStore } from '../runstate/store.js';
import type { Tool } from '../toolkit/tool.js';
import { ConnectionPool } from './connections.js';
import { twoStageInterrupt } from './interrupt.js';
import { startRun } from './run.js';
import type { RunHandle } from './run.js';
import { openRuntime } from './runtime.js';
import type { RunRuntime } from './runtime.js';

afterEach(() => {
  vi.restoreAllMocks();
});

function countingTool(name: string, gated: boolean): Tool & { readonly runs: string[] } {
  const runs: string[] = [];
  const tool = testTool({
    name,
    gated,
    execute: (input) => {
      runs.push(input);
      return completed(JSON.stringify({ ran: name }));
    },
  });
  return Object.assign(tool, { runs });
}

async function runtimeWith(
  provider: ScriptedProvider,
  opts: { tools?: readonly Tool[]; sessions?: SessionStore; yaml?: string } = {},
): Promise<RunRuntime> {
  const config = parseConfigForMode({ text: `identity: hostunit\nsystem_prompt: You test.\nllm:\n  model: m\n${opts.yaml ?? ''}` }, 'run');
  const runtime = await openRuntime(config, 'run', { env: { PATH: process.env['PATH'] }, provider, customTools: opts.tools ?? [] });
  return opts.sessions === undefined ? runtime : { ...runtime, sessions: opts.sessions };
}

function questions(handle: RunHandle): AgentEvent[] {
  const seen: AgentEvent[] = [];
  handle.subscribe({ emit: (e) => (e.type === 'question' ? seen.push(e) : undefined) });
  return seen;
}

async function firstQuestion(handle: RunHandle): Promise<string> {
  return new Promise((resolve) => {
    handle.subscribe({ emit: (e) => (e.type === 'question' && e.id !== undefined ? resolve(e.id) : undefined) });
  });
}

function userTexts(messages: readonly Message[]): string[] {
  return messages.filter((m) => m.role === 'user').flatMap((m) => m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])));
}

describe('startRun with prompter: handle', () => {
  it('puts a gated call out as a question with an id and runs it once answered by that id', async () => {
    const tool = countingTool('deploy', true);
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'deploy', input: {} }]), textResponse('done')]);
    const runtime = await runtimeWith(provider, { tools: [tool] });
    const handle = await startRun(runtime, { prompt: 'deploy it' }, { prompter: 'handle' });
    const id = await firstQuestion(handle);
    expect(tool.runs).toEqual([]);
    expect(handle.answer('no-such-question', 'once')).toBe(false);
    expect(handle.answer(id, 'once')).toBe(true);
    expect(handle.answer(id, 'once')).toBe(false);
    expect((await handle.outcome).status).toBe('completed');
    expect(tool.runs).toHaveLength(1);
    await handle.close();
    await runtime.close();
  });

  it('a declined question leaves the tool unrun and tells the model so', async () => {
    const tool = countingTool('deploy', true);
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'deploy', input: {} }]), textResponse('ok, not deployed')]);
    const runtime = await runtimeWith(provider, { tools: [tool] });
    const handle = await startRun(runtime, { prompt: 'deploy it' }, { prompter: 'handle' });
    const asked = questions(handle);
    expect(handle.answer(await firstQuestion(handle), 'decline')).toBe(true);
    expect((await handle.outcome).status).toBe('completed');
    expect(asked).toHaveLength(1);
    expect(tool.runs).toEqual([]);
    expect(JSON.stringify(provider.requests[1]?.messages)).toContain('the operator declined this call');
    await handle.close();
    await runtime.close();
  });
});

describe('followUp', () => {
  it('continues the session: a user record is journaled, and the stored run a resume loads holds both turns', async () => {
    const store = memorySessionStore();
    const provider = new ScriptedProvider([textResponse('first answer'), textResponse('second answer')]);
    const runtime = await runtimeWith(provider, { sessions: store });
    const handle = await startRun(runtime, { prompt: 'first question', checkpoint: { runId: 'follow-1' } });
    expect((await handle.outcome).status).toBe('completed');
    const next = await handle.followUp('second question');
    expect((await next.outcome).status).toBe('completed');
    expect(next.runId).toBe('follow-1');
    // the model saw the whole conversation on the second turn
    expect(userTexts(provider.requests[1]?.messages ?? [])).toEqual(['first question', 'second question']);
    await next.close();
    await handle.close();

    const stored = await loadRun(store, 'follow-1');
    expect(userTexts(stored.messages)).toEqual(['first question', 'second question']);
    expect(JSON.stringify(stored.messages)).toContain('second answer');
    await runtime.close();
  });

  it('refuses to follow a turn that did not complete', async () => {
    const provider = new ScriptedProvider([new Error('the model is down')]);
    const runtime = await runtimeWith(provider);
    const handle = await startRun(runtime, { prompt: 'hello' });
    expect((await handle.outcome).status).not.toBe('completed');
    await expect(handle.followUp('again')).rejects.toThrow(/follow-up continues a completed turn/);
    await handle.close();
    await runtime.close();
  });
});

describe('twoStageInterrupt', () => {
  it('suspends a journaled run first, then cancels, then says to leave', async () => {
    const store = memorySessionStore();
    const provider = new ScriptedProvider([hangingStep()]);
    const runtime = await runtimeWith(provider, { sessions: store });
    const handle = await startRun(runtime, { prompt: 'wait', checkpoint: { runId: 'int-1' } });
    const interrupt = twoStageInterrupt(() => handle);
    expect(interrupt()).toBe('suspending');
    expect(interrupt()).toBe('cancelling');
    const outcome = await handle.outcome;
    expect(outcome.status).toBe('aborted');
    expect(interrupt()).toBe('exit');
    await handle.close();
    await runtime.close();
  });

  it('cancels at once a run that cannot be resumed', async () => {
    const provider = new ScriptedProvider([hangingStep()]);
    const runtime = await runtimeWith(provider);
    const handle = await startRun(runtime, { prompt: 'wait' });
    const interrupt = twoStageInterrupt(() => handle);
    expect(interrupt()).toBe('cancelling');
    expect((await handle.outcome).status).toBe('aborted');
    expect(interrupt()).toBe('exit');
    await handle.close();
    await runtime.close();
  });

  it('with no run yet, a first interrupt cancels nothing and a second says to leave', () => {
    const interrupt = twoStageInterrupt(() => undefined);
    expect(interrupt()).toBe('cancelling');
    expect(interrupt()).toBe('exit');
  });
});

describe('close', () => {
  it('a handle closes its journal once, however often it is closed', async () => {
    const store = memorySessionStore();
    const provider = new ScriptedProvider([textResponse('hi')]);
    const runtime = await runtimeWith(provider, { sessions: store });
    const handle = await startRun(runtime, { prompt: 'hello', checkpoint: { runId: 'close-1' } });
    await handle.outcome;
    await Promise.all([handle.close(), handle.close()]);
    await handle.close();
    // the journal was released: another worker can take the run now
    const again = await store.open('close-1');
    await again.close();
    await runtime.close();
  });

  it('a runtime releases in reverse order of opening, once', async () => {
    const order: string[] = [];
    const pool = vi.spyOn(ConnectionPool.prototype, 'close').mockImplementation(function (this: ConnectionPool) {
      order.push('connections');
      return Promise.resolve();
    });
    const reader = vi.spyOn(KnowledgeReader.prototype, 'close').mockImplementation(function (this: KnowledgeReader) {
      order.push('knowledge');
    });
    const dir = mkdtempSync(join(tmpdir(), 'fisk-host-close-'));
    try {
      mkdirSync(join(dir, 'docs'));
      writeFileSync(join(dir, 'docs/a.md'), '# A\n\nText.\n');
      writeFileSync(
        join(dir, 'agent.yaml'),
        'identity: closer\nsystem_prompt: You test.\nllm:\n  model: m\nharness:\n  knowledge: {enabled: true, paths: [docs], directory: kb}\n',
      );
      expect(await runCli(['knowledge', 'index'], captureIo({}, dir))).toBe(0);
      const config = parseConfigForMode({ path: join(dir, 'agent.yaml') }, 'run');
      const served = await openRuntime(config, 'run', { env: {}, provider: new ScriptedProvider() });
      expect(served.knowledge?.reader).toBeDefined();
      await Promise.all([served.close(), served.close()]);
      await served.close();
      expect(order).toEqual(['knowledge', 'connections']);
      expect(pool).toHaveBeenCalled();
      expect(reader).toHaveBeenCalledTimes(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('budget override', () => {
  const looping = (): ScriptedProvider =>
    new ScriptedProvider(Array.from({ length: 8 }, () => toolUseResponse([{ name: 'noop', input: {} }])));

  it('lowers the configured limit', async () => {
    const provider = looping();
    const runtime = await runtimeWith(provider, { tools: [countingTool('noop', false)], yaml: '  budget: {max_iterations: 5}\n' });
    const handle = await startRun(runtime, { prompt: 'loop' }, { budget: { maxIterations: 2 } });
    const outcome = await handle.outcome;
    expect(outcome.status).toBe('max_iterations');
    expect(provider.requests).toHaveLength(2);
    await handle.close();
    await runtime.close();
  });

  it('never raises it', async () => {
    const provider = looping();
    const runtime = await runtimeWith(provider, { tools: [countingTool('noop', false)], yaml: '  budget: {max_iterations: 3}\n' });
    const handle = await startRun(runtime, { prompt: 'loop' }, { budget: { maxIterations: 7, maxTokens: 10_000_000 } });
    await handle.outcome;
    expect(provider.requests).toHaveLength(3);
    await handle.close();
    await runtime.close();
  });
});
