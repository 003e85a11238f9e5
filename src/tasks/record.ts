/**
 * The task record: what was asked and what came back, kept apart from the journal (how the work
 * was done). A task is `pending` (asked, or handed back to be tried again), `running` (a worker
 * holds it: which one and since when), or has its result: `completed` with an answer, `failed`
 * with a reason and a message, or `dead` when it was given up on (tried too often, or too old when
 * it was pulled). Every attempt that failed in a way worth retrying leaves its reason, so a dead
 * task says why each attempt failed.
 *
 * The JSON Schema below is checked before a record is written and again when one is read, so a
 * record edited by hand or written by a buggy build is refused rather than reported.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { TaskError } from './errors.js';

/** Where a task stands. */
export const TASK_STATES = ['pending', 'running', 'completed', 'failed', 'dead'] as const;
export type TaskState = (typeof TASK_STATES)[number];

/** The states that are a result: stored once, never replaced except by `fisk task retry`. */
export const FINAL_TASK_STATES = ['completed', 'failed', 'dead'] as const satisfies readonly TaskState[];
export type FinalTaskState = (typeof FINAL_TASK_STATES)[number];

/** Whether a state is a result. */
export function isFinalState(state: TaskState): state is FinalTaskState {
  return (FINAL_TASK_STATES as readonly TaskState[]).includes(state);
}

/**
 * Why a task failed or died: how the run ended, `refused` when it could not start, `timeout` when
 * it ran past `expose.agent.jobs.timeout`; a dead task's `max_deliver` or `max_age`.
 */
export const TASK_FAILURES = [
  'budget',
  'max_iterations',
  'error',
  'aborted',
  'suspended',
  'refused',
  'timeout',
  'max_deliver',
  'max_age',
] as const;
export type TaskFailure = (typeof TASK_FAILURES)[number];

/** A task id: the same shape as a run id, since it becomes a file name and a KV key. */
export const TASK_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
export const TASK_ID_MAX_LENGTH = 128;

/** How many failed attempts a record keeps (the newest), and how long each reason may be. */
export const MAX_ATTEMPT_FAILURES = 20;
const MAX_FAILURE_CHARS = 1_000;

/** One attempt that failed in a way worth trying again. */
export interface AttemptFailure {
  /** Which attempt (1 for the first run). */
  readonly attempt: number;
  /** When it failed (RFC 3339). */
  readonly at: string;
  /** The worker it failed on, when known. */
  readonly worker?: string;
  readonly message: string;
}

/** The limits a job's submission lowered for its run, kept so a retry runs under the same ones. */
export interface TaskBudget {
  readonly max_tokens?: number;
  readonly max_iterations?: number;
}

/** One task as stored (snake_case, the stored JSON shape). */
export interface TaskRecord {
  readonly id: string;
  /** The journal the work is recorded in (derived, never chosen by the caller). */
  readonly run_id: string;
  readonly prompt: string;
  /** The budget the submission asked for, when it lowered one. */
  readonly budget?: TaskBudget;
  readonly state: TaskState;
  /** When the task was first recorded (RFC 3339). */
  readonly created: string;
  /** When the result was stored; present exactly when the state is a result. */
  readonly finished?: string;
  /** The answer of a completed task. */
  readonly answer?: string;
  /** How a failed or dead task ended. */
  readonly reason?: TaskFailure;
  /** What stopped a failed or dead task, in words. */
  readonly message?: string;
  /** How many times a worker started the task's run (absent: never). */
  readonly attempts?: number;
  /** The worker holding a running task, or the last one that ran it. */
  readonly worker?: string;
  /** When the worker holding a running task took it (RFC 3339). */
  readonly started?: string;
  /** The attempts that failed in a way worth retrying, oldest first (the newest are kept). */
  readonly failures?: readonly AttemptFailure[];
}

/** The result a worker stores once: an answer, or the reason there is none. */
export type TaskResult =
  | { readonly state: 'completed'; readonly answer: string }
  | { readonly state: 'failed' | 'dead'; readonly reason: TaskFailure; readonly message: string };

