/**
 * Telemetry settings as the host resolves them from a configuration, apart from the exporters: what
 * `fisk info` shows loads no OpenTelemetry SDK.
 */
import type { Config } from '../config/index.js';
import { TelemetryError } from '../telemetry/errors.js';
import { resolveTelemetrySettings, telemetrySettingRows } from '../telemetry/settings.js';
import type { TelemetrySettingRow, TelemetrySettings } from '../telemetry/settings.js';

/** How a command names its own switch that turns telemetry off. */
export const NO_TELEMETRY_FLAG = '--no-telemetry';

/** The effective telemetry settings of a configuration. Throws a `TelemetryError` (configuration) on a bad value. */
export function telemetrySettingsFor(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
  disabled = false,
): TelemetrySettings {
  return resolveTelemetrySettings({
    config: config.telemetry,
    identity: config.identity,
    present: config.present,
    // the word `fisk info` uses for every other value the file set
    source: 'file',
    ...(disabled ? { disabledBy: NO_TELEMETRY_FLAG } : {}),
    env,
  });
}

/**
 * What `fisk info` shows: every telemetry key with its effective value and origin, and the note
 * about OTLP variables that are set while telemetry is off. A setting that would stop a run comes
 * back as a warning with no rows, so a listing still shows everything else.
 */
export function telemetryInfo(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
): { readonly rows: readonly TelemetrySettingRow[]; readonly warnings: readonly { readonly key: string; readonly message: string }[] } {
  try {
    const settings = telemetrySettingsFor(config, env);
    return {
      rows: telemetrySettingRows(settings),
      warnings: settings.note === undefined ? [] : [{ key: 'telemetry', message: settings.note }],
    };
  } catch (err) {
    if (!(err instanceof TelemetryError)) throw err;
    return { rows: [], warnings: [{ key: err.key, message: err.message }] };
  }
}
