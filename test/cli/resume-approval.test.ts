/**
 * A journaled run killed while its approval question was on the screen, then resumed at a
 * terminal: the resumed run asks again, and the question comes after the conversation it replays
 * and after the call it is about, never in the middle of them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { anthropicEventStream, streamIfAsked } from '../../src/agenttest/sse-wire.js';
import { alive, until as untilTrue } from '../support/processes.js';
import { hasTmux, tmuxPane } from '../tui/tmux.js';
import { MAIN, paneAgent } from './support.js';

const SOCKET = `fisk-resume-${process.pid}`;
const FIRST = 'first';
const SECOND = 'second';
const first = tmuxPane(SOCKET, FIRST);
const second = tmuxPane(SOCKET, SECOND);

const agent = paneAgent('resumer', first);

/** A shell command line running the built CLI with `args`, its pid written to `pidFile` first. */
function fiskLine(args: readonly string[], pidFile: string): string {
  const quoted = [process.execPath, MAIN, ...args].map((a) => `'${a}'`).join(' ');
  return `sh -c 'echo $$ > "$0"; exec "$@"' '${pidFile}' ${quoted}`;
}

describe.skipIf(!hasTmux)('resuming a run killed at its approval question, at a terminal', () => {
  it('replays the conversation, shows the call, then asks, and runs the call once approved', async () => {
    const { fake, dir } = agent;
    // stdout is a terminal, so the runs ask for streamed answers
    fake.reply(
      streamIfAsked(anthropicToolUse([{ id: 'toolu_p', name: 'stream_purge', input: { stream: 'orders' } }]), anthropicEventStream),
      streamIfAsked(anthropicText('The orders stream is purged.'), anthropicEventStream),
    );
    const common = ['--no-tui', '--state-dir', join(dir, 'runs'), '--base-url', fake.url, '--api-key', 'k'];
    const pidFile = join(dir, 'first.pid');
    first.run(
      'new-session',
      '-d',
      '-s',
      FIRST,
      '-x',
      '100',
      '-y',
      '30',
      '-c',
      dir,
      `${fiskLine(['run', ...common, '--checkpoint', '--name', 'r1', 'purge', 'orders'], pidFile)}; sleep 600`,
    );
    await first.until((t) => t.includes('Choose [1]:'), 'the first approval question');
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    process.kill(pid, 'SIGKILL');
    await untilTrue(() => !alive(pid), 'the first run to die');

    const done = join(dir, 'second-status');
    second.run(
      'new-session',
      '-d',
      '-s',
      SECOND,
      '-x',
      '100',
      '-y',
      '30',
      '-c',
      dir,
      `${fiskLine(['run', ...common, '--resume', 'r1'], join(dir, 'second.pid'))}; echo $? > '${done}'; sleep 600`,
    );
    const asked = await second.until((t) => t.includes('Choose [1]:'), 'the resumed approval question');
    const at = (text: string): number => asked.indexOf(text);
    // the question the run was started with comes first
    expect(at('> purge orders')).toBeGreaterThanOrEqual(0);
    expect(at('resuming run r1 at iteration')).toBeGreaterThan(at('> purge orders'));
    expect(at('-> stream_purge stream=orders')).toBeGreaterThan(at('resuming run r1 at iteration'));
    expect(at('Approval needed (ai:confirm):')).toBeGreaterThan(at('-> stream_purge stream=orders'));
    // nothing is printed after the question while it waits
    expect(asked.trimEnd().endsWith('Choose [1]:')).toBe(true);

    second.run('send-keys', '-t', SECOND, 'y', 'Enter');
    await untilTrue(() => existsSync(done) && readFileSync(done, 'utf8').trim() !== '', 'the resumed run to end');
    expect(readFileSync(done, 'utf8').trim()).toBe('0');
    expect(second.screen()).toContain('The orders stream is purged.');
    expect(fake.requests).toHaveLength(2);
  }, 120_000);
});
