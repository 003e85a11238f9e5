/**
 * Resolves the effective telemetry settings from agent.yaml values, the caller's disable switch
 * and the environment. Every value carries a display-only origin so `fisk info` can say where it
 * came from; nothing branches on an origin.
 */
import { TelemetryError } from './errors.js';
import { isLoopbackHost } from '../util/loopback.js';

/** A value plus where it came from, for display only. */
export interface Setting<T> {
  readonly value: T;
  readonly origin: string;
}

/** The OTLP protocols this build exports with. */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** The variable that switches telemetry off whatever the configuration says. */
export const TELEMETRY_OFF_VARIABLE = 'FISK_AI_TELEMETRY';
/** The OpenTelemetry SDK's own off switch. */
export const SDK_DISABLED_VARIABLE = 'OTEL_SDK_DISABLED';
/** The collector the OTLP/HTTP specification names as the default. */
export const DEFAULT_OTLP_ENDPOINT = 'http://localhost:4318';
/**
 * The most bytes one content attribute may carry, counted as the JSON-escaped text that is sent.
 * The export batch size is derived from it when content capture is on.
 */
export const CONTENT_ATTRIBUTE_LIMIT = 32 * 1024;

/** OTLP exporter variables that can carry credentials: the one list tool subprocesses go without. */
export { OTLP_CREDENTIAL_ENV_NAMES as OTLP_CREDENTIAL_VARIABLES } from '../util/credential-names.js';

/** The `telemetry` block of agent.yaml as prepared, in primitives. */
export interface TelemetryConfigValues {
  readonly enabled: boolean;
  readonly endpoint?: string | undefined;
  readonly protocol?: string | undefined;
  readonly serviceName?: string | undefined;
  /** Absent means the default of 1; an explicit 0 stays 0 and records no run of its own. */
  readonly sampleRatio?: number | undefined;
  readonly captureContent: boolean;
  readonly noMetrics: boolean;
}

export interface ResolveTelemetryInput {
  readonly config: TelemetryConfigValues;
  /** The agent's identity: the service name when neither agent.yaml nor OTEL_SERVICE_NAME gives one. */
  readonly identity: string;
  /** Dotted agent.yaml keys the file set (`telemetry.enabled`), to tell a written value from a default. */
  readonly present?: ReadonlySet<string> | undefined;
  /** How the file is named in origins; `agent.yaml` unless given. */
  readonly source?: string | undefined;
  /**
   * The caller's own disable switch, as it should be named to a person (`--no-telemetry`), when it
   * is set. A label rather than a boolean, so this library never names a flag it does not own.
   */
  readonly disabledBy?: string | undefined;
  /** The environment to read; `process.env` unless given. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
}

/** What export needs, present only when telemetry is on and every value passed validation. */
export interface ExportPlan {
  readonly protocol: OtlpProtocol;
  readonly tracesUrl: string;
  readonly metricsUrl: string;
  readonly serviceName: string;
  readonly sampleRatio: number;
  readonly captureContent: boolean;
  readonly metrics: boolean;
}

export interface TelemetrySettings {
  readonly enabled: Setting<boolean>;
  readonly endpoint: Setting<string>;
  readonly protocol: Setting<string>;
  readonly serviceName: Setting<string>;
  readonly sampleRatio: Setting<number>;
  /** Forced off when export is off, so a privacy marker never overstates. */
  readonly captureContent: Setting<boolean>;
  readonly metrics: Setting<boolean>;
  /** Set exactly when telemetry is on. */
  readonly plan: ExportPlan | undefined;
  /**
   * When telemetry is off but OTLP exporter variables are set: one sentence naming them and the
   * switch responsible, for the command to print. Those variables never turn export on.
   */
  readonly note: string | undefined;
}

const OFF_WORDS = new Set(['off', 'false', '0', 'no']);

/**
 * Applies one precedence chain for enablement: the explicit off variable, then the caller's
 * disable label, then `OTEL_SDK_DISABLED=true`, then agent.yaml (`telemetry.enabled`, off unless
 * it says otherwise). The OTLP exporter variables never turn export on by themselves.
 *
 * Validation runs only when export is on, so a stale endpoint in a file with telemetry off never
 * fails a run. Throws `TelemetryError` naming the key or variable to change.
 */
export function resolveTelemetrySettings(input: ResolveTelemetryInput): TelemetrySettings {
  const env = input.env ?? process.env;
  const source = input.source ?? 'agent.yaml';
  const config = input.config;
  const fromFile = (key: string): string => (input.present === undefined || input.present.has(key) ? source : 'default');
  const read = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v === undefined || v === '' ? undefined : v;
  };

