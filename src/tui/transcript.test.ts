import { describe, expect, it } from 'vitest';
import { cardLines } from './card.js';
import { Transcript } from './transcript.js';

const rowsAt = (t: Transcript, width: number): string[] => t.rows({ width, folding: false }).map((r) => r.text);

describe('the startup card in the transcript', () => {
  const card = cardLines({
    identity: 'pane-purger',
    model: 'claude-fake-1',
    provider: 'anthropic',
    tools: ['echo', 'stream_ls', 'stream_rm', 'stream_purge', 'stream_add', 'stream_info', 'a', 'b'],
    session: undefined,
    resumed: false,
    telemetry: { state: 'off' },
  });

  it('wraps a long value after a word and continues it under the value column', () => {
    const t = new Transcript({ verbose: false, width: () => 40 });
    for (const l of card) t.add('card', l);
    expect(rowsAt(t, 40)).toEqual([
      'pane-purger',
      'model      claude-fake-1 (anthropic)',
      'tools      8: echo, stream_ls,',
      '           stream_rm, stream_purge,',
      '           stream_add, stream_info, and',
      '           2 more',
      'session    kept in memory (not',
      '           journaled)',
      'telemetry  off',
    ]);
  });

  it('cuts a word longer than a row, and cuts like any other line in a pane too narrow for the indent', () => {
    const t = new Transcript({ verbose: false, width: () => 30 });
    t.add('card', `model      ${'x'.repeat(40)}`);
    expect(rowsAt(t, 30)).toEqual([`model      ${'x'.repeat(19)}`, `           ${'x'.repeat(19)}`, `           ${'x'.repeat(2)}`]);
    expect(rowsAt(t, 20)).toEqual([`model      ${'x'.repeat(9)}`, 'x'.repeat(20), 'x'.repeat(11)]);
  });

  it("leaves a tool's lines cut at the width, as they were, and wraps prose between words", () => {
    const t = new Transcript({ verbose: false, width: () => 24 });
    t.add('result', 'tools      8: echo, stream_ls, stream_rm');
    expect(rowsAt(t, 24)).toEqual(['tools      8: echo, stre', 'am_ls, stream_rm']);
    const prose = new Transcript({ verbose: false, width: () => 24 });
    prose.add('text', 'tools      8: echo, stream_ls, stream_rm');
    expect(rowsAt(prose, 24)).toEqual(['tools      8: echo,', 'stream_ls, stream_rm']);
  });
});
