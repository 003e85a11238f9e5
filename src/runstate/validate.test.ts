import { describe, expect, it } from 'vitest';
import { assistantBody, claimBody, metaBody, toolResultBody } from './builders.js';
import { isRunStateError } from './errors.js';
import { decodeMessage, encodeMessage } from './message-codec.js';
import type { RecordOfKind, SessionRecord } from './records.js';
import { decodeRecord, encodeRecord } from './validate.js';
import type { Message } from '../llm/types.js';
import { ZERO_USAGE } from '../llm/types.js';

const meta: RecordOfKind<'meta'> = {
  ...metaBody({ runId: 'r1', created: new Date('2026-01-02T03:04:05Z'), fingerprint: { model: 'm' }, prompt: 'hi' }),
  seq: 1,
};

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return isRunStateError(err) ? err.code : 'other';
  }
  return undefined;
}

describe('record validation', () => {
  it('round-trips a meta record through its one-line body', () => {
    const line = encodeRecord(meta);
    expect(line).not.toContain('\n');
    expect(decodeRecord(line)).toEqual(meta);
  });

  it('refuses a record with an unknown field, on write and on read', () => {
    const bad = { ...meta, extra: 1 } as unknown as SessionRecord;
    expect(codeOf(() => encodeRecord(bad))).toBe('schema');
    expect(codeOf(() => decodeRecord(JSON.stringify(bad)))).toBe('schema');
  });

  it('refuses a payload key that does not match the protocol', () => {
    const line = JSON.stringify({ seq: 2, protocol: 'io.choria.fisk-ai.v1.session.user', meta: meta.meta });
    expect(codeOf(() => decodeRecord(line))).toBe('schema');
  });

  it('refuses another format version before its schema, even with fields this build does not know', () => {
    const newer = { ...meta, meta: { ...meta.meta, version: 4, shiny: true } };
    expect(codeOf(() => decodeRecord(JSON.stringify(newer)))).toBe('version');
    expect(codeOf(() => decodeRecord(JSON.stringify({ ...meta, meta: { ...meta.meta, version: 2 } })))).toBe('version');
  });

  it('refuses bad JSON as corrupt', () => {
    expect(codeOf(() => decodeRecord('{"seq":1'))).toBe('corrupt');
  });

  it('refuses a bad date, a zero seq and a non-integer token count', () => {
    expect(codeOf(() => decodeRecord(JSON.stringify({ ...meta, meta: { ...meta.meta, created: 'yesterday' } })))).toBe('schema');
    expect(codeOf(() => decodeRecord(JSON.stringify({ ...meta, seq: 0 })))).toBe('schema');
    const a = { ...assistantBody({ iteration: 0, message: { role: 'assistant', content: [] }, usage: ZERO_USAGE }), seq: 2 };
    expect(codeOf(() => decodeRecord(JSON.stringify({ ...a, assistant: { ...a.assistant, in_tokens: 1.5 } })))).toBe('schema');
  });

  it('allows the optional flag only on kinds where skipping is conservative', () => {
    const claim = { ...claimBody('host', new Date()), seq: 2 } as SessionRecord;
    expect(decodeRecord(encodeRecord(claim))).toEqual(claim);
    const result = { ...toolResultBody({ type: 'tool_result', toolUseId: 't', content: 'x' }), seq: 3, optional: true };
    expect(codeOf(() => decodeRecord(JSON.stringify(result)))).toBe('schema');
    const deferral = {
      seq: 3,
      protocol: 'io.choria.fisk-ai.v1.session.deferral',
      optional: true,
      deferral: { tool_use_id: 't', tool: 'x' },
    };
    expect(codeOf(() => decodeRecord(JSON.stringify(deferral)))).toBe('schema');
  });

  it('keeps an unknown protocol only when it is flagged optional', () => {
    const future = { seq: 4, protocol: 'io.choria.fisk-ai.v1.session.future', optional: true, future: {} };
    expect(decodeRecord(JSON.stringify(future))).toEqual({ seq: 4, protocol: future.protocol, optional: true, unknown: true });
    expect(codeOf(() => decodeRecord(JSON.stringify({ ...future, optional: false })))).toBe('schema');
  });
});

describe('message codec', () => {
  it('stores a thinking signature as base64 and tool input as embedded JSON', () => {
    const msg: Message = {
      role: 'assistant',
      content: [
        { type: 'thinking', text: 'hmm', signature: new Uint8Array([1, 2, 255]) },
        { type: 'text', text: 'ok' },
        { type: 'tool_use', id: 'tu1', name: 'echo', input: '{"a":[1,2]}' },
        { type: 'provider', kind: 'server_tool_use', raw: '{"type":"server_tool_use","id":"s1"}' },
      ],
    };
    const wire = encodeMessage(msg);
    expect(wire.content?.[0]).toEqual({ thinking: { text: 'hmm', signature: 'AQL/' } });
    expect(wire.content?.[2]).toEqual({ tool_use: { id: 'tu1', name: 'echo', input: { a: [1, 2] } } });
    expect(decodeMessage(wire)).toEqual(msg);
  });

  it('keeps tool input that is not valid JSON verbatim', () => {
    const msg: Message = { role: 'assistant', content: [{ type: 'tool_use', id: 'tu1', name: 'echo', input: '{"a":' }] };
    const rec = { ...assistantBody({ iteration: 0, message: msg, usage: ZERO_USAGE }), seq: 2 } as SessionRecord;
    const back = decodeRecord(encodeRecord(rec));
    expect('assistant' in back && decodeMessage(back.assistant.message)).toEqual(msg);
  });

  it('encodes an empty message as null content and back', () => {
    expect(encodeMessage({ role: 'user', content: [] })).toEqual({ role: 'user', content: null });
    expect(decodeMessage({ role: 'user', content: null })).toEqual({ role: 'user', content: [] });
  });
});