  const enabled = resolveEnabled(input, read, fromFile('telemetry.enabled'));

  const endpoint: Setting<string> =
    config.endpoint !== undefined
      ? { value: config.endpoint, origin: fromFile('telemetry.endpoint') }
      : (endpointFromEnv(read) ?? { value: DEFAULT_OTLP_ENDPOINT, origin: 'default' });
  const protocolValue = config.protocol ?? read('OTEL_EXPORTER_OTLP_PROTOCOL');
  const protocol: Setting<string> =
    config.protocol !== undefined
      ? { value: config.protocol, origin: fromFile('telemetry.protocol') }
      : protocolValue !== undefined
        ? { value: protocolValue, origin: 'OTEL_EXPORTER_OTLP_PROTOCOL' }
        : { value: 'http/protobuf', origin: 'default' };
  const envService = read('OTEL_SERVICE_NAME');
  const serviceName: Setting<string> =
    config.serviceName !== undefined
      ? { value: config.serviceName, origin: fromFile('telemetry.service_name') }
      : envService !== undefined
        ? { value: envService, origin: 'OTEL_SERVICE_NAME' }
        : { value: input.identity, origin: 'identity' };
  const sampleRatio: Setting<number> =
    config.sampleRatio !== undefined
      ? { value: config.sampleRatio, origin: fromFile('telemetry.sample_ratio') }
      : { value: 1, origin: 'default' };
  const captureContent: Setting<boolean> = enabled.value
    ? { value: config.captureContent, origin: fromFile('telemetry.capture_content') }
    : { value: false, origin: `forced off: telemetry is off (${enabled.origin})` };
  const metrics: Setting<boolean> = { value: !config.noMetrics, origin: fromFile('telemetry.no_metrics') };

  const plan = enabled.value
    ? buildPlan({ endpoint, protocol, serviceName, sampleRatio, captureContent, metrics }, config, read)
    : undefined;
  const note = enabled.value ? undefined : exporterVariableNote(env, enabled.origin, input);
  return { enabled, endpoint, protocol, serviceName, sampleRatio, captureContent, metrics, plan, note };
}

function resolveEnabled(input: ResolveTelemetryInput, read: (name: string) => string | undefined, fileOrigin: string): Setting<boolean> {
  const off = read(TELEMETRY_OFF_VARIABLE);
  if (off !== undefined) {
    if (!OFF_WORDS.has(off.toLowerCase())) {
      throw new TelemetryError(
        'variable',
        TELEMETRY_OFF_VARIABLE,
        `${TELEMETRY_OFF_VARIABLE}=${JSON.stringify(off)} is not understood: it only switches telemetry off; set it to "off", or unset it and use telemetry.enabled in agent.yaml`,
      );
    }
    return { value: false, origin: TELEMETRY_OFF_VARIABLE };
  }
  if (input.disabledBy !== undefined && input.disabledBy !== '') return { value: false, origin: input.disabledBy };
  if (read(SDK_DISABLED_VARIABLE)?.toLowerCase() === 'true') return { value: false, origin: SDK_DISABLED_VARIABLE };
  return { value: input.config.enabled, origin: fileOrigin };
}

function endpointFromEnv(read: (name: string) => string | undefined): Setting<string> | undefined {
  const v = read('OTEL_EXPORTER_OTLP_ENDPOINT');
  return v === undefined ? undefined : { value: v, origin: 'OTEL_EXPORTER_OTLP_ENDPOINT' };
}

