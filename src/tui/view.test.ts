import { completed, testTool } from '../agenttest/test-tool.js';
import { PassThrough, Writable } from 'node:stream';
import chalk from 'chalk';
import { applyTerminalColours, loadInk } from './ink.js';
import { createElement } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedProvider, textResponse, toolUseResponse } from '../agenttest/scripted-provider.js';
import { parseConfigForMode } from '../config/index.js';
import { openRuntime, startRun } from '../host/index.js';
import type { RunHandle, RunRuntime } from '../host/index.js';
import type { Tool } from '../toolkit/tool.js';
import { memorySessionStore } from '../runstate/memory-store.js';
import { HostTelemetry } from '../host/index.js';
import { answerOf } from '../agent/outcome.js';
import { summaryLine } from '../render/summary.js';
import { cardLines, localCard, telemetryOfHost } from './card.js';
import type { StartupCard } from './card.js';
import { chatOutcome } from './chat-outcome.js';
import { ViewController } from './controller.js';
import { runFullScreen } from './index.js';
import { StderrBuffer } from './screen.js';
import { headless } from '../../test/tui/headless-terminal.js';
import type { Screen } from '../../test/tui/headless-terminal.js';
import { FullScreen } from './view.js';

const { render } = await loadInk();

function gatedTool(name: string, runs: string[]): Tool {
  return testTool({
    name,
    properties: { target: { type: 'string' }, count: { type: 'number' } },
    gated: true,
    execute: (input) => {
      runs.push(input);
      return completed('purged 12 messages\nfreed 4 MB\nkept the audit copy');
    },
  });
}

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function runtimeWith(provider: ScriptedProvider, tools: readonly Tool[]): Promise<RunRuntime> {
  const config = parseConfigForMode({ text: 'identity: screenunit\nsystem_prompt: You test.\nllm:\n  model: m\n' }, 'run');
  return openRuntime(config, 'run', { env: { PATH: process.env['PATH'] }, provider, customTools: tools });
}

async function show(
  runtime: RunRuntime,
  prompt: string | undefined,
  options: { readonly card?: (first: RunHandle) => StartupCard; readonly first?: RunHandle } = {},
): Promise<{ screen: Screen; controller: ViewController; bells: () => number; copied: string[] }> {
  const screen = headless();
  let bells = 0;
  const copied: string[] = [];
  const start = (p: string): Promise<RunHandle> => startRun(runtime, { prompt: p }, { prompter: 'handle', interactive: true });
  const first = options.first ?? (await start(prompt ?? ''));
  const card = options.card?.(first);
  const controller = new ViewController({
    identity: 'screenunit',
    startSession: start,
    bell: () => bells++,
    copy: (t) => copied.push(t),
    verbose: false,
    unfolded: false,
    ...(card === undefined ? {} : { card }),
  });
  const ink = render(createElement(FullScreen, { controller }), {
    stdout: screen.stdout,
    stdin: screen.stdin,
    exitOnCtrlC: false,
    patchConsole: false,
    maxFps: 1000,
  });
  cleanup.push(() => {
    ink.unmount();
    ink.cleanup();
  });
  controller.attach(first, prompt);
  return { screen, controller, bells: () => bells, copied };
}

