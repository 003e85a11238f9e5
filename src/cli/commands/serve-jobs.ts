/**
 * The work-queue part of `fisk serve`: builds the jobs channel on the runtime (its NATS
 * connection, its session store and the configured task store) and says where it takes jobs from.
 */
import { openConfiguredJobs } from '../../serve/index.js';
import type { JobsChannel, WorkIds } from '../../serve/index.js';
import type { JournaledRuntime } from '../../host/index.js';

/** The jobs channel and the banner lines that describe it. */
export interface ServedJobs {
  readonly channel: JobsChannel;
  readonly banner: readonly string[];
}

/**
 * Opens the jobs channel `expose.agent.jobs` describes, or returns `undefined` when the
 * configuration takes no jobs. `stateDir` is `--state-dir`, already absolute. Throws what binding
 * the queue or the task store throws, naming the command that creates what is missing.
 */
export async function openServedJobs(
  runtime: JournaledRuntime,
  warn: (text: string, ids?: WorkIds) => void,
  stateDir: string | undefined,
): Promise<ServedJobs | undefined> {
  if (runtime.config.expose.jobs === undefined) return undefined;
  const { channel, tasks } = await openConfiguredJobs(runtime, {
    cwd: runtime.config.baseDir,
    ...(stateDir === undefined ? {} : { stateDir }),
    warn,
  });
  return {
    channel,
    banner: [
      `  Jobs:      stream ${channel.stream}, consumer ${channel.consumer}, subject ${channel.subject}`,
      `  Tasks:     ${tasks.backend} (${tasks.location})`,
    ],
  };
}
