/**
 * The failure telemetry raises while resolving its settings. Every code is a configuration
 * mistake: the message names the key or variable to change and what to put there.
 */
import { FiskError } from '../errors/index.js';

export const TELEMETRY_ERROR_CODES = ['endpoint', 'protocol', 'insecure_capture', 'variable'] as const;
export type TelemetryErrorCode = (typeof TELEMETRY_ERROR_CODES)[number];

export class TelemetryError extends FiskError<TelemetryErrorCode> {
  readonly category = 'configuration' as const;
  /** The agent.yaml key or environment variable to change. */
  readonly key: string;

  constructor(code: TelemetryErrorCode, key: string, message: string) {
    super(code, message);
    this.name = 'TelemetryError';
    this.key = key;
  }
}
