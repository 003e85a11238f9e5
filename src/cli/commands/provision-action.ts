/**
 * `fisk provision`: the work. One line per resource on standard output (`created`, `ok` or
 * `differs` with every difference); an existing resource is never changed, and any difference
 * ends the command with status 1 so a deployment script stops.
 */
import { resolve } from 'node:path';
import { parseConfigForMode } from '../../config/index.js';
import { connectNats } from '../../conns/nats-connect.js';
import { describeResource, provision, provisioningPlan } from '../../serve/index.js';
import type { Provisioned } from '../../serve/index.js';
import { suggestedReplicas } from '../../util/replicas.js';
import { CliError, UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { println } from '../io.js';

export interface ProvisionFlags {
  readonly config: string;
  readonly replicas?: string;
}

/** `--replicas`: 1 to 5, the counts JetStream places. */
function replicasFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d+$/u.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > 5)
    throw new UsageError(`--replicas ${JSON.stringify(value)} is not a replica count; pass 1 to 5 (3 on a cluster, 1 on a single server)`);
  return n;
}

export async function provisionCommand(flags: ProvisionFlags, io: Io): Promise<void> {
  const asked = replicasFlag(flags.replicas);
  const config = parseConfigForMode({ path: resolve(io.cwd, flags.config) }, 'session');
  const plan = provisioningPlan(config);
  if (plan.length === 0) {
    println(
      io.err,
      `${config.source} names nothing on JetStream to provision: no expose.agent.jobs, and no jetstream backend for harness.sessions, tasks or harness.memory`,
    );
    return;
  }
  if (config.natsContext === undefined) {
    throw new CliError(
      `nats_context is required in ${config.source}: ${plan.map((r) => r.key).join(', ')} ${plan.length === 1 ? 'is' : 'are'} on JetStream`,
      EXIT.config,
    );
  }
  const nats = await connectNats(config.natsContext, { env: io.env, name: 'fisk-ai provision' });
  try {
    const replicas = asked ?? suggestedReplicas(nats.connection);
    const print = (r: Provisioned): void => {
      const what = `${describeResource(r.resource)} (${r.resource.key}, R${r.replicas})`;
      if (r.action === 'differs') println(io.out, `differs  ${what}: ${r.differences.join('; ')}`);
      else println(io.out, `${r.action === 'created' ? 'created' : 'ok     '}  ${what}`);
    };
    let results: Provisioned[];
    try {
      results = await provision(nats, plan, replicas, print);
    } catch (err) {
      throw new CliError(
        `cannot provision on NATS context ${config.natsContext}: ${(err as Error).message}${/replicas/iu.test((err as Error).message) ? '; pass --replicas with at most as many as the cluster has servers' : ''}`,
        EXIT.error,
        { cause: err },
      );
    }
    const differing = results.filter((r) => r.action === 'differs');
    if (differing.length > 0) {
      throw new CliError(
        `${differing.length} of ${results.length} already exist${differing.length === 1 ? 's' : ''} and differ${differing.length === 1 ? 's' : ''} from what fisk-ai needs; fisk provision never changes an existing one: recreate or edit it with the nats command (nats stream edit, nats kv add), then run fisk provision again`,
        EXIT.error,
      );
    }
  } finally {
    if (!nats.connection.isClosed()) await nats.connection.close();
  }
}