function buildPlan(
  settings: Omit<TelemetrySettings, 'enabled' | 'plan' | 'note'>,
  config: TelemetryConfigValues,
  read: (name: string) => string | undefined,
): ExportPlan {
  const protocolKey = settings.protocol.origin === 'OTEL_EXPORTER_OTLP_PROTOCOL' ? 'OTEL_EXPORTER_OTLP_PROTOCOL' : 'telemetry.protocol';
  const protocol = settings.protocol.value.toLowerCase();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    const why = protocol === 'grpc' ? 'grpc export is not built into fisk-ai' : `"${settings.protocol.value}" is not an OTLP protocol`;
    throw new TelemetryError('protocol', protocolKey, `${protocolKey}: ${why}; use http/protobuf (collector port 4318) or http/json`);
  }
  if (!Number.isFinite(settings.sampleRatio.value) || settings.sampleRatio.value < 0 || settings.sampleRatio.value > 1) {
    throw new TelemetryError(
      'variable',
      'telemetry.sample_ratio',
      `telemetry.sample_ratio: ${settings.sampleRatio.value} is outside 0 to 1`,
    );
  }
  const capture = settings.captureContent.value;
  const endpointKey =
    config.endpoint !== undefined
      ? 'telemetry.endpoint'
      : settings.endpoint.origin === 'default'
        ? 'telemetry.endpoint'
        : settings.endpoint.origin;
  const base = checkUrl(settings.endpoint.value, endpointKey, capture);
  // A signal variable names the full URL; the base endpoint gets the signal path appended.
  const signalUrl = (signal: 'traces' | 'metrics'): string => {
    const variable = `OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_ENDPOINT`;
    const own = config.endpoint === undefined ? read(variable) : undefined;
    if (own !== undefined) return checkUrl(own, variable, capture).href;
    const u = new URL(base.href);
    u.pathname = `${u.pathname.replace(/\/+$/, '')}/v1/${signal}`;
    return u.href;
  };
  return {
    protocol,
    tracesUrl: signalUrl('traces'),
    metricsUrl: signalUrl('metrics'),
    serviceName: settings.serviceName.value,
    sampleRatio: settings.sampleRatio.value,
    captureContent: capture,
    metrics: settings.metrics.value,
  };
}

/** Parses a collector URL; plain http to another host is refused while content capture is on. */
function checkUrl(text: string, key: string, capture: boolean): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TelemetryError('endpoint', key, `${key}: ${JSON.stringify(text)} is not a URL; give the collector as http(s)://host:4318`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TelemetryError('endpoint', key, `${key}: ${JSON.stringify(text)} must use http or https`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new TelemetryError('endpoint', key, `${key}: put collector credentials in OTEL_EXPORTER_OTLP_HEADERS, not in the URL`);
  }
  if (capture && url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new TelemetryError(
      'insecure_capture',
      key,
      `${key}: content capture sends prompts and tool output, so plain http is allowed only to this machine; use https for ${url.host}, or set telemetry.capture_content: false`,
    );
  }
  return url;
}

function exporterVariableNote(
  env: Readonly<Record<string, string | undefined>>,
  origin: string,
  input: ResolveTelemetryInput,
): string | undefined {
  const names = Object.keys(env)
    .filter((k) => k.startsWith('OTEL_EXPORTER_OTLP_') && (env[k]?.trim() ?? '') !== '')
    .sort();
  if (names.length === 0) return undefined;
  const why =
    origin === TELEMETRY_OFF_VARIABLE || origin === SDK_DISABLED_VARIABLE
      ? `${origin} switches it off`
      : origin === input.disabledBy
        ? `${origin} switches it off`
        : 'telemetry.enabled is not true in agent.yaml';
  return `telemetry is off (${why}), so ${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} not used; OTLP variables never turn export on by themselves`;
}

/** One line of `fisk info`: an agent.yaml key, its effective value as text, and where it came from. */
export interface TelemetrySettingRow {
  readonly key: string;
  readonly value: string;
  readonly origin: string;
}

/**
 * The effective settings as rows under their agent.yaml keys, for `fisk info`. Values the
 * environment supplied show that variable as their origin.
 */
export function telemetrySettingRows(s: TelemetrySettings): readonly TelemetrySettingRow[] {
  const row = <T extends string | number | boolean>(
    key: string,
    v: Setting<T>,
    show: (value: T) => string = String,
  ): TelemetrySettingRow => ({
    key,
    value: show(v.value),
    origin: v.origin,
  });
  return [
    row('telemetry.enabled', s.enabled),
    row('telemetry.endpoint', s.endpoint),
    row('telemetry.protocol', s.protocol),
    row('telemetry.service_name', s.serviceName),
    row('telemetry.sample_ratio', s.sampleRatio),
    row('telemetry.capture_content', s.captureContent),
    row('telemetry.no_metrics', s.metrics, (on) => String(!on)),
  ];
}
