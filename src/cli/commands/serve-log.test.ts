import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { logFormat, ServeLog } from './serve-log.js';

function capture(format: 'text' | 'json'): { log: ServeLog; lines: () => string[] } {
  const out = new PassThrough();
  let text = '';
  out.on('data', (d: Buffer) => (text += d.toString()));
  const log = new ServeLog({ format, worker: 'web1:4242', out, now: () => new Date('2026-12-01T21:40:07.880Z') });
  return { log, lines: () => text.split('\n').filter((l) => l !== '') };
}

describe('ServeLog', () => {
  it('stamps a text line with the time and worker, and marks a warning', () => {
    const { log, lines } = capture('text');
    log.warn('ended', 'ended job weekly: failed in 812 ms: error: the model refused', {
      job: 'weekly',
      reason: 'error: the model refused',
    });
    log.info('draining', 'draining');
    expect(lines()).toEqual([
      '2026-12-01T21:40:07.880Z web1:4242 warning: ended job weekly: failed in 812 ms: error: the model refused',
      '2026-12-01T21:40:07.880Z web1:4242 draining',
    ]);
  });

  it('writes one JSON object per line with the fields beside the message, leaving out what is unset', () => {
    const { log, lines } = capture('json');
    log.warn('ended', 'ended job weekly: failed', {
      job: 'weekly',
      session: undefined,
      outcome: 'failed',
      reason: 'error: timeout',
      duration_ms: 812,
    });
    expect(lines().map((l) => JSON.parse(l) as unknown)).toEqual([
      {
        time: '2026-12-01T21:40:07.880Z',
        level: 'warn',
        worker: 'web1:4242',
        event: 'ended',
        msg: 'ended job weekly: failed',
        job: 'weekly',
        outcome: 'failed',
        reason: 'error: timeout',
        duration_ms: 812,
      },
    ]);
  });

  it('keeps a line whole: newlines and terminal sequences a peer or model wrote are folded away', () => {
    for (const format of ['text', 'json'] as const) {
      const { log, lines } = capture(format);
      log.error('fault', 'jobs failed: one\ntwo \u001b[31mred\u001b[0m', { reason: 'a\nb\u001b[2J' });
      expect(lines()).toHaveLength(1);
      expect(lines()[0]).not.toContain('\u001b');
      if (format === 'json') expect(JSON.parse(lines()[0] ?? '')).toMatchObject({ msg: 'jobs failed: one two red', reason: 'a b' });
      else expect(lines()[0]).toBe('2026-12-01T21:40:07.880Z web1:4242 error: jobs failed: one two red');
    }
  });

  it('takes text or json for --log-format and names the flag for anything else', () => {
    expect(logFormat(undefined)).toBe('text');
    expect(logFormat('JSON')).toBe('json');
    expect(() => logFormat('yaml')).toThrow(
      '--log-format "yaml" is not a log format; use text (the default) or json (one JSON object per line)',
    );
  });
});
