/**
 * Telemetry for a command: `--no-telemetry`, the note about OTLP variables that are set while
 * telemetry is off, and the delivery line printed when export is on.
 */
import type { Config } from '../../config/index.js';
import { HostTelemetry } from '../../host/index.js';
import type { Io } from '../io.js';
import { println } from '../io.js';
import { packageVersion } from '../version.js';

export { NO_TELEMETRY_HELP } from './flags.js';

/**
 * Resolves and starts the command's telemetry before anything else opens; a bad setting throws a
 * configuration error naming the key. `telemetry` is commander's value for `--no-telemetry`. The
 * OpenTelemetry SDK and its exporters are loaded only when export is on.
 */
export async function openCommandTelemetry(config: Config, io: Io, flags: { readonly telemetry?: boolean }): Promise<HostTelemetry> {
  const telemetry = await HostTelemetry.open(config, {
    env: io.env,
    disabled: flags.telemetry === false,
    serviceVersion: packageVersion(),
  });
  if (telemetry.note !== undefined) println(io.err, `note: ${telemetry.note}`);
  return telemetry;
}

/** Flushes export within its own timeout and prints "N of M spans delivered" when export is on. */
export async function finishCommandTelemetry(telemetry: HostTelemetry | undefined, io: Io): Promise<void> {
  const line = await telemetry?.finish();
  if (line !== undefined) println(io.err, `telemetry: ${line}`);
}
