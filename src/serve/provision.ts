/**
 * What a configuration binds on JetStream, and making it: the jobs stream and its consumer, the
 * session stream, the task and memory buckets. `fisk provision` creates what is missing with the
 * shapes the binders accept and checks what exists, reporting every difference; it never changes
 * an existing stream, consumer or bucket, since retention and placement are the operator's call.
 * `fisk serve` uses the same list to warn about a single replica on a cluster.
 */
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  jetstream,
  jetstreamManager,
} from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { ConsumerInfo, JetStreamManager, StreamInfo } from '@nats-io/jetstream';
import type { Config } from '../config/index.js';
import type { NatsConn } from '../conns/nats-connect.js';
import { checkStream } from '../runstate/jetstream/stream-check.js';
import { inCluster } from '../util/replicas.js';

/** The kinds of thing a configuration binds. */
export const RESOURCE_KINDS = ['jobs_stream', 'jobs_consumer', 'sessions_stream', 'tasks_bucket', 'memory_bucket'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** One stream, consumer or bucket the configuration names, and the key that names it. */
export interface Resource {
  readonly kind: ResourceKind;
  readonly name: string;
  /** The stream a consumer is on. */
  readonly stream?: string;
  readonly key: string;
}

/** What provisioning did with one resource. */
export interface Provisioned {
  readonly resource: Resource;
  /** `created`, `ok` (exists as needed), or `differs` (exists, and `differences` says how). */
  readonly action: 'created' | 'ok' | 'differs';
  /** The replicas it has now (a consumer: its stream's unless set). */
  readonly replicas: number;
  readonly differences: readonly string[];
}

const ACK_WAIT_NS = 30_000_000_000;

function optionString(options: string, field: string): string | undefined {
  try {
    const value = (JSON.parse(options) as Record<string, unknown>)[field];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  } catch {
    return undefined;
  }
}

/** The JetStream resources `config` names, in the order they are made (a stream before its consumer). */
export function provisioningPlan(config: Config): Resource[] {
  const out: Resource[] = [];
  const jobs = config.expose.jobs;
  if (jobs !== undefined && jobs.stream !== '') {
    out.push({ kind: 'jobs_stream', name: jobs.stream, key: 'expose.agent.jobs.stream' });
    out.push({
      kind: 'jobs_consumer',
      name: jobs.consumer === '' ? config.identity : jobs.consumer,
      stream: jobs.stream,
      key: 'expose.agent.jobs.consumer',
    });
  }
  const sessions = config.harness.sessions;
  const sessionStream = sessions.backend === 'jetstream' ? optionString(sessions.options, 'stream') : undefined;
  if (sessionStream !== undefined) out.push({ kind: 'sessions_stream', name: sessionStream, key: 'harness.sessions.options.stream' });
  const tasksBucket = config.tasks.backend === 'jetstream' ? optionString(config.tasks.options, 'bucket') : undefined;
  if (tasksBucket !== undefined) out.push({ kind: 'tasks_bucket', name: tasksBucket, key: 'tasks.options.bucket' });
  const memory = config.harness.memory;
  const memoryBucket = memory.enabled && memory.backend === 'jetstream' ? optionString(memory.options, 'bucket') : undefined;
  if (memoryBucket !== undefined) out.push({ kind: 'memory_bucket', name: memoryBucket, key: 'harness.memory.options.bucket' });
  return out;
}

/** How a person reads a resource: `stream REPORT_JOBS`, `consumer reports on REPORT_JOBS`. */
export function describeResource(r: Resource): string {
  switch (r.kind) {
    case 'jobs_stream':
      return `jobs stream ${r.name}`;
    case 'jobs_consumer':
      return `jobs consumer ${r.name} on ${r.stream ?? ''}`;
    case 'sessions_stream':
      return `session stream ${r.name}`;
    case 'tasks_bucket':
      return `task bucket ${r.name}`;
    case 'memory_bucket':
      return `memory bucket ${r.name}`;
    default: {
      const never: never = r.kind;
      return never;
    }
  }
}

const notFound = (err: unknown): boolean =>
  err instanceof JetStreamApiError && (err.code === JetStreamApiCodes.StreamNotFound || err.code === JetStreamApiCodes.ConsumerNotFound);

/** A bucket's stream is `KV_<bucket>`. */
const streamOf = (r: Resource): string =>
  r.kind === 'tasks_bucket' || r.kind === 'memory_bucket' ? `KV_${r.name}` : r.kind === 'jobs_consumer' ? (r.stream ?? '') : r.name;

async function streamInfo(jsm: JetStreamManager, name: string): Promise<StreamInfo | undefined> {
  try {
    return await jsm.streams.info(name);
  } catch (err) {
    if (notFound(err)) return undefined;
    throw err;
  }
}

async function consumerInfo(jsm: JetStreamManager, stream: string, name: string): Promise<ConsumerInfo | undefined> {
  try {
    return await jsm.consumers.info(stream, name);
  } catch (err) {
    if (notFound(err)) return undefined;
    throw err;
  }
}

/** How an existing stream differs from what its binder needs, replicas included. */
function streamDifferences(resource: Resource, info: StreamInfo, replicas: number): string[] {
  const config = info.config;
  const out: string[] = [];
  if (config.num_replicas !== replicas)
    out.push(`it has ${config.num_replicas} replica${config.num_replicas === 1 ? '' : 's'}, not ${replicas}`);
  switch (resource.kind) {
    case 'jobs_stream':
      if (config.retention !== RetentionPolicy.Workqueue) out.push(`its retention is ${config.retention}, not workqueue`);
      if ((config.subjects ?? []).length === 0) out.push('it has no subjects to publish jobs on');
      break;
    case 'sessions_stream':
      try {
        checkStream(resource.name, config);
      } catch (err) {
        out.push(
          (err as Error).message.replace(/^.*cannot hold session journals: /u, '').replace(/\. Create a suitable stream with: .*$/u, ''),
        );
      }
      break;
    case 'tasks_bucket':
    case 'memory_bucket':
      if (config.max_age > 0) out.push(`it has a TTL (${config.max_age / 1e9}s), so what it holds would silently expire`);
      break;
    case 'jobs_consumer':
      break;
    default: {
      const never: never = resource.kind;
      return never;
    }
  }
  return out;
}

function consumerDifferences(info: ConsumerInfo): string[] {
  const c = info.config;
  const out: string[] = [];
  if (c.deliver_subject !== undefined && c.deliver_subject !== '') out.push('it is a push consumer; jobs are pulled');
  if (c.ack_policy !== AckPolicy.Explicit) out.push(`its ack policy is ${String(c.ack_policy)}, not explicit`);
  if (c.durable_name === undefined || c.durable_name === '') out.push('it is not durable');
  return out;
}

async function create(nats: NatsConn, jsm: JetStreamManager, resource: Resource, replicas: number): Promise<void> {
  switch (resource.kind) {
    case 'jobs_stream':
      await jsm.streams.add({
        name: resource.name,
        subjects: [`fisk.jobs.${resource.name}`],
        retention: RetentionPolicy.Workqueue,
        storage: StorageType.File,
        discard: DiscardPolicy.Old,
        num_replicas: replicas,
      });
      return;
    case 'jobs_consumer':
      await jsm.consumers.add(resource.stream ?? '', {
        durable_name: resource.name,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: ACK_WAIT_NS,
        max_deliver: -1,
        num_replicas: replicas,
      });
      return;
    case 'sessions_stream':
      await jsm.streams.add({
        name: resource.name,
        subjects: ['fisk.sessions.>'],
        storage: StorageType.File,
        retention: RetentionPolicy.Limits,
        discard: DiscardPolicy.New,
        discard_new_per_subject: true,
        max_msgs_per_subject: 1,
        max_age: 0,
        num_replicas: replicas,
      });
      return;
    case 'tasks_bucket':
    case 'memory_bucket':
      await new Kvm(jetstream(nats.connection, nats.jetstream)).create(resource.name, { history: 1, storage: StorageType.File, replicas });
      return;
    default: {
      const never: never = resource.kind;
      return never;
    }
  }
}

/**
 * Creates each resource that does not exist with `replicas` replicas, and checks each that does,
 * telling `onEach` about each as it goes. Never changes an existing one. Throws what JetStream throws for anything but "not found" (an
 * unreachable server, a refused creation such as more replicas than the cluster has servers).
 */
export async function provision(
  nats: NatsConn,
  plan: readonly Resource[],
  replicas: number,
  onEach?: (done: Provisioned) => void,
): Promise<Provisioned[]> {
  const jsm = await jetstreamManager(nats.connection, nats.jetstream);
  const results: Provisioned[] = [];
  // each result is reported as it happens, so a failure part-way leaves a record of what was made
  const out = { push: (p: Provisioned): void => void (results.push(p), onEach?.(p)) };
  for (const resource of plan) {
    if (resource.kind === 'jobs_consumer') {
      const existing = await consumerInfo(jsm, resource.stream ?? '', resource.name);
      if (existing === undefined) {
        await create(nats, jsm, resource, replicas);
        out.push({ resource, action: 'created', replicas, differences: [] });
        continue;
      }
      const differences = consumerDifferences(existing);
      // a consumer without its own count has its stream's
      const own = existing.config.num_replicas ?? 0;
      const has = own > 0 ? own : ((await streamInfo(jsm, resource.stream ?? ''))?.config.num_replicas ?? 1);
      out.push({ resource, action: differences.length === 0 ? 'ok' : 'differs', replicas: has, differences });
      continue;
    }
    const existing = await streamInfo(jsm, streamOf(resource));
    if (existing === undefined) {
      await create(nats, jsm, resource, replicas);
      out.push({ resource, action: 'created', replicas, differences: [] });
      continue;
    }
    const differences = streamDifferences(resource, existing, replicas);
    out.push({ resource, action: differences.length === 0 ? 'ok' : 'differs', replicas: existing.config.num_replicas, differences });
  }
  return results;
}

/**
 * The warnings for streams and buckets of `plan` that have a single replica although the server
 * is part of a cluster: losing one node loses them. Nothing on a server on its own; a resource
 * that does not exist is the binder's to report.
 */
export async function replicaWarnings(nats: NatsConn, plan: readonly Resource[]): Promise<string[]> {
  if (!inCluster(nats.connection)) return [];
  const jsm = await jetstreamManager(nats.connection, nats.jetstream);
  const out: string[] = [];
  for (const r of plan) {
    if (r.kind === 'jobs_consumer') continue;
    const info = await streamInfo(jsm, streamOf(r)).catch(() => undefined);
    if (info === undefined || info.config.num_replicas > 1) continue;
    out.push(
      `${r.key}: ${describeResource(r)} has one replica on a clustered server (cluster ${nats.connection.info?.cluster ?? ''}): losing the node that holds it loses it; recreate it with --replicas 3 (fisk provision --replicas 3 reports what differs)`,
    );
  }
  return out;
}
