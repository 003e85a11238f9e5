/**
 * JSON Schemas (2020-12) for every journal record, checked on write and on read. The TypeScript
 * types in `records.ts` are pinned to these by `schemas.test.ts`, at the type level (property
 * names and required lists) and by validating typed samples.
 */
import { FINGERPRINT_THINKING, APPROVAL_DECISIONS, GATE_OUTCOMES, TERMINAL_REASONS, protocolOf } from './records.js';
import type { RecordKind } from './records.js';
import { TOOL_IMAGE_TYPES } from '../llm/types.js';

const nonNegative = { type: 'integer', minimum: 0 } as const;
const nonEmpty = { type: 'string', minLength: 1 } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;

const toolResult = {
  type: 'object',
  properties: {
    tool_use_id: nonEmpty,
    content: { type: 'string' },
    is_error: { type: 'boolean' },
    images: {
      type: 'array',
      items: {
        type: 'object',
        properties: { media_type: { enum: TOOL_IMAGE_TYPES }, data: { type: 'string', contentEncoding: 'base64' } },
        required: ['media_type', 'data'],
        additionalProperties: false,
      },
    },
  },
  required: ['tool_use_id', 'content'],
  additionalProperties: false,
} as const;

/** One content block: exactly one of five keys. */
const block = {
  oneOf: [
    {
      type: 'object',
      properties: {
        text: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
      },
      required: ['text'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        thinking: {
          type: 'object',
          properties: { text: { type: 'string' }, signature: { type: 'string', contentEncoding: 'base64' } },
          additionalProperties: false,
        },
      },
      required: ['thinking'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        tool_use: {
          type: 'object',
          properties: { id: nonEmpty, name: nonEmpty, input: {} },
          required: ['id', 'name', 'input'],
          additionalProperties: false,
        },
      },
      required: ['tool_use'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { tool_result: toolResult },
      required: ['tool_result'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        provider: {
          type: 'object',
          properties: { kind: nonEmpty, raw: {} },
          required: ['kind', 'raw'],
          additionalProperties: false,
        },
      },
      required: ['provider'],
      additionalProperties: false,
    },
  ],
} as const;

/** A stored message, registered once and referenced by the records that carry one. */
export const messageSchema = {
  $id: 'https://choria.io/schemas/fisk-ai/v1/session/message.json',
  type: 'object',
  properties: {
    role: { enum: ['user', 'assistant'] },
    content: { type: ['array', 'null'], items: block },
  },
  required: ['role', 'content'],
  additionalProperties: false,
} as const;

const message = { $ref: messageSchema.$id } as const;

/** Schema of the fingerprint object inside meta. */
export const fingerprintSchema = {
  type: 'object',
  properties: {
    provider: { type: 'string' },
    model: { type: 'string' },
    system_hash: { type: 'string', pattern: '^([0-9a-f]{64})?$' },
    tools_hash: { type: 'string', pattern: '^([0-9a-f]{64})?$' },
    thinking_mode: { enum: FINGERPRINT_THINKING },
    max_tokens: nonNegative,
    max_iterations: nonNegative,
    sandbox: { type: 'string' },
  },
  required: [],
  additionalProperties: false,
} as const;

/** Schemas of each record kind's payload. */
export const payloadSchemas = {
  meta: {
    type: 'object',
    properties: {
      version: { type: 'integer', minimum: 1 },
      run_id: nonEmpty,
      created: dateTime,
      fingerprint: fingerprintSchema,
      prompt: { type: 'string' },
      interactive: { type: 'boolean' },
    },
    required: ['version', 'run_id', 'created', 'fingerprint'],
    additionalProperties: false,
  },
  assistant: {
    type: 'object',
    properties: {
      iteration: nonNegative,
      message,
      stop_reason: { type: 'string' },
      in_tokens: nonNegative,
      out_tokens: nonNegative,
      cache_read_tokens: nonNegative,
      cache_create_tokens: nonNegative,
    },
    required: ['iteration', 'message', 'in_tokens', 'out_tokens'],
    additionalProperties: false,
  },
  user: {
    type: 'object',
    properties: { message },
    required: ['message'],
    additionalProperties: false,
  },
  tool_result: {
    type: 'object',
    properties: {
      tool_use_id: nonEmpty,
      result: toolResult,
      remote: { type: 'boolean' },
      gate: {
        type: 'object',
        properties: {
          outcome: { enum: GATE_OUTCOMES },
          trigger: { type: 'string' },
          command_line: { type: 'string' },
          reason: { type: 'string' },
        },
        required: ['outcome', 'trigger', 'command_line'],
        additionalProperties: false,
      },
      delegated: {
        type: 'object',
        properties: {
          input_tokens: { type: 'integer', minimum: 0 },
          output_tokens: { type: 'integer', minimum: 0 },
          counts_budget: { type: 'boolean' },
        },
        required: ['input_tokens', 'output_tokens'],
        additionalProperties: false,
      },
    },
    required: ['tool_use_id', 'result'],
    additionalProperties: false,
  },
  deferral: {
    type: 'object',
    properties: { tool_use_id: nonEmpty, tool: nonEmpty, note: { type: 'string' } },
    required: ['tool_use_id', 'tool'],
    additionalProperties: false,
  },
  grant: {
    type: 'object',
    properties: { tool: nonEmpty, tool_use_id: nonEmpty },
    required: ['tool', 'tool_use_id'],
    additionalProperties: false,
  },
  approval: {
    type: 'object',
    properties: { tool_use_id: nonEmpty, decision: { enum: APPROVAL_DECISIONS }, by: { type: 'string' }, reason: { type: 'string' } },
    required: ['tool_use_id', 'decision'],
    additionalProperties: false,
  },
  claim: {
    type: 'object',
    properties: { by: { type: 'string' }, at: dateTime },
    required: ['by', 'at'],
    additionalProperties: false,
  },
  terminal: {
    type: 'object',
    properties: { reason: { enum: TERMINAL_REASONS }, message: { type: 'string' } },
    required: ['reason'],
    additionalProperties: false,
  },
  memory_scope: {
    type: 'object',
    properties: { revisions: { type: 'object', additionalProperties: nonNegative } },
    required: ['revisions'],
    additionalProperties: false,
  },
} as const satisfies Record<RecordKind, object>;

const OPTIONAL_FLAG: Readonly<Record<RecordKind, boolean>> = {
  meta: false,
  assistant: false,
  user: false,
  tool_result: false,
  deferral: false,
  grant: true,
  approval: true,
  claim: true,
  terminal: false,
  memory_scope: true,
};

/** The full schema of one record kind: envelope plus its single payload key. */
export function recordSchema(kind: RecordKind): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    seq: { type: 'integer', minimum: 1 },
    protocol: { const: protocolOf(kind) },
    [kind]: payloadSchemas[kind],
  };
  if (OPTIONAL_FLAG[kind]) properties.optional = { type: 'boolean' };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `https://choria.io/schemas/fisk-ai/v1/session/${kind}.json`,
    title: protocolOf(kind),
    type: 'object',
    properties,
    required: ['seq', 'protocol', kind],
    unevaluatedProperties: false,
  };
}
