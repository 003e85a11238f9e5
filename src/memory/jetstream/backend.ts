import { z } from 'zod';
import { ConfigError, decodeOptions } from '../../config/index.js';
import { MemoryError } from '../errors.js';
import type { BackendContext, BackendFactory, InfoRow } from '../registry.js';
import { isValidKey } from '../validate.js';
import { JETSTREAM_BACKEND } from './name.js';

/** `harness.memory.options` for the jetstream backend. */
export const JetStreamOptionsSchema = z.strictObject({
  /** The existing KV bucket (required). */
  bucket: z.string().optional(),
  /** Key namespace; absent means the identity, `""` means flat. */
  prefix: z.string().optional(),
  /** Turns off the revision check on overwrite. */
  no_require_read_before_update: z.boolean().optional(),
});
export type JetStreamOptions = z.infer<typeof JetStreamOptionsSchema>;

/** The settings the jetstream backend derives from its options block. */
export interface JetStreamSettings {
  readonly bucket: string;
  readonly prefix: string;
  readonly requireReadBeforeUpdate: boolean;
}

/**
 * Decodes and checks the options: the bucket is required; the prefix defaults to the identity and
 * must be a legal key (an explicit `""` is a flat keyspace). Throws `ConfigError` naming the option.
 */
export function jetStreamSettings(options: string, context: BackendContext): JetStreamSettings {
  const opts = decodeOptions(options, JetStreamOptionsSchema, 'harness.memory.options', JETSTREAM_BACKEND);
  const bucket = opts.bucket?.trim() ?? '';
  if (bucket === '') {
    throw ConfigError.of(
      'missing',
      'harness.memory.options.bucket',
      'jetstream memory: options.bucket is required (the KV bucket name); the bucket must already exist',
    );
  }
  if (!/^[-\w]+$/u.test(bucket)) {
    throw ConfigError.of(
      'value',
      'harness.memory.options.bucket',
      `${JSON.stringify(bucket)} is not a KV bucket name; use letters, digits, "_" and "-"`,
    );
  }
  let prefix: string;
  if (opts.prefix === undefined) {
    prefix = context.identity;
    if (!isValidKey(prefix)) {
      throw ConfigError.of(
        'value',
        'harness.memory.options.prefix',
        `jetstream memory: the agent identity ${JSON.stringify(prefix)} cannot be used as a key prefix (use letters, digits, ".", "_", "=" and "-"); set options.prefix to a legal value, or "" for a flat keyspace`,
      );
    }
  } else {
    prefix = opts.prefix;
    if (prefix !== '' && !isValidKey(prefix)) {
      throw ConfigError.of(
        'value',
        'harness.memory.options.prefix',
        `${JSON.stringify(prefix)} is not a legal key prefix; use letters, digits, ".", "_", "=" and "-" (no leading or trailing "." and no ".."), or "" for a flat keyspace`,
      );
    }
  }
  return { bucket, prefix, requireReadBeforeUpdate: opts.no_require_read_before_update !== true };
}

/** The jetstream backend's registry entry. Needs a borrowed NATS connection from the host. */
export const jetStreamBackend: BackendFactory = {
  needs: ['nats'],
  async open(options, context) {
    const s = jetStreamSettings(options, context);
    if (context.nats === undefined) {
      throw new MemoryError(
        'missing_dependency',
        'jetstream memory needs a NATS connection; set nats_context to a NATS context that reaches the bucket',
      );
    }
    const { JetStreamStore } = await import('./jetstream-store.js');
    return JetStreamStore.open({ nats: context.nats, context: context.natsContext, ...s });
  },
  describe(options, context): readonly InfoRow[] {
    const s = jetStreamSettings(options, context);
    return [
      { label: 'Bucket', value: s.bucket },
      { label: 'Context', value: context.natsContext ?? '(none)' },
      { label: 'Prefix', value: s.prefix === '' ? '(none, flat keyspace)' : s.prefix },
      { label: 'Read before update', value: s.requireReadBeforeUpdate ? 'required' : 'not required' },
    ];
  },
};
