/**
 * One JSON Schema (2020-12) per protocol id plus a shared definitions file, built from one
 * description in two forms:
 *
 * - `strict`: the form outgoing messages are checked against, equal to what a reference peer
 *   enforces. The header is included by `$ref`, `protocol` is a `const`, and
 *   `unevaluatedProperties: false` refuses any key neither the header nor the body defines.
 * - `lenient`: the form incoming messages are checked against. Unknown keys are discarded (the
 *   decoder drops them at the top, ajv's `removeAdditional` below), an unknown stop reason is
 *   carried, and an unknown block kind validates against its framing only.
 *
 * In both forms every schema refuses, by name, the body fields its siblings define, so a body
 * labelled with the wrong protocol id cannot pass by having its real fields discarded.
 */
import { IDENTITY_PATTERN_SOURCE, PROTOCOLS, PROTOCOL_NAMESPACE, REQUEST_ID_PATTERN_SOURCE, schemaFileOf } from './protocol.js';
import type { ProtocolId } from './protocol.js';
import { BLOCK_TYPES, HOSTED_QUESTION_MODES, QUESTION_KINDS, RUN_FAILURE_CLASSES, STOP_REASONS } from './types.js';
import type { BlockType } from './types.js';
import { REFUSAL_REASONS } from '../toolkit/invoke/types.js';

export type SchemaMode = 'strict' | 'lenient';
export type JsonSchema = Readonly<Record<string, unknown>>;

export const SCHEMA_BASE = `https://choria.io/schemas/${PROTOCOL_NAMESPACE}/`;
export const DRAFT_2020 = 'https://json-schema.org/draft/2020-12/schema';
const COMMON = 'common.json';
const ref = (def: string): JsonSchema => ({ $ref: `${COMMON}#/$defs/${def}` });

const str: JsonSchema = { type: 'string' };
const nonNegative: JsonSchema = { type: 'integer', minimum: 0 };
const strings: JsonSchema = { type: 'array', items: { type: 'string' } };
const anyObject: JsonSchema = { type: 'object' };

