/**
 * Starting and stopping the full-screen view, driven as a person drives it: the built CLI in a real
 * tmux pane (its own server socket). The startup card counts the tools before any prompt, and a
 * Ctrl-C while the approval box is up cancels the run before the call, leaving the question
 * unanswered, says in the view how to resume it, and on leaving gives the terminal back with the
 * resume hint printed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { anthropicEventStream, streamIfAsked } from '../../src/agenttest/sse-wire.js';
import { hasTmux, tmuxPane } from '../tui/tmux.js';
import { MAIN, paneAgent, runFisk } from './support.js';

const SOCKET = `fisk-stop-${process.pid}`;
const CARD = 'card';
const STOP = 'stop';
const PAUSE = 'pause';
const card = tmuxPane(SOCKET, CARD);
const stop = tmuxPane(SOCKET, STOP);
const pause = tmuxPane(SOCKET, PAUSE);
const agent = paneAgent('pane-stopper', card);

const commandLine = (args: readonly string[]): string => [process.execPath, MAIN, ...args].map((a) => `'${a}'`).join(' ');
const finished = (file: string) => () => existsSync(file) && readFileSync(file, 'utf8').trim() !== '';

describe.skipIf(!hasTmux)('starting and stopping the full-screen view, in tmux', () => {
  it('counts the tools on the startup card before the first prompt', async () => {
    const { fake, dir } = agent;
    const done = join(dir, 'card-status');
    card.run(
      'new-session',
      '-d',
      '-s',
      CARD,
      '-x',
      '90',
      '-y',
      '24',
      '-c',
      dir,
      `${commandLine(['run', '--base-url', fake.url, '--api-key', 'k'])} 2> card-errors.txt; echo $? > '${done}'; sleep 600`,
    );
    const shown = await card.until((t) => t.includes('AWAITING INPUT'), 'the view waiting for a first prompt');
    const rows = shown.split('\n');
    expect(rows[0]).toBe('pane-stopper');
    expect(rows[2]).toMatch(/^tools {6}11: echo, stream_ls, stream_rm, stream_purge, /);
    expect(shown).not.toContain('unknown');
    // nothing was asked of the model to count them
    expect(fake.requests).toHaveLength(0);
    card.run('send-keys', '-t', CARD, 'C-d');
    await card.until(finished(done), 'the process ending');
    expect(readFileSync(done, 'utf8').trim()).toBe('0');
  }, 200_000);

  it('stops a journaled run at the approval box on Ctrl-C: the call is not run, the view says how to resume, and leaving restores the terminal', async () => {
    const { fake, dir } = agent;
    fake.reply(
      streamIfAsked(anthropicToolUse([{ id: 'toolu_p', name: 'stream_purge', input: { stream: 'orders' } }]), anthropicEventStream),
    );
    const done = join(dir, 'stop-status');
    const state = join(dir, 'runs');
    const args = [
      'run',
      '--checkpoint',
      '--name',
      'stopped-at-box',
      '--state-dir',
      state,
      '--base-url',
      fake.url,
      '--api-key',
      'k',
      'purge',
      'orders',
    ];
    stop.run(
      'new-session',
      '-d',
      '-s',
      STOP,
      '-x',
      '240',
      '-y',
      '24',
      '-c',
      dir,
      `${commandLine(args)} 2> stop-errors.txt; echo $? > '${done}'; sleep 600`,
    );
    await stop.until((t) => t.includes('BLOCKED') && t.includes('No, do not run it'), 'the approval box');
    const alternate = (): string => stop.run('display-message', '-p', '-t', STOP, '#{alternate_on}').trim();
    expect(alternate()).toBe('1');

    stop.run('send-keys', '-t', STOP, 'C-c');
    // the view says, where the turn ended, why it stopped and how to resume it: the same
    // configuration and state directory, so the question is asked again
    const hint = `fisk run --resume stopped-at-box --config ${join(dir, 'agent.yaml')} --state-dir ${state}`;
    const ended = await stop.until((t) => t.includes('ABORTED'), 'the cancelled turn');
    expect(ended).not.toContain('No, do not run it');
    expect(ended).toContain('the question was left unanswered');
    expect(ended).toContain('approval: stream_purge not decided: the run was cancelled (gated by ai:confirm)');
    expect(ended).toContain(`stopped: the run was cancelled while a call waited for approval; resume with ${hint}`);
    expect(fake.requests).toHaveLength(1);

    stop.run('send-keys', '-t', STOP, 'C-d');
    await stop.until(finished(done), 'the process ending');
    expect(readFileSync(done, 'utf8').trim()).toBe('130');
    // the terminal is the shell's again: off the alternate screen, the view gone
    expect(alternate()).toBe('0');
    expect(stop.screen()).not.toContain('BLOCKED');
    const errors = readFileSync(join(dir, 'stop-errors.txt'), 'utf8');
    expect(errors).toContain(`stopped: the run was cancelled while a call waited for approval\nresume with: ${hint}\n`);
    expect(errors).toMatch(/Run summary: session=stopped-at-box model=claude-fake-1 llm_calls=1 tool_calls=0 /);

    // the journal agrees: the call never ran, and the run waits to be resumed
    const shown = await runFisk(['session', 'show', 'stopped-at-box', '--state-dir', state, '--config', 'agent.yaml'], dir);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/Tool calls {2}0 /);
    expect(shown.stdout).toMatch(/Status {6}open/);
    expect(shown.stdout).toContain('an in-flight tool batch will resume first');
  }, 200_000);

  it('suspends a journaled run on Ctrl-C while the model thinks, and the view says how to resume it where the turn ended', async () => {
    const { fake, dir } = agent;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    // the step the suspend lets finish: the model asks for a tool, which runs; the next model call is not made
    fake.reply({ ...anthropicEventStream(anthropicToolUse([{ id: 'toolu_ls', name: 'stream_ls', input: {} }])), until: held });
    const asked = fake.requests.length;
    const done = join(dir, 'pause-status');
    const state = join(dir, 'runs');
    const args = [
      'run',
      '--checkpoint',
      '--name',
      'paused-mid-call',
      '--state-dir',
      state,
      '--base-url',
      fake.url,
      '--api-key',
      'k',
      'think',
      'it',
      'over',
    ];
    pause.run(
      'new-session',
      '-d',
      '-s',
      PAUSE,
      '-x',
      '240',
      '-y',
      '24',
      '-c',
      dir,
      `${commandLine(args)} 2> pause-errors.txt; echo $? > '${done}'; sleep 600`,
    );
    await pause.until((t) => t.includes('thinking '), 'the model thinking');
    pause.run('send-keys', '-t', PAUSE, 'C-c');
    await pause.until((t) => t.includes('suspend requested; finishing the current step'), 'the suspend requested');
    release();
    const hint = `fisk run --resume paused-mid-call --config ${join(dir, 'agent.yaml')} --state-dir ${state}`;
    const ended = await pause.until((t) => t.includes('SUSPENDED') && t.includes('resume with'), 'the suspended turn');
    // the hint sits where the turn ended: after the step it let finish, above the input row
    const rows = ended.split('\n');
    const at = rows.findIndex((r) => r.startsWith('suspended') && r.includes(`resume with ${hint}`));
    expect(at).toBeGreaterThan(rows.findIndex((r) => r.startsWith('-> stream_ls')));
    expect(rows.findIndex((r) => r.startsWith('-> stream_ls'))).toBeGreaterThan(0);
    // the model call after the step was never made
    expect(fake.requests).toHaveLength(asked + 1);
    expect(rows.slice(at + 1).some((r) => r.startsWith('> '))).toBe(true);
    pause.run('send-keys', '-t', PAUSE, 'C-d');
    await pause.until(finished(done), 'the process ending');
    expect(readFileSync(done, 'utf8').trim()).toBe('0');
    expect(readFileSync(join(dir, 'pause-errors.txt'), 'utf8')).toContain(`suspended; resume with: ${hint}\n`);
  }, 200_000);
});