describe('the full-screen view in a terminal', () => {
  it('puts an approval up as a modal with No first, blocks the bar in its own word, and declines on Enter', async () => {
    const runs: string[] = [];
    const provider = new ScriptedProvider([
      toolUseResponse([{ name: 'purge', input: { target: 'orders', count: 2 } }], { text: 'Purging.' }),
      textResponse('Nothing was purged.', { usage: { input: 100, output: 20, cacheRead: 30, cacheWrite: 4 } }),
    ]);
    const runtime = await runtimeWith(provider, [gatedTool('purge', runs)]);
    cleanup.push(() => runtime.close());
    const { screen, controller, bells } = await show(runtime, 'purge the orders');
    const blocked = await screen.until('BLOCKED');
    expect(blocked).toMatchInlineSnapshot(`
      "> purge the orders
      Purging.
      -> purge count=2 target=orders



      ╭──────────────────────────────────────────────────────────────────────╮
      │ Approval needed to run (gated by ai:confirm):                        │
      │   purge count=2 target=orders                                        │
      │ › 1) No, do not run it                                               │
      │   2) Yes, run it once                                                │
      │   3) Yes, and allow it for the rest of this run                      │
      │   4) No, and tell the agent what to do instead                       │
      ╰──────────────────────────────────────────────────────────────────────╯
      Enter answers · Esc declines · Ctrl-C stops the run
       BLOCKED │ screenunit │ tokens 0                             folding on"
    `);
    expect(bells()).toBe(1);
    screen.press('\r');
    const done = await screen.until('AWAITING INPUT');
    expect(done).toMatchInlineSnapshot(`
      "> purge the orders
      Purging.
      -> purge count=2 target=orders
      approval: purge declined (gated by ai:confirm)
      <- refused: the operator declined this call; the decision is final, so d
      o not retry it or reach the same effect another way
      Nothing was purged.







      > █
       AWAITING INPUT │ screenunit │ tokens 154                    folding on"
    `);
    expect(runs).toEqual([]);
    expect(controller.tokens.settled).toEqual({ input: 100, output: 20, cacheRead: 30, cacheWrite: 4 });
    expect(done).toContain('tokens 154');
  });

  it('folds tool output, reveals it for a search match, leaves it out of a copy, and takes a follow-up in the same conversation', async () => {
    const runs: string[] = [];
    const provider = new ScriptedProvider([
      toolUseResponse([{ name: 'purge', input: { target: 'orders' } }]),
      textResponse('Purged.'),
      textResponse('Still purged.'),
    ]);
    const runtime = await runtimeWith(provider, [gatedTool('purge', runs)]);
    cleanup.push(() => runtime.close());
    const { screen, copied } = await show(runtime, 'purge');
    await screen.until('BLOCKED');
    screen.press('2');
    const folded = await screen.until('AWAITING INPUT');
    expect(folded).toContain('<- … 3 lines of output folded');
    expect(folded).not.toContain('freed 4 MB');
    screen.press('\u0019'); // Ctrl-Y copies
    await screen.until('copied');
    expect(copied[0]).toContain('-> purge target=orders');
    expect(copied[0]).not.toContain('freed 4 MB');
    expect(copied[0]).not.toContain('folded');
    screen.press('\u0006'); // Ctrl-F searches
    await screen.until(/^\/$/m);
    screen.press('freed\r');
    const found = await screen.until('match 1/1');
    expect(found).toMatchInlineSnapshot(`
      "> purge
      -> purge target=orders
      approval: purge approved once (gated by ai:confirm)
      <- purged 12 messages
         freed 4 MB
         kept the audit copy
      Purged.







      > █
       AWAITING INPUT │ screenunit │ tokens 0  match 1/1 · scrolled · folding…"
    `);
    screen.press('and again\r');
    const followed = await screen.until('Still purged.');
    expect(followed).toContain('> and again');
    // the follow-up carried the whole conversation: one session, three model calls
    expect(provider.requests).toHaveLength(3);
    expect(JSON.stringify(provider.requests[2]?.messages)).toContain('purge');
  });
});

