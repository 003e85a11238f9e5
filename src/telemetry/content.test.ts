import { describe, expect, it } from 'vitest';
import type { CapturedMessage } from './content.js';
import { encodeMessages, fitText, jsonCost, MessageCursor, OMITTED } from './content.js';
import { exportShape } from './provider.js';

const text = (role: CapturedMessage['role'], content: string): CapturedMessage => ({ role, parts: [{ type: 'text', content }] });
const call = (id: string): CapturedMessage => ({
  role: 'assistant',
  parts: [{ type: 'tool_call', id, name: 'read_file', arguments: { path: 'a' } }],
});
const response = (...ids: string[]): CapturedMessage => ({
  role: 'tool',
  parts: ids.map((id) => ({ type: 'tool_call_response' as const, id, response: 'x' })),
});

describe('jsonCost', () => {
  it('counts the escaped bytes: six for a control character or an unpaired surrogate', () => {
    expect(jsonCost('a')).toBe(3);
    expect(jsonCost('\u0001')).toBe(8);
    expect(jsonCost('\ud800')).toBe(8);
    expect(jsonCost('é')).toBe(4);
    expect(jsonCost('\n')).toBe(4);
  });
});

describe('encodeMessages', () => {
  it('keeps everything that fits, exactly as the attribute will carry it', () => {
    const msgs = [text('user', 'hi'), text('assistant', 'hello')];
    const out = encodeMessages(msgs, 10_000);
    expect(out.dropped).toBe(0);
    expect(JSON.parse(out.json)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'hi' }] },
      { role: 'assistant', parts: [{ type: 'text', content: 'hello' }] },
    ]);
  });

  it('keeps the newest suffix within the budget, counted in JSON-escaped bytes', () => {
    const msgs = [text('user', 'a'.repeat(200)), text('assistant', 'b'.repeat(200)), text('user', '\u0001'.repeat(20))];
    const newest = encodeMessages(msgs.slice(2), 10_000).json;
    const budget = Buffer.byteLength(newest) + 5;
    const out = encodeMessages(msgs, budget);
    expect(out.json).toBe(newest);
    expect(out.dropped).toBe(2);
    expect(Buffer.byteLength(out.json)).toBeLessThanOrEqual(budget);
    // Measured on characters the newest message would look small: 20 characters, 120 bytes escaped.
    expect(Buffer.byteLength(newest)).toBeGreaterThan(120);
  });

  it('drops tool responses whose calls were cut away, but not ones answering earlier exports', () => {
    const msgs = [call('c1'), response('c1'), text('user', 'next')];
    const budget = Buffer.byteLength(encodeMessages(msgs.slice(1), 10_000).json) - 1;
    const out = encodeMessages(msgs, budget);
    expect(JSON.parse(out.json)).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'next' }] }]);
    expect(out.dropped).toBe(2);
    // A delta that starts with a response to a call exported by an earlier model call keeps it.
    expect(JSON.parse(encodeMessages([response('c0'), text('user', 'go')], 10_000).json)).toHaveLength(2);
  });

  it('keeps a response message part that answers a call still present', () => {
    const msgs = [call('c1'), call('c2'), response('c1', 'c2')];
    // Budget leaves room for the second call and the response, not the first call.
    const budget = Buffer.byteLength(encodeMessages(msgs.slice(1), 10_000).json);
    const out = JSON.parse(encodeMessages(msgs, budget).json) as { parts: { id: string }[] }[];
    expect(out.map((m) => m.parts.map((p) => p.id))).toEqual([['c2'], ['c2']]);
  });

  it('replaces thinking signatures and provider raw blocks with the omitted marker', () => {
    const msg: CapturedMessage = {
      role: 'assistant',
      parts: [
        { type: 'reasoning', content: 'why', signature: 'sig-secret' },
        { type: 'provider_raw', provider: 'anthropic', raw: { secret: 'raw-secret' } },
      ],
    };
    const json = encodeMessages([msg], 10_000).json;
    expect(json).not.toContain('sig-secret');
    expect(json).not.toContain('raw-secret');
    expect(JSON.parse(json)).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', content: 'why', signature: OMITTED },
          { type: 'provider_raw', provider: 'anthropic', content: OMITTED },
        ],
      },
    ]);
  });

  it('walks tool arguments with a depth bound', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100; i++) deep = { d: deep };
    const json = encodeMessages([{ role: 'assistant', parts: [{ type: 'tool_call', id: 'c', name: 't', arguments: deep }] }], 100_000).json;
    expect(json).not.toContain('bottom');
    expect(json).toContain(OMITTED);
  });
});

describe('fitText', () => {
  it('returns text that fits unchanged and cuts the rest on a character boundary within the budget', () => {
    expect(fitText('short', 100)).toBe('short');
    const long = '😀'.repeat(100);
    const cut = fitText(long, 60);
    expect(jsonCost(cut)).toBeLessThanOrEqual(60);
    expect(cut.endsWith('[truncated]')).toBe(true);
    expect(cut).not.toContain('\ud83d[');
  });
});

describe('MessageCursor', () => {
  it('yields only the messages added since the last take, and restarts when the list shrank', () => {
    const c = new MessageCursor();
    expect(c.take([1, 2])).toEqual([1, 2]);
    expect(c.take([1, 2, 3, 4])).toEqual([3, 4]);
    expect(c.take([1, 2, 3, 4])).toEqual([]);
    expect(c.take([9])).toEqual([9]);
  });
});

describe('exportShape', () => {
  it('gzips and shrinks batches only when capture is on', () => {
    expect(exportShape(false)).toEqual({ maxExportBatchSize: 512, gzip: false });
    expect(exportShape(true)).toEqual({ maxExportBatchSize: 64, gzip: true });
    expect(exportShape(true, 4 * 1024 * 1024)).toEqual({ maxExportBatchSize: 1, gzip: true });
  });
});
