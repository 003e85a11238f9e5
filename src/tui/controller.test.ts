import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { hangingStep, ScriptedProvider, textResponse, toolUseResponse } from '../agenttest/scripted-provider.js';
import { parseConfigForMode } from '../config/index.js';
import { memorySessionStore } from '../runstate/memory-store.js';
import { openRuntime, startRun } from '../host/index.js';
import type { RunHandle, RunRuntime } from '../host/index.js';
import { ViewController } from './controller.js';
import { detectMultiplexer, PaneReporter } from './multiplex.js';
import type { PaneState } from './multiplex.js';
import { Screen, StderrBuffer } from './screen.js';
import { nextBarState } from './status-bar.js';
import { THINKING_FOLD_ROWS, Transcript } from './transcript.js';
import { shouldUseFullScreen } from './select.js';
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

function controller(runtime: RunRuntime, reported: PaneState[] = []): ViewController {
  const start = (p: string): Promise<RunHandle> => startRun(runtime, { prompt: p }, { prompter: 'handle' });
  const pane = new PaneReporter({ name: 'tmux', deliveries: () => [] }, 'ctl', () => undefined);
  const report = pane.report.bind(pane);
  pane.report = (s) => {
    reported.push(s);
    report(s);
  };
  return new ViewController({
    identity: 'ctl',
    startSession: start,
    bell: () => undefined,
    copy: () => undefined,
    pane,
    verbose: false,
    unfolded: false,
  });
}

async function settled(c: ViewController): Promise<void> {
  await eventually(() => !c.turnActive, 'the turn to end', { observed: () => c.transcript.plain() });
}

describe('choosing the full screen', () => {
  it('needs both ends to be terminals and nothing turning it off', () => {
    const none = { flag: false, env: false, config: false };
    expect(shouldUseFullScreen(true, true, none)).toBe(true);
    expect(shouldUseFullScreen(false, true, none)).toBe(false);
    expect(shouldUseFullScreen(true, false, none)).toBe(false);
    expect(shouldUseFullScreen(true, true, { ...none, flag: true })).toBe(false);
    expect(shouldUseFullScreen(true, true, { ...none, env: true })).toBe(false);
    expect(shouldUseFullScreen(true, true, { ...none, config: true })).toBe(false);
  });
});

describe('the status bar', () => {
  it('moves through its states and keeps blocked apart from awaiting input', () => {
    let s = nextBarState('running', { type: 'question' });
    expect(s).toBe('blocked');
    s = nextBarState(s, { type: 'answered' });
    expect(s).toBe('running');
    s = nextBarState(s, { type: 'suspend_requested' });
    expect(s).toBe('suspending');
    expect(nextBarState(s, { type: 'turn_ended', status: 'suspended' })).toBe('suspended');
    expect(nextBarState('running', { type: 'turn_ended', status: 'aborted' })).toBe('aborted');
    expect(nextBarState('running', { type: 'turn_ended', status: 'budget' })).toBe('error');
    const complete = nextBarState('running', { type: 'turn_ended', status: 'completed' });
    expect(complete).toBe('complete');
    expect(nextBarState(complete, { type: 'input_ready' })).toBe('awaiting input');
    expect(nextBarState('aborted', { type: 'input_ready' })).toBe('aborted');
  });
});

