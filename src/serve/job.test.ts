import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { decodeJob, encodeJob, JOB_SCHEMA, jobBudget, jobRunId, MAX_JOB_BYTES, sequenceTaskId } from './job.js';
import { submitSubject } from './jobs.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('the job message', () => {
  it('has a schema that is valid 2020-12 JSON Schema (the decoder compiles it unchecked)', () => {
    const ajv = new Ajv2020({ strict: true });
    expect(ajv.validateSchema(JOB_SCHEMA), JSON.stringify(ajv.errors)).toBe(true);
  });

  it('decodes a job and maps its budget', () => {
    const job = decodeJob(bytes('{"prompt":"go","id":"a-1","budget":{"max_tokens":10,"max_iterations":2}}'));
    expect(job).toEqual({ prompt: 'go', id: 'a-1', budget: { max_tokens: 10, max_iterations: 2 } });
    expect(jobBudget(job)).toEqual({ maxTokens: 10, maxIterations: 2 });
    expect(jobBudget({ prompt: 'x' })).toBeUndefined();
    expect(decodeJob(encodeJob({ prompt: 'round trip' }))).toEqual({ prompt: 'round trip' });
  });

  it('refuses what is not a job, saying what is wrong', () => {
    expect(() => decodeJob(bytes('nope'))).toThrow(/is not JSON/u);
    expect(() => decodeJob(bytes('{"prompt":"  "}'))).toThrow(/^has a blank "prompt": put what the agent should do in it$/u);
    expect(() => decodeJob(bytes('{"id":"x"}'))).toThrow(/^has no "prompt" field, which every job needs/u);
    expect(() => decodeJob(bytes('[1]'))).toThrow(/^is not a JSON object with a "prompt" field/u);
    expect(() => decodeJob(bytes('{"prompt":"x","budget":{"max_token":1}}'))).toThrow(/unknown field "max_token" in budget/u);
    expect(() => decodeJob(bytes('{"prompt":"x","budget":{"max_tokens":0}}'))).toThrow(
      /has an invalid "budget\.max_tokens": it must be >= 1/u,
    );
    expect(() => decodeJob(bytes('{"prompt":"x","id":"../etc"}'))).toThrow(/has an invalid "id": it must match/u);
    expect(() => decodeJob(bytes(JSON.stringify({ prompt: 'x'.repeat(MAX_JOB_BYTES) })))).toThrow(/a job is at most/u);
    expect(() => encodeJob({ prompt: '' })).toThrow(/^the job has a blank "prompt"/u);
  });

  it('derives run ids from the queue and the id, never passing the id through', () => {
    const a = jobRunId('JOBS', 'weekly');
    expect(a).toMatch(/^job-[0-9a-f]{32}$/u);
    expect(a).not.toContain('weekly');
    expect(jobRunId('JOBS', 'weekly')).toBe(a);
    expect(jobRunId('OTHER', 'weekly')).not.toBe(a);
    expect(sequenceTaskId('JOBS', 42)).toBe('JOBS-42');
    expect(sequenceTaskId('.x.y', 7)).toBe('x_y-7');
  });

  it('picks the subject to publish on from the consumer filter, else the stream', () => {
    expect(submitSubject('S', ['jobs.a'], [])).toBe('jobs.a');
    expect(submitSubject('S', ['jobs.>'], [])).toBe('jobs.job');
    expect(submitSubject('S', ['jobs.*.in'], [])).toBe('jobs.job.in');
    expect(submitSubject('S', ['jobs.>'], ['', 'jobs.reports'])).toBe('jobs.reports');
    expect(submitSubject('S', [], [])).toBeUndefined();
  });
});
