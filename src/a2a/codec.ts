/**
 * Encoding and decoding with the size cap first and the schema of the protocol id second.
 * Outgoing messages validate strictly (a message a peer would refuse is refused here); incoming
 * ones drop unknown properties, carry unknown stop reasons and block kinds, and are refused for an
 * unknown protocol id, a body over the cap, a body that is not a JSON object, or a schema failure.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { jsonValueExceeds } from '../util/json-depth.js';
import { A2aError } from './errors.js';
import { MAX_MESSAGE_BYTES, PROTOCOLS, isProtocolId } from './protocol.js';
import type { ProtocolId } from './protocol.js';
import { knownKeys } from './schemas.js';
import type { SchemaMode } from './schemas.js';
import { compileValidators, GENERATED_VALIDATORS, loadGeneratedValidators } from './validators.js';
import type { Formats, Validators } from './validators.js';
import { BLOCK_TYPES } from './types.js';
import type { Block, MessageMap, Message } from './types.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
/** Nesting deeper than this is refused before validation: a peer's JSON is walked with a bound. */
export const MAX_DEPTH = 64;

/** Two decimal digits at `at` (the shape is checked first, so both are digits). */
function twoDigits(s: string, at: number): number {
  return (s.charCodeAt(at) - 48) * 10 + (s.charCodeAt(at + 1) - 48);
}

/**
 * An RFC 3339 date-time that names a real instant: the shape, then each field in its range, the
 * day within its month (leap years included) and the offset within a day. A leap second (60) is
 * refused, as most peers' time parsers refuse it.
 */
export function isDateTime(s: string): boolean {
  if (!RFC3339.test(s)) return false;
  const year = twoDigits(s, 0) * 100 + twoDigits(s, 2);
  const month = twoDigits(s, 5);
  const day = twoDigits(s, 8);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  if (day > days || twoDigits(s, 11) > 23 || twoDigits(s, 14) > 59 || twoDigits(s, 17) > 59) return false;
  const zone = s.charCodeAt(s.length - 1);
  // a numeric offset is the last six characters: +hh:mm
  return zone === 0x5a || zone === 0x7a || (twoDigits(s, s.length - 5) <= 23 && twoDigits(s, s.length - 2) <= 59);
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const ENCODER = new TextEncoder();
const KNOWN_KEYS = new Map(PROTOCOLS.map((p) => [p, knownKeys(p)]));

const FORMATS: Formats = { 'date-time': { type: 'string', validate: isDateTime } };
let generated: Readonly<Record<SchemaMode, Validators>> | null | undefined;
const compiled: Partial<Record<SchemaMode, Validators>> = {};

/** One form's validators: the build's generated code when it matches the schemas, else compiled here. */
function validators(mode: SchemaMode): Validators {
  if (generated === undefined) generated = loadGeneratedValidators(GENERATED_VALIDATORS, FORMATS) ?? null;
  if (generated !== null) return generated[mode];
  return (compiled[mode] ??= compileValidators(mode, FORMATS));
}

function describe(v: ValidateFunction): string {
  const first = v.errors?.[0];
  if (first === undefined) return 'does not match its schema';
  const where = first.instancePath === '' ? 'message' : first.instancePath;
  const params = first.params as Record<string, unknown>;
  const prop = params.unevaluatedProperty ?? params.additionalProperty;
  if (first.keyword === 'false schema') return `${where} is a field of another protocol`;
  return `${where} ${first.message ?? 'is invalid'}${typeof prop === 'string' ? ` (${prop})` : ''}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Loads (or, without the build's generated code, compiles) every validator now rather than on
 * the first message. A server calls this before it answers anything, so its first reply does not
 * pay for it against the caller's deadline.
 */
export function prepareCodec(): void {
  validators('strict');
  validators('lenient');
}

/** Checks an outgoing message against the strict schema of its protocol id. */
export function validateOutgoing(message: Message): void {
  const protocol: string = message.protocol;
  const v = isProtocolId(protocol) ? validators('strict').get(protocol) : undefined;
  if (v === undefined) throw new A2aError('unknown_protocol', `unknown message protocol ${JSON.stringify(protocol)}`);
  if (!v(message)) throw new A2aError('invalid', `outgoing ${protocol} ${describe(v)}`);
}

/** Validates strictly and serializes; refuses a result over the size cap. */
export function encode(message: Message): Uint8Array {
  validateOutgoing(message);
  const data = ENCODER.encode(JSON.stringify(message));
  if (data.byteLength > MAX_MESSAGE_BYTES) {
    throw new A2aError('oversize', `outgoing ${message.protocol} is ${data.byteLength} bytes, over the ${MAX_MESSAGE_BYTES} byte limit`);
  }
  return data;
}

function toBlock(raw: Record<string, unknown>): Block {
  const kind = raw.type;
  if (typeof kind === 'string' && (BLOCK_TYPES as readonly string[]).includes(kind)) return raw as unknown as Block;
  return { type: 'opaque', kind: String(kind), raw };
}

/**
 * Decodes one incoming body. `expected` lists the protocol ids the caller can take here; any
 * other known id is `unexpected_protocol`, so the subject is never trusted to say what arrived.
 */
export function decode<P extends ProtocolId>(data: Uint8Array, expected: readonly P[]): MessageMap[P];
export function decode(data: Uint8Array): Message;
export function decode(data: Uint8Array, expected?: readonly ProtocolId[]): Message {
  if (data.byteLength > MAX_MESSAGE_BYTES) {
    throw new A2aError('oversize', `message of ${data.byteLength} bytes is over the ${MAX_MESSAGE_BYTES} byte limit`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(UTF8.decode(data));
  } catch (err) {
    throw new A2aError('malformed', `message is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  if (!isObject(parsed)) throw new A2aError('malformed', 'message is not a JSON object');
  if (jsonValueExceeds(parsed, MAX_DEPTH)) throw new A2aError('malformed', `message nests deeper than ${MAX_DEPTH} levels`);
  const protocol = parsed.protocol;
  if (typeof protocol !== 'string') throw new A2aError('invalid', 'message has no protocol id');
  if (!isProtocolId(protocol)) throw new A2aError('unknown_protocol', `unknown message protocol ${JSON.stringify(protocol.slice(0, 100))}`);
  if (expected !== undefined && !expected.includes(protocol)) {
    throw new A2aError(
      'unexpected_protocol',
      `unexpected message protocol: got ${JSON.stringify(protocol)}, want ${expected.map((e) => JSON.stringify(e)).join(' or ')}`,
    );
  }
  const keys = KNOWN_KEYS.get(protocol) as ReadonlySet<string>;
  for (const key in parsed) if (!keys.has(key) && !isSiblingCandidate(key)) delete parsed[key];
  const v = validators('lenient').get(protocol) as ValidateFunction;
  if (!v(parsed)) throw new A2aError('invalid', `${protocol} ${describe(v)}`);
  if (protocol === 'io.choria.fisk-ai.v1.event' && isObject(parsed.block)) parsed.block = toBlock(parsed.block);
  return parsed as unknown as Message;
}

const SIBLINGS = new Set(PROTOCOLS.flatMap((p) => [...knownKeys(p)]));
/** A key some protocol defines is kept for the schema to refuse by name; anything else is discarded. */
function isSiblingCandidate(key: string): boolean {
  return SIBLINGS.has(key);
}