describe('the startup card, resumed tokens and the chat summary', () => {
  it('opens on the startup card, naming the identity, model, tools, session and telemetry', async () => {
    const provider = new ScriptedProvider([textResponse('Hello.')]);
    const runtime = await runtimeWith(provider, [gatedTool('purge', []), gatedTool('restore', [])]);
    cleanup.push(() => runtime.close());
    const telemetry = await HostTelemetry.open(runtime.config, { env: {} });
    const { screen } = await show(runtime, 'hi', { card: (first) => localCard(runtime, first, telemetry) });
    const done = await screen.until('AWAITING INPUT');
    expect(done).toMatchInlineSnapshot(`
      "screenunit
      model      m (scripted)
      tools      2: purge, restore
      session    kept in memory (not journaled)
      telemetry  off
      > hi
      Hello.







      > █
       AWAITING INPUT │ screenunit │ tokens 0                      folding on"
    `);
  });

  it('tells exporting, off, turned off by a switch and unknown apart in the telemetry row', async () => {
    const yaml =
      'identity: cardunit\nsystem_prompt: You test.\nllm:\n  model: m\ntelemetry:\n  enabled: true\n  endpoint: http://127.0.0.1:9\n';
    const enabled = parseConfigForMode({ text: yaml }, 'run');
    const plain = parseConfigForMode({ text: 'identity: cardunit\nsystem_prompt: You test.\nllm:\n  model: m\n' }, 'run');
    const exporting = await HostTelemetry.open(enabled, { env: {}, exportTimeoutMs: 200 });
    cleanup.push(async () => void (await exporting.finish()));
    const row = (t: Parameters<typeof cardLines>[0]['telemetry']): string =>
      cardLines({
        identity: 'cardunit',
        model: 'm',
        provider: 'anthropic',
        tools: [],
        session: undefined,
        resumed: false,
        telemetry: t,
      }).at(-1) ?? '';
    expect(row(telemetryOfHost(exporting, true))).toBe('telemetry  exporting to http://127.0.0.1:9/v1/traces, content not captured');
    expect(row(telemetryOfHost(await HostTelemetry.open(enabled, { env: {}, disabled: true }), true))).toBe(
      'telemetry  off: turned off by --no-telemetry (the configuration enables it)',
    );
    expect(row(telemetryOfHost(await HostTelemetry.open(enabled, { env: { FISK_AI_TELEMETRY: 'off' } }), true))).toBe(
      'telemetry  off: turned off by FISK_AI_TELEMETRY (the configuration enables it)',
    );
    expect(row(telemetryOfHost(await HostTelemetry.open(plain, { env: {}, disabled: true }), false))).toBe('telemetry  off');
    expect(row(telemetryOfHost(await HostTelemetry.open(plain, { env: {} }), false))).toBe('telemetry  off');
    expect(row({ state: 'unknown' })).toBe('telemetry  unknown: the agent did not say');
    const many = cardLines({
      identity: 'x',
      model: 'm',
      provider: '',
      tools: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'],
      session: 'run-1',
      resumed: true,
      telemetry: { state: 'off' },
    });
    expect(many.slice(1, 4)).toEqual(['model      m', 'tools      8: a, b, c, d, e, f, and 2 more', 'session    run-1 (resumed)']);
  });

  it("starts a resumed session's token count from what its journaled turns used", async () => {
    const sessions = memorySessionStore();
    const provider = new ScriptedProvider([
      toolUseResponse([{ name: 'purge', input: { target: 'orders' } }], {
        usage: { input: 1000, output: 200, cacheRead: 300, cacheWrite: 40 },
      }),
      textResponse('Resumed and done.', { usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 } }),
    ]);
    const runtime = { ...(await runtimeWith(provider, [gatedTool('purge', [])])), sessions };
    cleanup.push(() => runtime.close());
    const first = await startRun(runtime, { prompt: 'purge', checkpoint: { runId: 'seed-1' } }, { prompter: 'handle' });
    const asked = await new Promise<string>((resolve) =>
      first.subscribe({ emit: (e) => (e.type === 'question' && e.id !== undefined ? resolve(e.id) : undefined) }),
    );
    first.suspend();
    first.answer(asked, 'decline');
    expect((await first.outcome).status).toBe('suspended');
    await first.close();

    const resumed = await startRun(runtime, { resume: 'seed-1' }, { prompter: 'handle', interactive: true });
    const { screen, controller } = await show(runtime, undefined, { first: resumed });
    const done = await screen.until('AWAITING INPUT');
    expect(done).toMatchInlineSnapshot(`
      "> purge
      -> purge target=orders
      approval: purge declined (gated by ai:confirm)
      <- refused: the operator declined this call; the decision is final, so d
      o not retry it or reach the same effect another way
      resuming run seed-1 at iteration 2
      Resumed and done.







      > █
       AWAITING INPUT │ screenunit │ tokens 1,555                  folding on"
    `);
    // 1540 journaled before the view opened, 15 since
    expect(controller.tokens.settled).toEqual({ input: 1010, output: 205, cacheRead: 300, cacheWrite: 40 });
    expect(done).toContain('tokens 1,555');
    await resumed.close();
  });

  it('counts every turn of the chat in the exit summary, follow-ups and new conversations included', async () => {
    const provider = new ScriptedProvider([
      textResponse('One.', { usage: { input: 100, output: 10, cacheRead: 0, cacheWrite: 0 } }),
      textResponse('Two.', { usage: { input: 200, output: 20, cacheRead: 50, cacheWrite: 0 } }),
      textResponse('Three.', { usage: { input: 300, output: 30, cacheRead: 0, cacheWrite: 0 } }),
    ]);
    const runtime = await runtimeWith(provider, []);
    cleanup.push(() => runtime.close());
    const { screen, controller } = await show(runtime, 'one');
    await screen.until('One.');
    screen.press('two\r');
    await screen.until('Two.');
    screen.press('/clear\r');
    await screen.until('a new conversation');
    screen.press('three\r');
    await screen.until('Three.');
    await screen.until('AWAITING INPUT');
    screen.press('\u0004');
    const result = await controller.left;
    expect(result.outcomes).toHaveLength(3);
    const chat = chatOutcome(result.outcome as NonNullable<typeof result.outcome>, result.outcomes);
    expect(answerOf(chat)).toBe('Three.');
    expect(summaryLine(chat, { verbose: false })).toMatch(
      /^Run summary: model=m llm_calls=3 tool_calls=0 tokens=650\/60 cached=50 latency=/,
    );
    for (const h of result.handles) await h.close();
  });
});

