/**
 * What a sessions stream must look like, checked when the backend binds it. The backend never
 * creates or edits a stream: retention is the operator's decision, so a wrong stream is refused
 * with the command that makes a right one.
 */
import type { StreamConfig } from '@nats-io/jetstream';
import { RunStateError } from '../errors.js';

/** The command an operator runs to create a suitable stream. */
export function streamAddCommand(stream: string, prefix = 'fisk.sessions', replicas = 1, context?: string): string {
  return `nats stream add ${stream} --subjects '${prefix}.>' --storage file --retention limits --discard new --discard-per-subject --max-msgs-per-subject 1 --max-age 0 --replicas ${replicas} --defaults${context === undefined ? '' : ` --context ${context}`}`;
}

/**
 * Checks a stream's configuration and returns the subject prefix of its run keyspace. Refuses
 * (RunStateError `config`), listing every problem at once: not exactly one `<prefix>.>` subject,
 * more than one message per subject, a discard policy other than new-per-subject (records could
 * be overwritten or dropped), a maximum age (stored runs would silently expire), a message size
 * limit under 4 KiB.
 */
export function checkStream(stream: string, config: Partial<StreamConfig>, replicas = 1, context?: string): string {
  const problems: string[] = [];
  const wildcards = (config.subjects ?? []).filter((s) => s.endsWith('.>'));
  if (wildcards.length !== 1) {
    problems.push(`it needs exactly one subject of the form <prefix>.> (has ${JSON.stringify(config.subjects ?? [])})`);
  }
  if (config.max_msgs_per_subject !== 1) problems.push(`max messages per subject must be 1 (is ${String(config.max_msgs_per_subject)})`);
  if (config.discard !== 'new') problems.push(`discard policy must be new (is ${String(config.discard)})`);
  if (config.discard_new_per_subject !== true) problems.push('discard new per subject must be on');
  if (config.max_age !== undefined && config.max_age !== 0)
    problems.push(`max age must be 0, stored runs would expire (is ${config.max_age / 1e9}s)`);
  const size = config.max_msg_size ?? -1;
  if (size > 0 && size < 4096) problems.push(`max message size must be unlimited or at least 4096 bytes (is ${size})`);
  const prefix = wildcards.length === 1 ? (wildcards[0] as string).slice(0, -2) : 'fisk.sessions';
  if (problems.length > 0) {
    throw new RunStateError(
      'config',
      `harness.sessions.options.stream: stream ${JSON.stringify(stream)} cannot hold session journals: ${problems.join('; ')}. ` +
        `Create a suitable stream with: ${streamAddCommand(stream, prefix, replicas, context)}`,
    );
  }
  return prefix;
}
