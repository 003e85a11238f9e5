import { afterEach, describe, expect, it } from 'vitest';
import { hangingStep, ScriptedProvider, textResponse, toolUseResponse } from '../agenttest/scripted-provider.js';
import type { Message } from '../llm/types.js';
import { parseConfigForMode } from '../config/index.js';
import { openRuntime, startRun } from '../host/index.js';
import type { FollowUpOptions, RunHandle, RunRuntime } from '../host/index.js';
import { InputHistory, parseChatInput } from './chat-input.js';
import { ViewController } from './controller.js';
import { eventually } from '../agenttest/eventually.js';

let runtimes: RunRuntime[] = [];
afterEach(async () => {
  for (const r of runtimes) await r.close();
  runtimes = [];
});

async function runtimeWith(provider: ScriptedProvider, yaml = ''): Promise<RunRuntime> {
  const config = parseConfigForMode({ text: `identity: ctl\nsystem_prompt: You test.\nllm:\n  model: m\n${yaml}` }, 'run');
  const r = await openRuntime(config, 'run', { env: { PATH: process.env['PATH'] }, provider });
  runtimes.push(r);
  return r;
}

interface Clock {
  now: number;
  tick: (() => void) | undefined;
}

function controller(runtime: RunRuntime, clock?: Clock, sessions: FollowUpOptions[] = []): ViewController {
  const start = (p: string, options: FollowUpOptions): Promise<RunHandle> => {
    sessions.push(options);
    return startRun(runtime, { prompt: p }, { prompter: 'handle', ...(options.model === undefined ? {} : { model: options.model }) });
  };
  return new ViewController({
    identity: 'ctl',
    startSession: start,
    bell: () => undefined,
    copy: () => undefined,
    verbose: false,
    unfolded: false,
    modelSwitch: true,
    resumeHint: (id) => `fisk run --resume ${id} --config /etc/agent.yaml`,
    ...(clock === undefined
      ? {}
      : {
          now: () => clock.now,
          every: (_ms: number, tick: () => void) => {
            clock.tick = tick;
            return () => (clock.tick = undefined);
          },
        }),
  });
}

async function settled(c: ViewController): Promise<void> {
  await eventually(() => !c.turnActive, 'the turn to end', { observed: () => c.transcript.plain() });
}

const type = (c: ViewController, text: string): void => {
  for (const ch of text) c.key(ch, {});
  c.key('', { return: true });
};

const userTexts = (messages: readonly Message[] | undefined): string[] =>
  (messages ?? []).filter((m) => m.role === 'user').flatMap((m) => m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])));

describe('chat input', () => {
  it('tells commands from prompts; // sends a literal slash', () => {
    expect(parseChatInput('/help')).toEqual({ kind: 'help' });
    expect(parseChatInput('/model  claude-x')).toEqual({ kind: 'model', name: 'claude-x' });
    expect(parseChatInput('/model')).toEqual({ kind: 'model_usage' });
    expect(parseChatInput('/nope now')).toEqual({ kind: 'unknown', command: '/nope' });
    expect(parseChatInput('//etc/hosts is odd')).toEqual({ kind: 'prompt', text: '/etc/hosts is odd' });
    expect(parseChatInput('hello')).toEqual({ kind: 'prompt', text: 'hello' });
  });

  it('walks the history with the draft kept', () => {
    const h = new InputHistory();
    h.add('first');
    h.add('second');
    expect(h.previous('draft')).toBe('second');
    expect(h.previous('second')).toBe('first');
    expect(h.previous('first')).toBe('first');
    expect(h.next('first')).toBe('second');
    expect(h.next('second')).toBe('draft');
  });
});

