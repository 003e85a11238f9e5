import { describe, expect, it } from 'vitest';
import type { PayloadOf, RecordKind, RecordOfKind } from './records.js';
import { RECORD_KINDS, protocolOf } from './records.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { messageSchema, payloadSchemas, recordSchema } from './schemas.js';
import { checkRecord } from './validate.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
type Schemas = typeof payloadSchemas;
type PropsAgree<K extends RecordKind> = Equal<keyof Schemas[K]['properties'], keyof PayloadOf[K]>;
type RequiredAgree<K extends RecordKind> = Equal<Schemas[K]['required'][number], RequiredKeys<PayloadOf[K]>>;
type AllAgree = { [K in RecordKind]: PropsAgree<K> extends true ? (RequiredAgree<K> extends true ? true : K) : K }[RecordKind];
// a compile error here names the record kind whose schema and type disagree
const agree: AllAgree = true;

/** A fully populated payload of every kind, typed, so a field the type has and the schema lacks fails validation. */
const full: { [K in RecordKind]: Required<PayloadOf[K]> } = {
  meta: {
    version: 3,
    run_id: 'r',
    created: '2026-01-01T00:00:00.123Z',
    fingerprint: {
      provider: 'p',
      model: 'm',
      system_hash: 'a'.repeat(64),
      tools_hash: 'b'.repeat(64),
      thinking_mode: 'summarized',
      max_tokens: 1,
      max_iterations: 2,
    },
    prompt: 'p',
    interactive: true,
  },
  assistant: {
    iteration: 0,
    message: {
      role: 'assistant',
      content: [
        { text: { text: 't' } },
        { thinking: { text: 'x', signature: 'AQI=' } },
        { tool_use: { id: 'i', name: 'n', input: { a: 1 } } },
        { tool_result: { tool_use_id: 'i', content: 'c', is_error: true } },
        { provider: { kind: 'k', raw: {} } },
      ],
    },
    stop_reason: 'tool_use',
    in_tokens: 1,
    out_tokens: 2,
    cache_read_tokens: 3,
    cache_create_tokens: 4,
  },
  user: { message: { role: 'user', content: null } },
  tool_result: {
    tool_use_id: 'i',
    result: { tool_use_id: 'i', content: 'c', is_error: false, images: [{ media_type: 'image/png', data: 'iVBORw0KGgo=' }] },
    remote: true,
    gate: { outcome: 'declined', trigger: 'ai:confirm', command_line: 'x', reason: 'r' },
    delegated: { input_tokens: 5, output_tokens: 6, counts_budget: true },
  },
  deferral: { tool_use_id: 'i', tool: 'n', note: 'later' },
  grant: { tool: 'n', tool_use_id: 'i' },
  approval: { tool_use_id: 'i', decision: 'decline', by: 'op', reason: 'use staging' },
  claim: { by: 'h', at: '2026-01-01T00:00:00Z' },
  terminal: { reason: 'error', message: 'boom' },
  memory_scope: { revisions: { k: 3 } },
};

describe('schemas and types', () => {
  it('agree at the type level', () => {
    expect(agree).toBe(true);
  });

  it('are valid JSON Schema 2020-12 documents', () => {
    const ajv = new Ajv2020({ strict: true });
    expect(ajv.validateSchema(messageSchema)).toBe(true);
    ajv.addSchema(messageSchema);
    for (const kind of RECORD_KINDS) {
      expect(ajv.validateSchema(recordSchema(kind)), kind).toBe(true);
    }
  });

  it.each(RECORD_KINDS)('accept a fully populated %s record', (kind) => {
    const record = { seq: 1, protocol: protocolOf(kind), [kind]: full[kind] } as unknown as RecordOfKind<typeof kind>;
    expect(checkRecord(record)).toEqual(record);
  });

  it.each(RECORD_KINDS)('refuse a %s record missing a required field', (kind) => {
    const required = payloadSchemas[kind].required as readonly string[];
    if (required.length === 0) return;
    const payload: Record<string, unknown> = { ...full[kind] };
    delete payload[required[0] as string];
    expect(() => checkRecord({ seq: 1, protocol: protocolOf(kind), [kind]: payload })).toThrow(/required/);
  });
});