describe('the transcript', () => {
  it('folds thinking only above the row estimate, and search reveals a fold that copying leaves out', () => {
    const t = new Transcript({ verbose: false, width: () => 40 });
    t.addEvent({ type: 'thinking', text: 'short thought' });
    t.addEvent({ type: 'thinking', text: Array.from({ length: THINKING_FOLD_ROWS + 1 }, (_, i) => `step ${i}`).join('\n') });
    t.addEvent({ type: 'tool_call', id: '1', name: 'deploy', input: { zone: 'b', app: 'web' } });
    t.addEvent({ type: 'tool_result', call_id: '1', is_error: false, output: 'deployed\nall good' });
    // output that fits on one row is shown: its placeholder would take the same row
    t.addEvent({ type: 'tool_call', id: '2', name: 'status', input: {} });
    t.addEvent({ type: 'tool_result', call_id: '2', is_error: false, output: 'web is up' });
    t.addEvent({ type: 'tool_result', call_id: '2', is_error: false, output: 'x'.repeat(50) });
    expect(t.plain()).toHaveLength(t.markup().length);
    const folded = t.rows({ width: 40, folding: true }).map((r) => r.text);
    expect(folded).toEqual([
      'thinking: short thought',
      'thinking: … 5 lines folded',
      '-> deploy app=web zone=b',
      '<- … 2 lines of output folded',
      '-> status',
      '<- web is up',
      '<- … 1 line of output folded',
    ]);
    const hits = t.search('ALL GOOD');
    expect(hits).toHaveLength(1);
    const revealed = t.rows({ width: 40, folding: true, revealed: new Set(hits) }).map((r) => r.text);
    expect(revealed).toContain('   all good');
    expect(revealed).toContain('thinking: … 5 lines folded');
    expect(t.copyText(true)).toBe('thinking: short thought\n-> deploy app=web zone=b\n-> status\n<- web is up');
    expect(t.copyText(false)).toContain('step 4');
  });

  it('grows a streamed line in place without touching earlier lines', () => {
    const t = new Transcript({ verbose: false, width: () => 80 });
    t.add('prompt', '> hi');
    t.addEvent({ type: 'status', iteration: 0, phase: 'model_call', usage: { input_tokens: 0, output_tokens: 0 } });
    t.addEvent({ type: 'text_fragment', text: 'Hel' });
    t.addEvent({ type: 'text_fragment', text: 'lo\nwor' });
    t.addEvent({ type: 'text_fragment', text: 'ld\u001b[2J' });
    t.addEvent({ type: 'text', text: 'Hello\nworld', final: true });
    expect(t.plain()).toEqual(['> hi', 'Hello', 'world']);
  });
});

