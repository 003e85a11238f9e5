/**
 * The full-screen chat as a person uses it, on the built CLI in a real tmux pane 60 columns wide:
 * a decline with a reason, markdown set out between words, chat commands that never reach the
 * model, a select that Enter answers with nothing, a fresh iteration budget after a turn that hit
 * it, and a status bar that moves while the model thinks.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anthropicText, anthropicToolUse } from '../../src/agenttest/anthropic-wire.js';
import type { FakeReply } from '../../src/agenttest/fake-model-server.js';
import { anthropicEventStream, streamIfAsked } from '../../src/agenttest/sse-wire.js';
import { hasTmux, tmuxPane } from '../tui/tmux.js';
import { MAIN, ROOT, paneAgent } from './support.js';

const SOCKET = `fisk-chat-${process.pid}`;
const SESSION = 'chat';
const pane = tmuxPane(SOCKET, SESSION);
const agent = paneAgent('chat-agent', pane);

const PARAGRAPH =
  'The orders stream keeps every message for thirty days, replicated across three servers, and the archive copy stays untouched whatever happens.';

/** The tool results the model was sent in request `n` (0-based), as text. */
function resultsOf(n: number): string {
  const body = agent.fake.requests[n]?.body as { messages?: { content?: unknown }[] } | undefined;
  return JSON.stringify(body?.messages?.at(-1)?.content ?? null);
}

describe.skipIf(!hasTmux)('the full-screen chat, in tmux at 60 columns', () => {
  it('declines with a reason, renders markdown, keeps commands local, answers a select with nothing and gives a follow-up a fresh budget', async () => {
    const { fake, dir } = agent;
    const streamed = (r: FakeReply): ReturnType<typeof streamIfAsked> => streamIfAsked(r, anthropicEventStream);
    writeFileSync(
      join(dir, 'chat.yaml'),
      `identity: chat-agent\nsystem_prompt: You purge.\napplication_path: ${join(ROOT, 'test/fixtures/fisk-app.mjs')}\nllm:\n  model: claude-fake-1\n  budget:\n    max_iterations: 2\nharness:\n  human_in_the_loop:\n    enabled: true\n`,
    );
    fake.reply(
      streamed(anthropicToolUse([{ id: 'toolu_p', name: 'stream_purge', input: { stream: 'orders' } }])),
      streamed(anthropicText(`# Retention\n\n${PARAGRAPH}\n\n- **kept**: thirty days`)),
      streamed(
        anthropicToolUse([{ id: 'toolu_s', name: 'ask_human_select', input: { question: 'Which stream?', options: ['orders', 'audit'] } }]),
      ),
      streamed(anthropicText('Nothing chosen, nothing done.')),
      streamed(anthropicToolUse([{ id: 'toolu_e1', name: 'stream_ls', input: {} }])),
      streamed(anthropicToolUse([{ id: 'toolu_e2', name: 'stream_ls', input: {} }])),
      streamed(anthropicText('A fresh budget for this prompt.')),
      { hang: true },
    );
    const command = [process.execPath, MAIN, 'run', '--config', 'chat.yaml', '--base-url', fake.url, '--api-key', 'k', 'purge', 'orders']
      .map((a) => `'${a}'`)
      .join(' ');
    pane.run('new-session', '-d', '-s', SESSION, '-x', '60', '-y', '30', '-c', dir, `${command} 2> errors.txt; sleep 600`);
    const keys = (...k: string[]): string => pane.run('send-keys', '-t', SESSION, ...k);

    // a decline that tells the agent what to do instead
    const modal = await pane.until((t) => t.includes('BLOCKED'), 'the approval');
    expect(modal).toContain('4) No, and tell the agent what to do');
    keys('4');
    await pane.until((t) => t.includes('Tell the agent what to do instead'), 'the reason box');
    keys('-l', 'keep the archive copy');
    keys('Enter');
    const answered = await pane.until((t) => t.includes('AWAITING INPUT'), 'the answer after the decline');
    expect(resultsOf(1)).toContain('keep the archive copy');
    expect(resultsOf(1)).toContain('operator_reason');
    expect(answered).toContain('declined (gated by');

    // markdown set out, wrapped between words at 60 columns
    expect(answered).toContain('Retention');
    expect(answered).not.toContain('# Retention');
    expect(answered).not.toContain('**');
    const words = new Set(answered.split(/\s+/));
    for (const word of PARAGRAPH.split(' ')) expect(words.has(word) || words.has(word.replace(/[,.]$/, ''))).toBe(true);

    // chat commands never reach the model
    const asked = fake.requests.length;
    keys('-l', '/help');
    keys('Enter');
    await pane.until((t) => t.includes('commands (never sent to the model)'), 'the help');
    keys('-l', '/nope');
    keys('Enter');
    await pane.until((t) => t.includes('/nope is not a command'), 'the unknown command refused');
    expect(fake.requests.length).toBe(asked);

    // Enter on a select answers with nothing
    keys('-l', 'pick one');
    keys('Enter');
    const select = await pane.until((t) => t.includes('BLOCKED') && t.includes('Which stream?'), 'the select');
    expect(select).toMatch(/› 1\) None of these/);
    keys('Enter');
    await pane.until((t) => t.includes('Nothing chosen, nothing done.'), 'the answer after the select');
    expect(resultsOf(3)).toContain('\\"selected\\":null');

    // a turn stopped at max_iterations takes a follow-up with a fresh budget
    keys('-l', 'list twice');
    keys('Enter');
    await pane.until((t) => t.includes('max_iterations'), 'the iteration stop');
    keys('-l', 'go on');
    keys('Enter');
    await pane.until((t) => t.includes('A fresh budget for this prompt.'), 'the follow-up after max_iterations');

    // while the model thinks, the bar moves
    keys('-l', 'think hard');
    keys('Enter');
    const first = await pane.until((t) => t.includes('thinking '), 'the thinking bar');
    const bar = (t: string): string =>
      t
        .split('\n')
        .filter((l) => l.includes('RUNNING'))
        .join('');
    const later = await pane.until(
      (t) => t.includes('thinking ') && bar(t) !== bar(first) && /thinking [1-9]\d*s/.test(t),
      'the bar changing while the model thinks',
    );
    expect(bar(later)).not.toBe(bar(first));
    keys('C-c');
    await pane.until((t) => t.includes('ABORTED'), 'the cancelled turn');
  }, 240_000);
});
