/**
 * `fisk run --no-tui` at a terminal while the model thinks: the built CLI in a real tmux pane, the
 * fake model holding its reply. A spinner with the time waited is drawn on stderr and redrawn in
 * place, and it is erased before anything else is written, the answer included.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anthropicText } from '../../src/agenttest/anthropic-wire.js';
import { anthropicEventStream, streamIfAsked } from '../../src/agenttest/sse-wire.js';
import type { FakeReplyStep } from '../../src/agenttest/fake-model-server.js';
import { hasTmux, tmuxPane } from '../tui/tmux.js';
import { MAIN, paneAgent } from './support.js';

const SOCKET = `fisk-status-${process.pid}`;
const ERR = 'stderr-only';
const BOTH = 'both';
const errPane = tmuxPane(SOCKET, ERR);
const bothPane = tmuxPane(SOCKET, BOTH);
const agent = paneAgent('thinker', errPane);

const commandLine = (args: readonly string[]): string => [process.execPath, MAIN, ...args].map((a) => `'${a}'`).join(' ');
const finished = (file: string) => () => existsSync(file) && readFileSync(file, 'utf8').trim() !== '';
/** The status line of the first model call (the loop counts iterations from 0). */
const STATUS = /[|/\\-] waiting for the model \(iteration 1, (\d+)s\)/;

/** A reply held until `release` is called, answered as the run asks (streamed or not). */
function held(text: string): { reply: FakeReplyStep; release: () => void } {
  let release: () => void = () => undefined;
  const until = new Promise<void>((resolve) => (release = resolve));
  const asked = streamIfAsked(anthropicText(text), anthropicEventStream);
  return { reply: (req) => ({ ...(typeof asked === 'function' ? asked(req) : asked), until }), release };
}

describe.skipIf(!hasTmux)('the line surface while the model thinks, in tmux', () => {
  it('draws a spinner with the time waited on stderr, and erases it when the run goes on', async () => {
    const { fake, dir } = agent;
    const slow = held('Thought it over.');
    fake.reply(slow.reply);
    const done = join(dir, 'err-status');
    // stdout goes to a file: whatever the pane shows came on stderr
    errPane.run(
      'new-session',
      '-d',
      '-s',
      ERR,
      '-x',
      '100',
      '-y',
      '20',
      '-c',
      dir,
      `${commandLine(['run', '--no-tui', '--base-url', fake.url, '--api-key', 'k', 'think'])} > answer.txt; echo $? > '${done}'; sleep 600`,
    );
    const first = await errPane.until((t) => STATUS.test(t), 'the status line');
    // redrawn in place as the wait goes on: one line, its time climbing
    const later = await errPane.until(
      (t) => Number(STATUS.exec(t)?.[1] ?? 0) > Number(STATUS.exec(first)?.[1] ?? 0),
      'the waited time climbing',
    );
    expect(later.split('\n').filter((l) => l.includes('waiting for the model'))).toHaveLength(1);
    slow.release();
    await errPane.until(finished(done), 'the run ending');
    expect(readFileSync(done, 'utf8').trim()).toBe('0');
    expect(readFileSync(join(dir, 'answer.txt'), 'utf8')).toBe('Thought it over.\n');
    const after = errPane.screen();
    expect(after).not.toContain('waiting for the model');
    // the line after it starts clean
    expect(after.split('\n').some((l) => l.startsWith('Run summary: model=claude-fake-1 llm_calls=1 '))).toBe(true);
  }, 200_000);

  it('erases the line before the answer when both go to the terminal', async () => {
    const { fake, dir } = agent;
    const h = held('The answer, on a line of its own.');
    fake.reply(h.reply);
    const done = join(dir, 'both-status');
    bothPane.run(
      'new-session',
      '-d',
      '-s',
      BOTH,
      '-x',
      '100',
      '-y',
      '20',
      '-c',
      dir,
      `${commandLine(['run', '--no-tui', '--base-url', fake.url, '--api-key', 'k', 'answer', 'me'])}; echo $? > '${done}'; sleep 600`,
    );
    await bothPane.until((t) => STATUS.test(t), 'the status line');
    h.release();
    await bothPane.until(finished(done), 'the run ending');
    const rows = bothPane.screen().split('\n');
    expect(rows.some((r) => r.includes('waiting for the model'))).toBe(false);
    expect(rows).toContain('The answer, on a line of its own.');
  }, 200_000);
});
