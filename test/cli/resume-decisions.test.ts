/**
 * A journaled run whose gated calls were approved, declined and declined with a reason at a
 * terminal, killed at a later approval question and resumed: the replayed conversation notes each
 * earlier decision with the line the live run printed for it. And a decision given with `fisk
 * session answer` while the run was stopped decides the call on resume, its reason reaching the model.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { anthropicEventStream, streamIfAsked } from '../../src/agenttest/sse-wire.js';
import { alive, until as untilTrue } from '../support/processes.js';
import { hasTmux, tmuxPane } from '../tui/tmux.js';
import { MAIN, paneAgent, runFisk } from './support.js';

const SOCKET = `fisk-decisions-${process.pid}`;
const FIRST = 'first';
const SECOND = 'second';
const first = tmuxPane(SOCKET, FIRST);
const second = tmuxPane(SOCKET, SECOND);

const agent = paneAgent('decider', first);

function fiskLine(args: readonly string[], pidFile: string): string {
  const quoted = [process.execPath, MAIN, ...args].map((a) => `'${a}'`).join(' ');
  return `sh -c 'echo $$ > "$0"; exec "$@"' '${pidFile}' ${quoted}`;
}

const purge = (id: string, stream: string): ReturnType<typeof streamIfAsked> =>
  streamIfAsked(anthropicToolUse([{ id, name: 'stream_purge', input: { stream } }]), anthropicEventStream);

const APPROVED = 'approval: stream_purge approved once (gated by ai:confirm)';
const DECLINED = 'approval: stream_purge declined (gated by ai:confirm)';
const SAID = `${DECLINED}; the operator said: purge the archive instead`;

describe.skipIf(!hasTmux)('resuming a run whose earlier calls were decided at a terminal', () => {
  it('replays each decision as the live run printed it, in its place', async () => {
    const { fake, dir } = agent;
    fake.reply(purge('toolu_a', 'orders'), purge('toolu_b', 'invoices'), purge('toolu_c', 'audit'), purge('toolu_d', 'logs'));
    const common = ['--no-tui', '--state-dir', join(dir, 'runs'), '--base-url', fake.url, '--api-key', 'k'];
    const pidFile = join(dir, 'first.pid');
    first.run(
      'new-session',
      '-d',
      '-s',
      FIRST,
      '-x',
      '120',
      '-y',
      '80',
      '-c',
      dir,
      `${fiskLine(['run', ...common, '--checkpoint', '--name', 'd1', 'purge', 'them'], pidFile)}; sleep 600`,
    );
    const asked =
      (n: number) =>
      (t: string): boolean =>
        t.split('Choose [1]:').length - 1 >= n;
    await first.until(asked(1), 'the first approval question');
    first.run('send-keys', '-t', FIRST, 'y', 'Enter');
    await first.until(asked(2), 'the second approval question');
    first.run('send-keys', '-t', FIRST, 'n', 'Enter');
    await first.until(asked(3), 'the third approval question');
    first.run('send-keys', '-t', FIRST, 'r', 'Enter');
    await first.until((t) => t.includes('Tell the agent what to do instead'), 'the reason question');
    first.run('send-keys', '-t', FIRST, 'purge the archive instead', 'Enter');
    const live = await first.until(asked(4), 'the fourth approval question');
    expect(live).toContain(APPROVED);
    expect(live).toContain(SAID);
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    process.kill(pid, 'SIGKILL');
    await untilTrue(() => !alive(pid), 'the first run to die');

    second.run(
      'new-session',
      '-d',
      '-s',
      SECOND,
      '-x',
      '120',
      '-y',
      '80',
      '-c',
      dir,
      `${fiskLine(['run', ...common, '--resume', 'd1'], join(dir, 'second.pid'))}; sleep 600`,
    );
    const resumed = await second.until((t) => t.includes('Choose [1]:'), 'the resumed approval question');
    const lines = resumed.split('\n').map((l) => l.trimEnd());
    const at = (text: string, from = 0): number => lines.findIndex((l, i) => i >= from && l === text);
    const orders = at('-> stream_purge stream=orders');
    const invoices = at('-> stream_purge stream=invoices');
    const audit = at('-> stream_purge stream=audit');
    expect(orders).toBeGreaterThanOrEqual(0);
    expect(at(APPROVED)).toBeGreaterThan(orders);
    expect(at(APPROVED)).toBeLessThan(invoices);
    expect(at(DECLINED)).toBeGreaterThan(invoices);
    expect(at(DECLINED)).toBeLessThan(audit);
    expect(at(SAID)).toBeGreaterThan(audit);
    expect(at(SAID)).toBeLessThan(lines.findIndex((l) => l.startsWith('resuming run d1 at iteration')));
    // each replayed decision is the very line the live run printed
    for (const line of [APPROVED, DECLINED, SAID]) expect(live.split('\n').map((x) => x.trimEnd())).toContain(line);
    expect(lines.filter((l) => l.startsWith('approval: '))).toHaveLength(3);
  }, 180_000);

  it('takes a decline with a reason given with fisk session answer while stopped, and sends the reason to the model', async () => {
    const { fake, dir } = agent;
    const before = fake.requests.length;
    fake.reply(purge('toolu_x', 'orders'), streamIfAsked(anthropicText('Purging the archive instead.'), anthropicEventStream));
    const common = ['--no-tui', '--state-dir', join(dir, 'runs'), '--base-url', fake.url, '--api-key', 'k'];
    const pidFile = join(dir, 'third.pid');
    const THIRD = 'third';
    const third = tmuxPane(SOCKET, THIRD);
    third.run(
      'new-session',
      '-d',
      '-s',
      THIRD,
      '-x',
      '120',
      '-y',
      '40',
      '-c',
      dir,
      `${fiskLine(['run', ...common, '--checkpoint', '--name', 'd2', 'purge', 'orders'], pidFile)}; sleep 600`,
    );
    await third.until((t) => t.includes('Choose [1]:'), 'the approval question');
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    process.kill(pid, 'SIGKILL');
    await untilTrue(() => !alive(pid), 'the run to die');

    const approveWithReason = await runFisk(
      ['session', '--state-dir', join(dir, 'runs'), 'answer', 'd2', 'toolu_x', '--approve', '--reason', 'x'],
      dir,
    );
    expect(approveWithReason.code).toBe(2);
    expect(approveWithReason.stderr).toContain('--reason goes with --decline');
    const answered = await runFisk(
      ['session', '--state-dir', join(dir, 'runs'), 'answer', 'd2', 'toolu_x', '--decline', '--reason', 'purge the archive instead'],
      dir,
    );
    expect(answered.code).toBe(0);
    // no terminal: nobody could be asked, so the journaled decline is what decides the call
    const resumed = await runFisk(['run', ...common, '--resume', 'd2'], dir);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(
      `${DECLINED.replace('declined', 'declined while the run was stopped')}; the operator said: purge the archive instead`,
    );
    expect(resumed.stdout).toContain('Purging the archive instead.');
    const sent = fake.requests.slice(before).at(-1)?.bodyText ?? '';
    expect(sent).toContain('operator_reason');
    expect(sent).toContain('purge the archive instead');
  }, 180_000);
});
