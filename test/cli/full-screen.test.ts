/**
 * `fisk run` in the full-screen view, driven as a person drives it: the built CLI in a real tmux
 * pane (its own server socket), keys sent with send-keys, the screen read with capture-pane.
 */
import { existsSync, readFileSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import { anthropicEventStream, streamIfAsked } from '../../src/agenttest/sse-wire.js';
import { hasTmux, tmuxPane } from '../tui/tmux.js';
import { MAIN, paneAgent } from './support.js';

const SOCKET = `fisk-test-${process.pid}`;
const SESSION = 'fullscreen';
const PLAIN = 'plain';
const plain = tmuxPane(SOCKET, PLAIN);
const pane = tmuxPane(SOCKET, SESSION);
const tmux = pane.run;
const screen = pane.screen;
const until = pane.until;

const agent = paneAgent('pane-purger', pane);

describe.skipIf(!hasTmux)('fisk run in the full-screen view, in tmux', () => {
  it('asks for approval in a modal, folds and searches tool output, labels the pane, and reprints the answer on exit', async () => {
    const { fake, dir } = agent;
    const streamed = (r: ReturnType<typeof anthropicText>): ReturnType<typeof streamIfAsked> => streamIfAsked(r, anthropicEventStream);
    fake.reply(
      // a stream name long enough that the call's output takes more than one row, so it folds
      streamed(
        anthropicToolUse([{ id: 'toolu_a', name: 'stream_purge', input: { stream: 'orders-archive-of-the-whole-year' } }], {
          text: 'Purging now.',
        }),
      ),
      streamed(anthropicText('The orders stream is purged.')),
      streamed(anthropicText('The audit copy was kept.')),
    );
    const done = join(dir, 'exit-status');
    const command = [process.execPath, MAIN, 'run', '--base-url', fake.url, '--api-key', 'k', 'purge', 'orders']
      .map((a) => `'${a}'`)
      .join(' ');
    // CI=true as a CI runner sets it: the view still draws, since a terminal is what chose it
    tmux(
      'new-session',
      '-d',
      '-s',
      SESSION,
      '-x',
      '90',
      '-y',
      '24',
      '-c',
      dir,
      `CI=true ${command} 2> errors.txt; echo $? > '${done}'; sleep 600`,
    );

    const modal = await until((t) => t.includes('BLOCKED'), 'the approval');
    expect(modal).toContain('Approval needed to run (gated by ai:confirm):');
    expect(modal).toContain('stream purge -- orders-archive-of-the-whole-year');
    expect(modal).toMatch(/› 1\) No, do not run it/);
    expect(modal).toContain('-> stream_purge stream=orders-archive-of-the-whole-year');
    // the report is sent off the draw loop, so it lands shortly after the screen shows the modal
    const paneState = (): string => tmux('display-message', '-p', '-t', SESSION, '#{pane_title}|#{@fisk_ai_state}').trim();
    await until(() => paneState() === 'pane-purger|blocked', `the pane labelled and blocked (it is ${paneState()})`);

    tmux('send-keys', '-t', SESSION, '2');
    const folded = await until((t) => t.includes('AWAITING INPUT'), 'the end of the turn');
    expect(folded).toContain('<- … 1 line of output folded');
    expect(folded).toContain('The orders stream is purged.');
    expect(folded).not.toContain('"positionals"');
    await until(() => tmux('display-message', '-p', '-t', SESSION, '#{@fisk_ai_state}').trim() === 'idle', 'the idle pane state');

    tmux('send-keys', '-t', SESSION, 'C-f');
    await until((t) => /^\/$/m.test(t), 'the search row');
    tmux('send-keys', '-t', SESSION, 'positionals', 'Enter');
    const found = await until((t) => t.includes('match 1/1'), 'the search match');
    expect(found).toContain('"positionals":["orders-archive-of-the-whole-year"');

    tmux('send-keys', '-t', SESSION, 'Escape');
    // an Escape read together with the next key is that key with Meta held: the next key goes only
    // once the Escape was read alone, as the search it clears shows
    await until((t) => !t.includes('match 1/1'), 'the search cleared by Escape');
    tmux('send-keys', '-t', SESSION, 'C-o');
    const unfolded = await until((t) => t.includes('folding off'), 'folding turned off');
    expect(unfolded).toContain('<- {"path":["stream","purge"]');

    // the startup card heads the conversation: what the view talks to, drawn opaque across the pane
    tmux('send-keys', '-t', SESSION, 'Home');
    const top = await until((t) => t.startsWith('pane-purger'), 'the startup card');
    const rows = top.split('\n');
    expect(rows.slice(0, 3)).toEqual([
      'pane-purger',
      'model      claude-fake-1 (anthropic)',
      expect.stringMatching(/^tools {6}11: echo, stream_ls, stream_rm, stream_purge, /),
    ]);
    // a long row wraps inside the card, after a word and under the value column
    expect(rows.slice(3, 6)).toEqual(['           5 more', 'session    kept in memory (not journaled)', 'telemetry  off']);
    // every card row is filled to the pane's width on the card's background; the transcript below is not
    const painted = tmux('capture-pane', '-p', '-e', '-N', '-t', SESSION).split('\n');
    // the SGR parameters a row opens with (the escape character is matched as a non-word character)
    const opening = (row: string | undefined): string[] => (/^(?:\W\[[0-9;]*m)*/.exec(row ?? '')?.[0].match(/[0-9]+/g) ?? []).map(String);
    expect(opening(painted[0])).toContain('100');
    for (const row of painted.slice(0, 6)) expect(stripVTControlCharacters(row)).toHaveLength(90);
    expect(opening(painted[6])).toContain('49');

    // a follow-up in the same conversation; the summary counts both turns
    tmux('send-keys', '-t', SESSION, 'End');
    tmux('send-keys', '-t', SESSION, '-l', 'and the audit copy?');
    tmux('send-keys', '-t', SESSION, 'Enter');
    await until((t) => t.includes('The audit copy was kept.') && t.includes('AWAITING INPUT'), 'the follow-up answered');

    tmux('send-keys', '-t', SESSION, 'C-d');
    // the shell creates the file before it writes the status: wait for the status itself
    await until(() => existsSync(done) && readFileSync(done, 'utf8').trim() !== '', 'the process ending');
    expect(readFileSync(done, 'utf8').trim()).toBe('0');
    const errors = readFileSync(join(dir, 'errors.txt'), 'utf8');
    expect(errors).toMatch(/Run summary: model=claude-fake-1 llm_calls=3 tool_calls=1 /);
    // the normal screen is back, with the answer reprinted on it
    const after = screen();
    expect(after).not.toContain('AWAITING INPUT');
    expect(after).toContain('The audit copy was kept.');
  }, 400_000);

  it("draws in no colour at all under NO_COLOR, Ink's text included", async () => {
    const { fake, dir } = agent;
    fake.reply(streamIfAsked(anthropicText('Nothing to purge.'), anthropicEventStream));
    const done = join(dir, 'exit-status-plain');
    const command = [process.execPath, MAIN, 'run', '--base-url', fake.url, '--api-key', 'k', 'anything', 'to', 'purge?']
      .map((a) => `'${a}'`)
      .join(' ');
    tmux(
      'new-session',
      '-d',
      '-s',
      PLAIN,
      '-x',
      '90',
      '-y',
      '24',
      '-c',
      dir,
      `CI=true NO_COLOR=1 ${command} 2> errors-plain.txt; echo $? > '${done}'; sleep 600`,
    );
    await plain.until((t) => t.includes('AWAITING INPUT'), 'the answer');
    const painted = tmux('capture-pane', '-p', '-e', '-N', '-t', PLAIN);
    // no SGR sequence sets a colour or an attribute anywhere: not the card, the transcript nor the bar
    expect(painted).toContain('Nothing to purge.');
    expect(stripVTControlCharacters(painted)).toBe(painted);
    tmux('send-keys', '-t', PLAIN, 'C-d');
    await plain.until(() => existsSync(done) && readFileSync(done, 'utf8').trim() !== '', 'the process ending');
    expect(readFileSync(done, 'utf8').trim()).toBe('0');
  }, 400_000);
});