function closed(properties: Record<string, JsonSchema>, required: readonly string[] = []): JsonSchema {
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

/** The header fields, in the reference's names and types. */
export const HEADER_FIELDS = [
  'protocol',
  'id',
  'request',
  'conversation',
  'parent',
  'sequence',
  'time',
  'sender',
  'recipient',
  'must_understand',
] as const;

function blockBodies(mode: SchemaMode): Record<BlockType, { properties: Record<string, JsonSchema>; required: readonly string[] }> {
  // a refusal reason this build does not know is still a call that never ran
  const refused: JsonSchema = mode === 'strict' ? { enum: [...REFUSAL_REASONS] } : { type: 'string', minLength: 1 };
  return {
    thinking: { properties: { text: str, signature: str, provider: str }, required: ['text'] },
    text: { properties: { text: str }, required: ['text'] },
    tool_call: { properties: { id: str, name: str, input: anyObject }, required: ['id', 'name'] },
    tool_result: {
      properties: { call_id: str, is_error: { type: 'boolean' }, output: str, exec: ref('exec'), refused },
      required: ['call_id'],
    },
    agent_call: { properties: { id: str, name: str, task: str }, required: ['id', 'name', 'task'] },
    status: { properties: { iteration: nonNegative, phase: str, usage: ref('usage') }, required: [] },
  };
}

function commonSchema(mode: SchemaMode): JsonSchema {
  const bodies = blockBodies(mode);
  const blockBranches = BLOCK_TYPES.map((t) => ({
    if: { properties: { type: { const: t } }, required: ['type'] },
    then: closed({ type: { const: t }, ...bodies[t].properties }, ['type', ...bodies[t].required]),
  }));
  return {
    $schema: DRAFT_2020,
    $id: `${SCHEMA_BASE}${COMMON}`,
    $defs: {
      identity: closed(
        { name: { type: 'string', pattern: IDENTITY_PATTERN_SOURCE }, instance: { type: 'string', pattern: IDENTITY_PATTERN_SOURCE } },
        ['name'],
      ),
      header: {
        type: 'object',
        properties: {
          protocol: str,
          id: { type: 'string', minLength: 1 },
          request: { type: 'string', minLength: 1 },
          conversation: { type: 'string', minLength: 1 },
          parent: str,
          sequence: nonNegative,
          time: { type: 'string', format: 'date-time' },
          sender: ref('identity'),
          recipient: ref('identity'),
          must_understand: { type: 'boolean' },
        },
        required: ['protocol', 'id', 'request', 'conversation', 'sequence', 'time', 'sender'],
      },
      stop_reason: mode === 'strict' ? { enum: [...STOP_REASONS] } : str,
      usage: closed({ input_tokens: nonNegative, output_tokens: nonNegative }),
      exec: closed({ command: str, exit_code: { type: 'integer' }, truncated: { type: 'boolean' } }),
      budget: closed({ max_tokens: nonNegative, max_iterations: nonNegative, call_timeout: str }),
      block: {
        type: 'object',
        properties: { type: mode === 'strict' ? { enum: [...BLOCK_TYPES] } : str },
        required: ['type'],
        allOf: blockBranches,
      },
      tool_descriptor: closed({ name: str, description: str, input_schema: anyObject }, ['name']),
    },
  };
}

const delegation = {
  properties: { prompt: str, context: str, tool_hints: strings, budget: ref('budget'), stream: { type: 'boolean' } },
  required: ['prompt'],
};
const questionId: JsonSchema = { type: 'string', pattern: REQUEST_ID_PATTERN_SOURCE };

/** Each protocol's own body: its fields and which of them are required. */
export const BODIES: Record<
  ProtocolId,
  { properties: Record<string, JsonSchema>; required: readonly string[]; dependentRequired?: Readonly<Record<string, readonly string[]>> }
> = {
  'io.choria.fisk-ai.v1.request': delegation,
  'io.choria.fisk-ai.v1.followup': delegation,
  'io.choria.fisk-ai.v1.event': { properties: { block: ref('block') }, required: ['block'] },
  'io.choria.fisk-ai.v1.result': {
    properties: { stop_reason: ref('stop_reason'), text: str, usage: ref('usage') },
    required: ['stop_reason'],
  },
  'io.choria.fisk-ai.v1.error': { properties: { error: str, stop_reason: ref('stop_reason'), code: str }, required: ['error'] },
  'io.choria.fisk-ai.v1.cancel': { properties: { reason: str }, required: [] },
  'io.choria.fisk-ai.v1.ack': { properties: { accepted: { type: 'boolean' }, reason: str }, required: ['accepted'] },
  'io.choria.fisk-ai.v1.tool.request': { properties: { name: str, input: anyObject }, required: ['name'] },
  'io.choria.fisk-ai.v1.tool.reply': { properties: { is_error: { type: 'boolean' }, output: str, exec: ref('exec') }, required: [] },
  'io.choria.fisk-ai.v1.discovery.request': { properties: {}, required: [] },
  'io.choria.fisk-ai.v1.discovery.reply': {
    properties: { name: str, version: str, description: str, protocols: strings, tools: { type: 'array', items: ref('tool_descriptor') } },
    required: ['name', 'version'],
  },
  'io.choria.fisk-ai.v1.question': {
    // an approval's tool and the tag that gated it, so the caller shows the decision as the agent would
    properties: {
      question: questionId,
      kind: { enum: [...QUESTION_KINDS] },
      text: str,
      options: strings,
      tool: { type: 'string', minLength: 1 },
      trigger: { type: 'string', minLength: 1 },
    },
    required: ['question', 'kind', 'text'],
    dependentRequired: { tool: ['trigger'], trigger: ['tool'] },
  },
  'io.choria.fisk-ai.v1.answer': {
    properties: { question: questionId, value: { type: ['string', 'boolean', 'null'] }, reason: str },
    required: ['question', 'value'],
  },
  'io.choria.fisk-ai.v1.keepalive': { properties: { question: questionId }, required: [] },
  'io.choria.fisk-ai.v1.warning': { properties: { text: str }, required: ['text'] },
  'io.choria.fisk-ai.v1.text': { properties: { text: str }, required: ['text'] },
  'io.choria.fisk-ai.v1.run.start': {
    properties: {
      start: closed(
        {
          prompt: str,
          resume: { type: 'string', minLength: 1 },
          force: { type: 'boolean' },
          checkpoint: { type: 'boolean' },
          name: { type: 'string', minLength: 1 },
          questions: { enum: [...HOSTED_QUESTION_MODES] },
          interactive: { type: 'boolean' },
          stream: { type: 'boolean' },
          model: { type: 'string', minLength: 1 },
        },
        ['questions'],
      ),
    },
    required: ['start'],
  },
  'io.choria.fisk-ai.v1.run.started': {
    properties: { started: { type: 'object', properties: { kind: { enum: ['new', 'resumed'] } }, required: ['kind'] } },
    required: ['started'],
  },
  'io.choria.fisk-ai.v1.run.event': {
    properties: { event: { type: 'object', properties: { type: str }, required: ['type'] } },
    required: ['event'],
  },
  'io.choria.fisk-ai.v1.run.ask': {
    properties: { question: questionId, call: { type: 'object', properties: { kind: { enum: [...QUESTION_KINDS] } }, required: ['kind'] } },
    required: ['question', 'call'],
  },
  'io.choria.fisk-ai.v1.run.abort': { properties: { reason: str }, required: [] },
  'io.choria.fisk-ai.v1.run.outcome': {
    properties: {
      outcome: { type: 'object', properties: { status: str }, required: ['status'] },
      failure: closed(
        {
          class: { enum: [...RUN_FAILURE_CLASSES] },
          code: str,
          category: str,
          message: str,
          // a configuration error's issues, each naming the key to change
          issues: { type: 'array', items: closed({ code: str, key: str, message: str, at: str }, ['code', 'key', 'message']) },
        },
        ['code', 'category', 'message'],
      ),
    },
    required: [],
  },
};

const ALL_BODY_FIELDS = new Set(Object.values(BODIES).flatMap((b) => Object.keys(b.properties)));

/** The body fields of other protocols that this one refuses by name. */
export function siblingFields(protocol: ProtocolId): string[] {
  const own = new Set(Object.keys(BODIES[protocol].properties));
  return [...ALL_BODY_FIELDS].filter((f) => !own.has(f) && !(HEADER_FIELDS as readonly string[]).includes(f)).sort();
}

/** Every top-level key a message of this protocol may carry. */
export function knownKeys(protocol: ProtocolId): ReadonlySet<string> {
  return new Set([...HEADER_FIELDS, ...Object.keys(BODIES[protocol].properties)]);
}

/** The schema of one protocol id. */
export function messageSchema(protocol: ProtocolId, mode: SchemaMode): JsonSchema {
  const body = BODIES[protocol];
  const refused = Object.fromEntries(siblingFields(protocol).map((f) => [f, false]));
  return {
    $schema: DRAFT_2020,
    $id: `${SCHEMA_BASE}${schemaFileOf(protocol)}`,
    type: 'object',
    allOf: [ref('header')],
    properties: { protocol: { const: protocol }, ...body.properties, ...refused },
    ...(body.required.length > 0 ? { required: body.required } : {}),
    ...(body.dependentRequired === undefined ? {} : { dependentRequired: body.dependentRequired }),
    ...(mode === 'strict' ? { unevaluatedProperties: false } : {}),
  };
}

/** The shared definitions file. */
export function definitionsSchema(mode: SchemaMode): JsonSchema {
  return commonSchema(mode);
}

/** Every schema of one form: the definitions first, then one per protocol id. */
export function allSchemas(mode: SchemaMode): JsonSchema[] {
  return [commonSchema(mode), ...PROTOCOLS.map((p) => messageSchema(p, mode))];
}