describe('the view controller', () => {
  it('keeps tail-follow off after scrolling back down by keys, and re-arms it for the mouse and End', async () => {
    const long = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n');
    const runtime = await runtimeWith(new ScriptedProvider([textResponse(long)]));
    const c = controller(runtime);
    c.resize(40, 10);
    c.attach(await startRun(runtime, { prompt: 'go' }, { prompter: 'handle' }), 'go');
    await settled(c);
    expect(c.frame().rows.at(-1)?.text).toBe('line 39');
    c.key('', { pageUp: true });
    expect(c.following).toBe(false);
    for (let i = 0; i < 4; i++) c.key('', { pageDown: true });
    expect(c.frame().rows.at(-1)?.text).toBe('line 39');
    expect(c.following).toBe(false);
    c.key('', { pageUp: true });
    c.key('[<65;5;5M[<65;5;5M[<65;5;5M', {});
    expect(c.following).toBe(true);
    c.key('', { home: true });
    expect(c.frame().rows[0]?.text).toBe('> go');
    c.key('', { end: true });
    expect(c.following).toBe(true);
  });

  it('lets the interrupt through a question: the question is declined and the run stops', async () => {
    const provider = new ScriptedProvider([
      toolUseResponse([{ name: 'ask_human_confirm', input: { question: 'Proceed?' } }]),
      hangingStep(),
    ]);
    const runtime = await runtimeWith(provider, 'harness:\n  human_in_the_loop:\n    enabled: true\n');
    const reported: PaneState[] = [];
    const c = controller(runtime, reported);
    const handle = await startRun(runtime, { prompt: 'ask' }, { prompter: 'handle' });
    c.attach(handle, 'ask');
    await eventually(() => c.state === 'blocked', 'the view to block on the question', { observed: () => c.state });
    expect(c.frame().modal?.choices).toEqual(['No', 'Yes']);
    c.key('x', {});
    expect(c.state).toBe('blocked');
    c.key('c', { ctrl: true });
    await settled(c);
    // a run kept in memory cannot suspend, so the interrupt cancels it
    expect(c.state).toBe('aborted');
    expect(reported.slice(0, 2)).toEqual(['working', 'blocked']);
    expect(reported.at(-1)).toBe('idle');
    // a stopped conversation takes no follow-up: the view says why and the bar keeps its word
    for (const ch of 'more') c.key(ch, {});
    c.key('', { return: true });
    await eventually(() => c.transcript.plain().some((l) => l.startsWith('warning: a follow-up')), 'the warning about the follow-up', {
      observed: () => c.transcript.plain(),
    });
    expect(c.transcript.plain().at(-1)).toMatch(/^warning: a follow-up continues a completed turn; this one ended aborted/);
    expect(c.state).toBe('aborted');
  });

  it('says an answer the run outlived after the turn, before the input row, and never sends it on', async () => {
    const provider = new ScriptedProvider([
      toolUseResponse([{ name: 'ask_human_confirm', input: { question: 'Proceed?' } }]),
      hangingStep(),
    ]);
    const runtime = await runtimeWith(provider, 'harness:\n  human_in_the_loop:\n    enabled: true\n');
    const c = controller(runtime);
    const handle = await startRun(runtime, { prompt: 'ask' }, { prompter: 'handle' });
    c.attach(handle, 'ask');
    await eventually(() => c.state === 'blocked', 'the view to block on the question', { observed: () => c.state });
    // the run stops waiting (cancelled elsewhere) while the question is still on screen
    handle.cancel();
    c.key('2', {});
    await settled(c);
    const lines = c.transcript.plain();
    expect(lines.at(-1)).toBe('an answer (yes) came after the run stopped waiting for "Proceed?"; it was not used');
    expect(lines.at(-2)).toMatch(/^stopped: /);
    expect(c.frame().bottom).toBe('> █');
  });

  it('starts a new conversation after /clear and keeps the scrollback', async () => {
    const provider = new ScriptedProvider([textResponse('first'), textResponse('second')]);
    const runtime = await runtimeWith(provider);
    const c = controller(runtime);
    c.attach(await startRun(runtime, { prompt: 'one' }, { prompter: 'handle' }), 'one');
    await settled(c);
    for (const ch of '/clear') c.key(ch, {});
    c.key('', { return: true });
    for (const ch of 'two') c.key(ch, {});
    c.key('', { return: true });
    await eventually(() => c.transcript.plain().includes('second'), 'the second answer', { observed: () => c.transcript.plain() });
    await settled(c);
    expect(c.transcript.plain()).toContain('first');
    // a new conversation: the second request carries only its own prompt
    expect(provider.requests[1]?.messages).toHaveLength(1);
    c.key('d', { ctrl: true });
    const result = await c.left;
    expect(result.handles).toHaveLength(2);
  });

  it('keeps the changes a forced resume let through among the warnings reprinted on leaving', async () => {
    const sessions = memorySessionStore();
    const provider = new ScriptedProvider([
      toolUseResponse([{ name: 'ask_human_confirm', input: { question: 'Go on?' } }]),
      textResponse('went on'),
    ]);
    const yaml = 'harness:\n  human_in_the_loop:\n    enabled: true\n';
    const before = { ...(await runtimeWith(provider, yaml)), sessions };
    const first = await startRun(before, { prompt: 'go', checkpoint: { runId: 'forced-1' } }, { prompter: 'handle' });
    const asked = await new Promise<string>((resolve) =>
      first.subscribe({ emit: (e) => (e.type === 'question' && e.id !== undefined ? resolve(e.id) : undefined) }),
    );
    first.suspend();
    first.answer(asked, true);
    expect((await first.outcome).status).toBe('suspended');
    await first.close();
    const config = parseConfigForMode({ text: `identity: ctl\nsystem_prompt: You test.\nllm:\n  model: m2\n${yaml}` }, 'run');
    const after = { ...(await openRuntime(config, 'run', { env: { PATH: process.env['PATH'] }, provider })), sessions };
    runtimes.push(after);
    const c = controller(after);
    c.attach(await startRun(after, { resume: 'forced-1', force: true }, { prompter: 'handle' }));
    await settled(c);
    c.key('d', { ctrl: true });
    const result = await c.left;
    expect(result.warnings.some((w) => w.startsWith('resuming under a changed configuration (--force): ') && w.includes('model'))).toBe(
      true,
    );
    expect(c.transcript.plain().some((l) => l.startsWith('warning: resuming under a changed configuration (--force): '))).toBe(true);
    for (const h of result.handles) await h.close();
  });

  it('says how to resume a journaled turn a limit stopped, and nothing of resuming for one kept in memory', async () => {
    const sessions = memorySessionStore();
    const yaml = '  budget:\n    max_iterations: 1\n';
    const runtime = { ...(await runtimeWith(new ScriptedProvider([toolUseResponse([{ name: 'nope' }]), hangingStep()]), yaml)), sessions };
    const c = controller(runtime);
    c.attach(await startRun(runtime, { prompt: 'x', checkpoint: { runId: 'limited-1' } }, { prompter: 'handle' }), 'x');
    await settled(c);
    expect(
      c.transcript
        .plain()
        .some((l) => l.startsWith('stopped: ') && l.endsWith('; once the cause is fixed, resume it with fisk run --resume limited-1')),
    ).toBe(true);
    const memory = await runtimeWith(new ScriptedProvider([toolUseResponse([{ name: 'nope' }]), hangingStep()]), yaml);
    const d = controller(memory);
    d.attach(await startRun(memory, { prompt: 'x' }, { prompter: 'handle' }), 'x');
    await settled(d);
    const stopped = d.transcript.plain().filter((l) => l.startsWith('stopped: '));
    expect(stopped).toHaveLength(1);
    expect(stopped[0]).not.toContain('resume');
  });

  it('says a model that stops at a limit in the transcript and turns the bar to error', async () => {
    const runtime = await runtimeWith(
      new ScriptedProvider([toolUseResponse([{ name: 'nope' }]), hangingStep()]),
      '  budget:\n    max_iterations: 1\n',
    );
    const c = controller(runtime);
    c.attach(await startRun(runtime, { prompt: 'x' }, { prompter: 'handle' }), 'x');
    await settled(c);
    expect(c.state).toBe('error');
    expect(c.transcript.plain().some((l) => l.startsWith('stopped: '))).toBe(true);
  });
});

