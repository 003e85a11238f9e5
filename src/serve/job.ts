/**
 * The job message of the JetStream work queue (`expose.agent.jobs`): one JSON object per message.
 *
 *   { "prompt": "...", "id": "nightly-report-2026-11-30", "budget": { "max_tokens": 20000, "max_iterations": 10 } }
 *
 * `prompt` is required. `id` is the caller's idempotency key: a job whose id already has a result
 * in the task store is acknowledged without running again. Without one, the message's stream
 * sequence names the task. `budget` may only lower the configured limits. Unknown properties are
 * refused, so a misspelt limit is not silently ignored.
 */
import { createHash } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { BudgetOverride } from '../host/index.js';
import { TASK_ID_MAX_LENGTH, TASK_ID_PATTERN } from '../tasks/index.js';

/** The largest job message read; anything longer is refused before it is parsed. */
export const MAX_JOB_BYTES = 256 * 1024;

/** A job as decoded. */
export interface Job {
  readonly prompt: string;
  readonly id?: string;
  readonly budget?: { readonly max_tokens?: number; readonly max_iterations?: number };
}

/** The job message's JSON Schema (2020-12). */
export const JOB_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://fisk-ai.dev/schemas/job.json',
  title: 'fisk-ai job',
  type: 'object',
  properties: {
    prompt: { type: 'string', minLength: 1, pattern: '\\S' },
    id: { type: 'string', pattern: TASK_ID_PATTERN.source, maxLength: TASK_ID_MAX_LENGTH },
    budget: {
      type: 'object',
      properties: {
        max_tokens: { type: 'integer', minimum: 1 },
        max_iterations: { type: 'integer', minimum: 1 },
      },
      additionalProperties: false,
    },
  },
  required: ['prompt'],
  additionalProperties: false,
} as const;

let validator: ValidateFunction | undefined;

/**
 * Why a message is not a job, as a phrase that follows "the job" or "it" and names the field
 * (`has a blank prompt: ...`); `undefined` for a good one.
 */
export function jobProblem(value: unknown): string | undefined {
  // the schema is a constant checked against the 2020-12 meta-schema by job.test.ts; checking it
  // again here would compile the meta-schema and make the first job wait for it
  validator ??= new Ajv2020({ strict: true, allErrors: false, validateSchema: false }).compile(JOB_SCHEMA);
  if (validator(value)) return undefined;
  const e = validator.errors?.[0];
  if (e === undefined) return 'is not a job';
  const field = e.instancePath.slice(1).replace(/\//gu, '.');
  if (e.keyword === 'additionalProperties')
    return `has an unknown field ${JSON.stringify((e.params as { additionalProperty: string }).additionalProperty)}${field === '' ? '' : ` in ${field}`}`;
  if (e.keyword === 'required')
    return `has no "${(e.params as { missingProperty: string }).missingProperty}" field, which every job needs: put what the agent should do in "prompt"`;
  if (field === 'prompt' && (e.keyword === 'pattern' || e.keyword === 'minLength'))
    return 'has a blank "prompt": put what the agent should do in it';
  if (field === '') return `is not a JSON object with a "prompt" field (${e.message ?? 'invalid'})`;
  return `has an invalid "${field}": it ${e.message ?? 'is invalid'}`;
}

/** Decodes a message body; throws an Error saying what is wrong with it. */
export function decodeJob(data: Uint8Array): Job {
  if (data.byteLength > MAX_JOB_BYTES) throw new Error(`is ${data.byteLength} bytes; a job is at most ${MAX_JOB_BYTES}`);
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(data));
  } catch (err) {
    throw new Error(`is not JSON: ${(err as Error).message}`, { cause: err });
  }
  const problem = jobProblem(value);
  if (problem !== undefined) throw new Error(problem);
  return value as Job;
}

/** Encodes a job for publishing; throws an Error naming the bad field. */
export function encodeJob(job: Job): Uint8Array {
  const problem = jobProblem(job);
  if (problem !== undefined) throw new Error(`the job ${problem}`);
  const data = new TextEncoder().encode(JSON.stringify(job));
  if (data.byteLength > MAX_JOB_BYTES) throw new Error(`the job is ${data.byteLength} bytes; a job is at most ${MAX_JOB_BYTES}`);
  return data;
}

/** The limits a job lowers, in the host's terms. */
export function jobBudget(job: Job): BudgetOverride | undefined {
  if (job.budget === undefined) return undefined;
  return {
    ...(job.budget.max_tokens === undefined ? {} : { maxTokens: job.budget.max_tokens }),
    ...(job.budget.max_iterations === undefined ? {} : { maxIterations: job.budget.max_iterations }),
  };
}

/**
 * The run id of a job's journal: derived from the queue and the task id, never the caller's bytes,
 * so a redelivery finds the same journal and nobody can aim a job at somebody else's run.
 */
export function jobRunId(stream: string, taskId: string): string {
  return `job-${createHash('sha256').update(`fisk-ai job\0${stream}\0${taskId}`).digest('hex').slice(0, 32)}`;
}

/** The task id of a job that names none: the queue and the message's stream sequence. */
export function sequenceTaskId(stream: string, streamSeq: number): string {
  const safe = stream.replace(/[^A-Za-z0-9_-]/gu, '_').replace(/^[_-]+/u, '');
  return `${safe === '' ? 'q' : safe}-${streamSeq}`.slice(0, TASK_ID_MAX_LENGTH);
}
