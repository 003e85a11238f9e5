/**
 * The task record: what was asked and what came back, kept apart from the journal (how the work
 * was done). Its states are only the ones a store can observe: the task was asked (`pending`), or
 * a result was stored (`completed` with an answer, `failed` with a reason and a message). Queued,
 * claimed, running and retrying belong to the queue and are not repeated here.
 *
 * The JSON Schema below is checked before a record is written and again when one is read, so a
 * record edited by hand or written by a buggy build is refused rather than reported.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { TaskError } from './errors.js';

/** What a store can observe about a task. */
export const TASK_STATES = ['pending', 'completed', 'failed'] as const;
export type TaskState = (typeof TASK_STATES)[number];

/** Why a task failed: how the run ended, or `refused` when it could not start. */
export const TASK_FAILURES = ['budget', 'max_iterations', 'error', 'aborted', 'suspended', 'refused'] as const;
export type TaskFailure = (typeof TASK_FAILURES)[number];

/** A task id: the same shape as a run id, since it becomes a file name and a KV key. */
export const TASK_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
export const TASK_ID_MAX_LENGTH = 128;

/** One task as stored (snake_case, the stored JSON shape). */
export interface TaskRecord {
  readonly id: string;
  /** The journal the work is recorded in (derived, never chosen by the caller). */
  readonly run_id: string;
  readonly prompt: string;
  readonly state: TaskState;
  /** When the task was first recorded (RFC 3339). */
  readonly created: string;
  /** When the result was stored; absent while pending. */
  readonly finished?: string;
  /** The answer of a completed task. */
  readonly answer?: string;
  /** How a failed task ended. */
  readonly reason?: TaskFailure;
  /** What stopped a failed task, in words. */
  readonly message?: string;
}

/** The result a worker stores once: an answer, or the reason there is none. */
export type TaskResult =
  | { readonly state: 'completed'; readonly answer: string }
  | { readonly state: 'failed'; readonly reason: TaskFailure; readonly message: string };

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const dateTime = { type: 'string', format: 'date-time' } as const;

/** The task record's JSON Schema (2020-12). */
export const TASK_RECORD_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://fisk-ai.dev/schemas/task-record.json',
  title: 'fisk-ai task record',
  type: 'object',
  properties: {
    id: { type: 'string', pattern: TASK_ID_PATTERN.source, maxLength: TASK_ID_MAX_LENGTH },
    run_id: { type: 'string', pattern: TASK_ID_PATTERN.source, maxLength: TASK_ID_MAX_LENGTH },
    prompt: { type: 'string' },
    state: { enum: [...TASK_STATES] },
    created: dateTime,
    finished: dateTime,
    answer: { type: 'string' },
    reason: { enum: [...TASK_FAILURES] },
    message: { type: 'string' },
  },
  required: ['id', 'run_id', 'prompt', 'state', 'created'],
  additionalProperties: false,
  oneOf: [
    {
      properties: { state: { const: 'pending' } },
      not: { anyOf: [{ required: ['finished'] }, { required: ['answer'] }, { required: ['reason'] }, { required: ['message'] }] },
    },
    {
      properties: { state: { const: 'completed' } },
      required: ['finished', 'answer'],
      not: { anyOf: [{ required: ['reason'] }, { required: ['message'] }] },
    },
    {
      properties: { state: { const: 'failed' } },
      required: ['finished', 'reason', 'message'],
      not: { required: ['answer'] },
    },
  ],
} as const;

let validator: ValidateFunction | undefined;
function validate(): ValidateFunction {
  if (validator === undefined) {
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: false });
    ajv.addFormat('date-time', { type: 'string', validate: (s: string) => RFC3339.test(s) && !Number.isNaN(Date.parse(s)) });
    validator = ajv.compile(TASK_RECORD_SCHEMA);
  }
  return validator;
}

/** Refuses a task id that could escape a directory or a key; throws TaskError `invalid_id`. */
export function checkTaskId(id: string): string {
  if (id.length > TASK_ID_MAX_LENGTH || !TASK_ID_PATTERN.test(id)) {
    throw new TaskError(
      'invalid_id',
      `invalid task id ${JSON.stringify(id.slice(0, 40))}${id.length > 40 ? '...' : ''}: use up to ${TASK_ID_MAX_LENGTH} letters, digits, "-" or "_", starting with a letter or digit`,
    );
  }
  return id;
}

/** Checks a record against the schema; throws TaskError `schema` naming the field at fault. */
export function checkTaskRecord(value: unknown, where: string): TaskRecord {
  const v = validate();
  if (!v(value)) {
    const first = v.errors?.[0];
    const at = first === undefined || first.instancePath === '' ? 'the record' : first.instancePath.slice(1);
    throw new TaskError('schema', `${where}: not a valid task record: ${at} ${first?.message ?? 'is invalid'}`);
  }
  return value as TaskRecord;
}

/** Parses and checks stored text. */
export function decodeTaskRecord(text: string, where: string): TaskRecord {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new TaskError('schema', `${where}: not JSON: ${(err as Error).message}`, { cause: err });
  }
  return checkTaskRecord(data, where);
}

/** Checks, then serializes, a record for storing. */
export function encodeTaskRecord(record: TaskRecord, where: string): string {
  return JSON.stringify(checkTaskRecord(record, where));
}

/** A new pending record. */
export function pendingTask(id: string, runId: string, prompt: string, now: Date = new Date()): TaskRecord {
  return { id: checkTaskId(id), run_id: runId, prompt, state: 'pending', created: now.toISOString() };
}

/** The record with its result stored. */
export function finishedTask(record: TaskRecord, result: TaskResult, now: Date = new Date()): TaskRecord {
  const base = { id: record.id, run_id: record.run_id, prompt: record.prompt, created: record.created, finished: now.toISOString() };
  return result.state === 'completed' ? { ...base, state: 'completed', answer: result.answer } : { ...base, state: 'failed', reason: result.reason, message: result.message };
}
