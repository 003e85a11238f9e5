/**
 * Validation and serialization of journal records. Every record is checked against its schema
 * when written and again when read, so a journal edited by hand, truncated or written by a buggy
 * build is refused with the line and field at fault instead of being folded into a wrong
 * conversation.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { jsonTextDepth } from '../util/json-depth.js';
import { RunStateError } from './errors.js';
import { FORMAT_VERSION, PROTOCOL_PREFIX, RECORD_KINDS, protocolOf } from './records.js';
import type { RecordKind, SessionRecord, StoredRecord } from './records.js';
import { messageSchema, recordSchema } from './schemas.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();
const KNOWN = new Set<string>(RECORD_KINDS.map((k) => protocolOf(k)));

/** Compiled on first use per protocol: a command that reads two kinds never pays for ten. */
function validatorFor(protocol: string): ValidateFunction | undefined {
  if (!KNOWN.has(protocol)) return undefined;
  let v = validators.get(protocol);
  if (v === undefined) {
    if (ajv === undefined) {
      // the schemas are constants checked against the 2020-12 meta-schema by schemas.test.ts;
      // validating them again at every start would cost more than all the records of a run
      ajv = new Ajv2020({ strict: true, allErrors: false, validateSchema: false });
      ajv.addFormat('date-time', { type: 'string', validate: (s: string) => RFC3339.test(s) && !Number.isNaN(Date.parse(s)) });
      ajv.addSchema(messageSchema);
    }
    v = ajv.compile(recordSchema(protocol.slice(PROTOCOL_PREFIX.length) as RecordKind));
    validators.set(protocol, v);
  }
  return v;
}

function describeErrors(v: ValidateFunction): string {
  const first = v.errors?.[0];
  if (first === undefined) return 'does not match its schema';
  const where = first.instancePath === '' ? 'record' : first.instancePath;
  const extra = first.params as Record<string, unknown>;
  const detail =
    typeof extra.additionalProperty === 'string'
      ? ` (${extra.additionalProperty})`
      : typeof extra.unevaluatedProperty === 'string'
        ? ` (${extra.unevaluatedProperty})`
        : '';
  return `${where} ${first.message ?? 'is invalid'}${detail}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Checks a parsed value as a record. A known protocol must match its schema exactly; an unknown
 * protocol under this namespace is accepted only with `optional: true` (a newer build's record
 * that an older reader may safely skip). Throws `RunStateError` with code `schema`.
 */
export function checkRecord(value: unknown): StoredRecord {
  if (!isObject(value)) throw new RunStateError('schema', 'record is not a JSON object');
  const { seq, protocol } = value;
  if (typeof protocol !== 'string') throw new RunStateError('schema', 'record has no protocol string');
  const meta = value.meta;
  if (protocol === protocolOf('meta') && typeof meta === 'object' && meta !== null) {
    // checked before the schema: a newer build's meta may carry fields this schema does not know,
    // and "unsupported version" is the answer that tells the operator what to do
    const version = (meta as Record<string, unknown>).version;
    if (typeof version === 'number' && Number.isInteger(version) && version !== FORMAT_VERSION) {
      throw new RunStateError('version', `unsupported snapshot version: snapshot version ${version}, supported ${FORMAT_VERSION}`);
    }
  }
  const validate = validatorFor(protocol);
  if (validate === undefined) {
    if (value.optional === true && protocol.startsWith(PROTOCOL_PREFIX) && typeof seq === 'number' && Number.isInteger(seq) && seq >= 1) {
      return { seq, protocol, optional: true, unknown: true };
    }
    throw new RunStateError('schema', `record has an unknown protocol ${JSON.stringify(protocol)}`);
  }
  if (!validate(value)) {
    throw new RunStateError('schema', `${protocol} record seq ${String(seq)}: ${describeErrors(validate)}`);
  }
  return value as unknown as SessionRecord;
}

/**
 * The deepest nesting a record may hold. Every walk over a record is bounded or iterative, but the
 * provider SDKs serialise a replayed conversation recursively; a record past this bound is refused
 * when written and when read, so a journal never holds a conversation that cannot be sent again.
 */
export const MAX_RECORD_DEPTH = 1000;

function tooDeep(seq: unknown): RunStateError {
  return new RunStateError(
    'schema',
    `record seq ${String(seq)} nests deeper than ${MAX_RECORD_DEPTH} levels of arrays and objects (tool arguments or results too deep to send to a model again); a run holding it cannot be resumed: remove it with fisk session rm`,
  );
}

/**
 * Serializes a record to its one-line body after validating it; the body is the same in every
 * backend. A record nested deeper than `MAX_RECORD_DEPTH` is refused (`schema`).
 */
export function encodeRecord(record: SessionRecord): string {
  checkRecord(record);
  const body = JSON.stringify(record);
  if (jsonTextDepth(body, MAX_RECORD_DEPTH) > MAX_RECORD_DEPTH) throw tooDeep(record.seq);
  return body;
}

/** Parses and validates one stored body. Throws `RunStateError` (`corrupt` for bad JSON, `schema` for a bad shape). */
export function decodeRecord(body: string): StoredRecord {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    throw new RunStateError('corrupt', `record is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  // measured on the text, after it parsed: a torn line stays `corrupt` and is dropped as a torn write
  if (jsonTextDepth(body, MAX_RECORD_DEPTH) > MAX_RECORD_DEPTH) throw tooDeep(isObject(value) ? value.seq : undefined);
  return checkRecord(value);
}

/** The schema every record of a kind must match, for documentation and external validators. */
export function schemaFor(kind: RecordKind): Record<string, unknown> {
  return recordSchema(kind);
}