describe('multiplexer reporting', () => {
  it('is claimed by the first multiplexer the environment names, and by none outside a pane', () => {
    expect(detectMultiplexer({})).toBeUndefined();
    expect(detectMultiplexer({ TMUX: '/tmp/tmux-0/default,1,0', TMUX_PANE: '%3', ZELLIJ: '0' })?.name).toBe('tmux');
    expect(detectMultiplexer({ ZELLIJ: '0' })?.name).toBe('zellij');
    expect(detectMultiplexer({ WEZTERM_PANE: '2' })?.deliveries('a\u001bb', 'idle')).toEqual([
      { write: '\u001b]1337;SetUserVar=fisk_ai_state=aWRsZQ==\u0007\u001b]2;ab\u0007' },
    ]);
    const tmux = detectMultiplexer({ TMUX: 'x', TMUX_PANE: '%3' });
    expect(tmux?.deliveries('worker', 'blocked')).toEqual([
      { program: 'tmux', args: ['select-pane', '-t', '%3', '-T', 'worker'] },
      { program: 'tmux', args: ['set-option', '-p', '-t', '%3', '@fisk_ai_state', 'blocked'] },
    ]);
  });

  it('returns at once, sends the newest state, and drops a failed or throwing delivery', async () => {
    const sent: string[] = [];
    let calls = 0;
    const reporter = new PaneReporter(
      detectMultiplexer({ TMUX: 'x' }),
      'w',
      () => undefined,
      (_p, args) => {
        calls++;
        sent.push(args.at(-1) ?? '');
        if (calls === 2) throw new Error('tmux went away');
        return Promise.resolve(false);
      },
    );
    reporter.report('working');
    reporter.report('blocked');
    reporter.report('idle');
    expect(sent).toEqual([]);
    await reporter.settled();
    // only the newest state went out; the delivery that threw was dropped
    expect(sent).toEqual(['w', 'idle']);
    reporter.report('blocked');
    await reporter.settled();
    expect(sent.at(-1)).toBe('blocked');
  });
});

describe('the screen', () => {
  it('holds standard error until the terminal is restored, and restores once', () => {
    let out = '';
    let err = '';
    const stdout = new Writable({
      write(c: Buffer | string, _e, cb) {
        out += c.toString();
        cb();
      },
    });
    const errStream = new Writable({
      write(c: Buffer | string, _e, cb) {
        err += c.toString();
        cb();
      },
    }) as unknown as NodeJS.WriteStream;
    let raw: boolean[] = [];
    const stdin = Object.assign(new Writable(), {
      isTTY: true,
      setRawMode: (m: boolean) => (raw = [...raw, m]),
    }) as unknown as NodeJS.ReadStream;
    const buffer = new StderrBuffer(errStream);
    const screen = new Screen({ stdout, stdin }, buffer);
    let unmounted = 0;
    screen.onRestore(() => unmounted++);
    screen.enter();
    errStream.write('library noise\n');
    expect(err).toBe('');
    expect(buffer.held()).toBe('library noise\n');
    expect(out).toContain('\u001b[?1049h');
    screen.restore();
    screen.restore();
    expect(unmounted).toBe(1);
    expect(raw).toEqual([false]);
    expect(out.split('\u001b[?1049l')).toHaveLength(2);
    expect(err).toBe('library noise\n');
    errStream.write('after\n');
    expect(err).toBe('library noise\nafter\n');
  });
});
