/**
 * The metric instruments one process records into, with their names and bucket boundaries. Made
 * on the export's meter, or on a no-op meter when nothing is exported.
 */
import type { Counter, Histogram, Meter, UpDownCounter } from '@opentelemetry/api';
import { METRIC_GEN_AI_CLIENT_OPERATION_DURATION, METRIC_GEN_AI_CLIENT_TOKEN_USAGE } from '@opentelemetry/semantic-conventions/incubating';

/** Bucket boundaries (seconds) for every duration instrument; the SDK defaults are shaped for milliseconds. */
export const SECONDS_BUCKETS: readonly number[] = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
/** Bucket boundaries (seconds) for queue lag: a job may wait from milliseconds to hours. */
export const QUEUE_LAG_BUCKETS: readonly number[] = [0.01, 0.04, 0.16, 0.64, 2.56, 10.24, 40.96, 163.84, 655.36, 2621.44, 10485.76];
/** Bucket boundaries (tokens) for token usage; the SDK defaults stop at 10000. */
export const TOKEN_BUCKETS: readonly number[] = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];

/** fisk's own metric names, under its own prefix rather than the GenAI namespace. */
export const METRIC_KNOWLEDGE_DEGRADED = 'fisk.knowledge.degraded';
export const METRIC_SESSION_APPEND_DURATION = 'fisk.session.append.duration';
export const METRIC_SERVE_WORK = 'fisk.serve.work';
export const METRIC_SERVE_RETRIES = 'fisk.serve.retries';
export const METRIC_SERVE_IN_FLIGHT = 'fisk.serve.in_flight';
export const METRIC_SERVE_PULL_PAUSES = 'fisk.serve.pull.pauses';
export const METRIC_SERVE_QUEUE_LAG = 'fisk.serve.queue.lag';

export interface Instruments {
  readonly tokens: Histogram;
  readonly duration: Histogram;
  readonly degraded: Counter;
  readonly sessionAppend: Histogram;
  readonly served: Counter;
  readonly retries: Counter;
  readonly inFlight: UpDownCounter;
  readonly pauses: Counter;
  readonly queueLag: Histogram;
}

export function instruments(meter: Meter): Instruments {
  return {
    tokens: meter.createHistogram(METRIC_GEN_AI_CLIENT_TOKEN_USAGE, {
      unit: '{token}',
      description: 'Tokens used by one model call, by token type.',
      advice: { explicitBucketBoundaries: [...TOKEN_BUCKETS] },
    }),
    duration: meter.createHistogram(METRIC_GEN_AI_CLIENT_OPERATION_DURATION, {
      unit: 's',
      description: 'Duration of one model call.',
      advice: { explicitBucketBoundaries: [...SECONDS_BUCKETS] },
    }),
    degraded: meter.createCounter(METRIC_KNOWLEDGE_DEGRADED, {
      unit: '{search}',
      description: 'Knowledge searches that fell back from hybrid to lexical.',
    }),
    sessionAppend: meter.createHistogram(METRIC_SESSION_APPEND_DURATION, {
      unit: 's',
      description: 'Duration of one session journal append, measured by the caller.',
      advice: { explicitBucketBoundaries: [...SECONDS_BUCKETS] },
    }),
    served: meter.createCounter(METRIC_SERVE_WORK, {
      unit: '{work}',
      description: 'Served work (jobs, delegated prompts, Slack turns) by how it settled.',
    }),
    retries: meter.createCounter(METRIC_SERVE_RETRIES, {
      unit: '{attempt}',
      description: 'Served work taken again after an earlier attempt (a redelivered job).',
    }),
    inFlight: meter.createUpDownCounter(METRIC_SERVE_IN_FLIGHT, {
      unit: '{run}',
      description: 'Served runs in progress.',
    }),
    pauses: meter.createCounter(METRIC_SERVE_PULL_PAUSES, {
      unit: '{pause}',
      description: 'Times a channel stopped pulling work because a dependency kept failing.',
    }),
    queueLag: meter.createHistogram(METRIC_SERVE_QUEUE_LAG, {
      unit: 's',
      description: 'How long a job waited in the queue before a worker took it.',
      advice: { explicitBucketBoundaries: [...QUEUE_LAG_BUCKETS] },
    }),
  };
}