/** What a worker records about a task still in the queue: that it runs it, or that it handed it back. */
export type TaskProgress =
  | { readonly state: 'running'; readonly worker: string; readonly attempts: number; readonly started?: Date }
  | { readonly state: 'pending'; readonly failure: Omit<AttemptFailure, 'at'> & { readonly at?: Date } }
  /** Handed back without a failure to count (drained, or failed while its worker was paused). */
  | { readonly state: 'pending'; readonly attempts: number };

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
    budget: {
      type: 'object',
      properties: { max_tokens: { type: 'integer', minimum: 1 }, max_iterations: { type: 'integer', minimum: 1 } },
      additionalProperties: false,
      minProperties: 1,
    },
    state: { enum: [...TASK_STATES] },
    created: dateTime,
    finished: dateTime,
    answer: { type: 'string' },
    reason: { enum: [...TASK_FAILURES] },
    message: { type: 'string' },
    attempts: { type: 'integer', minimum: 0 },
    worker: { type: 'string', maxLength: 256 },
    started: dateTime,
    failures: {
      type: 'array',
      maxItems: MAX_ATTEMPT_FAILURES,
      items: {
        type: 'object',
        properties: {
          attempt: { type: 'integer', minimum: 1 },
          at: dateTime,
          worker: { type: 'string', maxLength: 256 },
          message: { type: 'string' },
        },
        required: ['attempt', 'at', 'message'],
        additionalProperties: false,
      },
    },
  },
  required: ['id', 'run_id', 'prompt', 'state', 'created'],
  additionalProperties: false,
  oneOf: [
    {
      properties: { state: { const: 'pending' } },
      not: {
        anyOf: [
          { required: ['finished'] },
          { required: ['answer'] },
          { required: ['reason'] },
          { required: ['message'] },
          { required: ['started'] },
        ],
      },
    },
    {
      properties: { state: { const: 'running' } },
      required: ['worker', 'started', 'attempts'],
      not: { anyOf: [{ required: ['finished'] }, { required: ['answer'] }, { required: ['reason'] }, { required: ['message'] }] },
    },
    {
      properties: { state: { const: 'completed' } },
      required: ['finished', 'answer'],
      not: { anyOf: [{ required: ['reason'] }, { required: ['message'] }, { required: ['started'] }] },
    },
    {
      properties: { state: { enum: ['failed', 'dead'] } },
      required: ['finished', 'reason', 'message'],
      not: { anyOf: [{ required: ['answer'] }, { required: ['started'] }] },
    },
  ],
} as const;

let validator: ValidateFunction | undefined;
function validate(): ValidateFunction {
  if (validator === undefined) {
    // the schema is a constant checked against the 2020-12 meta-schema by the task store tests;
    // checking it again here would compile the meta-schema before the first task is stored
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: false, validateSchema: false });
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

/** A new pending record; `budget` is what the submission lowered, if anything. */
export function pendingTask(id: string, runId: string, prompt: string, now: Date = new Date(), budget?: TaskBudget): TaskRecord {
  const asked = budget === undefined || Object.keys(budget).length === 0 ? {} : { budget };
  return { id: checkTaskId(id), run_id: runId, prompt, ...asked, state: 'pending', created: now.toISOString() };
}

/** What a record keeps of its submission whatever its state: what was asked, and under which limits. */
function askedOf(record: TaskRecord): Pick<TaskRecord, 'id' | 'run_id' | 'prompt' | 'budget' | 'created'> {
  return {
    id: record.id,
    run_id: record.run_id,
    prompt: record.prompt,
    ...(record.budget === undefined ? {} : { budget: record.budget }),
    created: record.created,
  };
}

/** What a record keeps of its attempts whatever its state. */
function attemptsOf(record: TaskRecord): Pick<TaskRecord, 'attempts' | 'worker' | 'failures'> {
  return {
    ...(record.attempts === undefined ? {} : { attempts: record.attempts }),
    ...(record.worker === undefined ? {} : { worker: record.worker }),
    ...(record.failures === undefined || record.failures.length === 0 ? {} : { failures: record.failures }),
  };
}

/** The record with its result stored. */
export function finishedTask(record: TaskRecord, result: TaskResult, now: Date = new Date()): TaskRecord {
  const base = { ...askedOf(record), finished: now.toISOString(), ...attemptsOf(record) };
  return result.state === 'completed'
    ? { ...base, state: 'completed', answer: result.answer }
    : { ...base, state: result.state, reason: result.reason, message: result.message };
}

/** The record of a task still in the queue after `progress`; a record with its result is returned as it is. */
export function progressedTask(record: TaskRecord, progress: TaskProgress): TaskRecord {
  if (isFinalState(record.state)) return record;
  const base = { ...askedOf(record), ...attemptsOf(record) };
  switch (progress.state) {
    case 'running':
      return {
        ...base,
        state: 'running',
        worker: progress.worker,
        attempts: progress.attempts,
        started: (progress.started ?? new Date()).toISOString(),
      };
    case 'pending': {
      if (!('failure' in progress)) {
        const { attempts: _previous, ...rest } = base;
        return { ...rest, state: 'pending', ...(progress.attempts > 0 ? { attempts: progress.attempts } : {}) };
      }
      const reported = progress.failure;
      const failure: AttemptFailure = {
        attempt: reported.attempt,
        at: (reported.at ?? new Date()).toISOString(),
        ...(reported.worker === undefined ? {} : { worker: reported.worker }),
        message: reported.message.length > MAX_FAILURE_CHARS ? `${reported.message.slice(0, MAX_FAILURE_CHARS)}...` : reported.message,
      };
      return {
        ...base,
        state: 'pending',
        attempts: Math.max(reported.attempt, record.attempts ?? 0),
        failures: [...(record.failures ?? []), failure].slice(-MAX_ATTEMPT_FAILURES),
      };
    }
    default: {
      const never: never = progress;
      return never;
    }
  }
}

/** A failed or dead task made pending again for `fisk task retry`: its attempts start over. */
export function reopenedTask(record: TaskRecord): TaskRecord {
  return { ...askedOf(record), state: 'pending' };
}