describe('taking and giving back the terminal', () => {
  it('takes its colours from the terminal whatever a CI variable says, none with --no-color, and puts them back', () => {
    const before = chalk.level;
    const asked: object[] = [];
    const terminal = Object.assign(new PassThrough(), { getColorDepth: (env?: object) => (asked.push(env ?? {}), 8) });
    const undo = applyTerminalColours(terminal, { CI: 'true', CONTINUOUS_INTEGRATION: '1', TERM: 'xterm-256color' }, true);
    expect(chalk.level).toBe(2);
    expect(asked).toEqual([{ TERM: 'xterm-256color' }]);
    undo();
    expect(chalk.level).toBe(before);
    const plain = applyTerminalColours(terminal, { TERM: 'xterm-256color' }, false);
    expect(chalk.level).toBe(0);
    plain();
    expect(chalk.level).toBe(before);
  });

  it('restores the screen once on leaving, rings no bell with no_bell, and writes held standard error after', async () => {
    const provider = new ScriptedProvider([toolUseResponse([{ name: 'purge', input: { target: 'x' } }]), textResponse('Done.')]);
    const runtime = await runtimeWith(provider, [gatedTool('purge', [])]);
    cleanup.push(() => runtime.close());
    let raw = '';
    const screen = headless((c) => (raw += c));
    const order: string[] = [];
    const err = new Writable({
      write(c: Buffer | string, _e, cb) {
        order.push(`stderr:${c.toString()}`);
        cb();
      },
    }) as unknown as NodeJS.WriteStream;
    const start = (p: string): Promise<RunHandle> => startRun(runtime, { prompt: p }, { prompter: 'handle' });
    const running = runFullScreen({
      handle: await start('go'),
      prompt: 'go',
      identity: 'screenunit',
      startSession: start,
      verbose: false,
      toolOutput: false,
      noBell: true,
      env: {},
      stdout: screen.stdout,
      stdin: screen.stdin,
      stderr: new StderrBuffer(err),
    });
    await screen.until('BLOCKED');
    err.write('noise from a library\n');
    expect(order).toEqual([]);
    screen.press('\u001b');
    await screen.until('AWAITING INPUT');
    screen.press('\u0004'); // Ctrl-D at an empty input row leaves
    const result = await running;
    order.push('restored');
    expect(result.outcome?.status).toBe('completed');
    expect(result.abandoned).toBe(false);
    expect(raw).not.toContain('\u0007');
    expect(raw.split('\u001b[?1049h')).toHaveLength(2);
    expect(raw.split('\u001b[?1049l')).toHaveLength(2);
    expect(raw.lastIndexOf('\u001b[?1049l')).toBeGreaterThan(raw.lastIndexOf('AWAITING INPUT'));
    expect(order).toEqual(['stderr:noise from a library\n', 'restored']);
  });
});