describe('the chat in the full-screen view', () => {
  it('keeps /help and unknown commands from the model, sends //, switches the model, and recalls prompts', async () => {
    const provider = new ScriptedProvider([textResponse('one'), textResponse('two')]);
    const runtime = await runtimeWith(provider);
    const sessions: FollowUpOptions[] = [];
    const c = controller(runtime, undefined, sessions);
    c.awaitPrompt();
    expect(c.state).toBe('awaiting input');
    type(c, '/help');
    type(c, '/nope');
    expect(c.transcript.plain().join('\n')).toContain('commands (never sent to the model)');
    expect(c.transcript.plain().join('\n')).toContain('/nope is not a command (nothing was sent)');
    expect(provider.requests).toHaveLength(0);
    type(c, '/model other-model');
    type(c, '//tmp is full');
    await settled(c);
    expect(userTexts(provider.requests[0]?.messages)).toEqual(['/tmp is full']);
    expect(provider.requests[0]?.model).toBe('other-model');
    expect(sessions).toEqual([{ model: 'other-model' }]);
    c.key('', { upArrow: true });
    expect(c.frame().bottom).toBe('> //tmp is full█');
    c.key('', { upArrow: true });
    expect(c.frame().bottom).toBe('> /model other-model█');
    c.key('', { downArrow: true });
    c.key('', { downArrow: true });
    expect(c.frame().bottom).toBe('> █');
  });

  it('runs a follow-up to a turn stopped at max_iterations with a fresh iteration budget', async () => {
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'nothing_here', input: {} }]), textResponse('after the stop')]);
    const runtime = await runtimeWith(provider, '  budget:\n    max_iterations: 1\n');
    const c = controller(runtime);
    c.attach(await startRun(runtime, { prompt: 'loop' }, { prompter: 'handle' }), 'loop');
    await settled(c);
    expect(c.state).toBe('error');
    type(c, 'go on');
    await settled(c);
    expect(c.transcript.plain()).toContain('after the stop');
    expect(c.state).toBe('awaiting input');
  });

  it('answers a select with nothing on Enter, and declines an approval with the words typed', async () => {
    const provider = new ScriptedProvider([
      toolUseResponse([{ name: 'ask_human_select', input: { question: 'Which?', options: ['a', 'b'] } }]),
      textResponse('none then'),
    ]);
    const runtime = await runtimeWith(provider, 'harness:\n  human_in_the_loop:\n    enabled: true\n');
    const c = controller(runtime);
    c.attach(await startRun(runtime, { prompt: 'choose' }, { prompter: 'handle' }), 'choose');
    await eventually(() => c.state === 'blocked', 'the view to block on the question', { observed: () => c.state });
    expect(c.frame().modal?.choices).toEqual(['None of these', 'a', 'b']);
    c.key('', { return: true });
    await settled(c);
    const result = (provider.requests[1]?.messages.at(-1)?.content ?? []).find((b) => b.type === 'tool_result');
    expect(result?.type === 'tool_result' ? JSON.parse(result.content) : undefined).toMatchObject({ selected: null });
  });

  it('moves the bar while the model thinks, and stops when it answers', async () => {
    const provider = new ScriptedProvider([hangingStep()]);
    const runtime = await runtimeWith(provider);
    const clock: Clock = { now: 1_000, tick: undefined };
    const c = controller(runtime, clock);
    c.attach(await startRun(runtime, { prompt: 'think' }, { prompter: 'handle' }), 'think');
    const tick = await eventually(() => clock.tick, 'the status bar to start its clock');
    const before = c.frame().bar;
    expect(before).toMatch(/thinking 0s/);
    clock.now += 2_500;
    tick();
    const after = c.frame().bar;
    expect(after).toMatch(/thinking 2s/);
    expect(after).not.toBe(before);
    c.cancelTurn();
    await settled(c);
    expect(c.frame().bar).not.toMatch(/thinking/);
    expect(clock.tick).toBeUndefined();
  });

  it('Esc at the input row clears a search', async () => {
    const runtime = await runtimeWith(new ScriptedProvider([textResponse('alpha beta')]));
    const c = controller(runtime);
    c.attach(await startRun(runtime, { prompt: 'go' }, { prompter: 'handle' }), 'go');
    await settled(c);
    c.key('f', { ctrl: true });
    for (const ch of 'beta') c.key(ch, {});
    c.key('', { return: true });
    expect(c.frame().barRight).toContain('match 1/1');
    c.key('', { escape: true });
    expect(c.frame().barRight).not.toContain('match');
  });
});
