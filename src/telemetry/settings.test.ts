import { describe, expect, it } from 'vitest';
import { TelemetryError } from './errors.js';
import type { ResolveTelemetryInput, TelemetryConfigValues } from './settings.js';
import { resolveTelemetrySettings, telemetrySettingRows } from './settings.js';

const on: TelemetryConfigValues = { enabled: true, captureContent: false, noMetrics: false };
const off: TelemetryConfigValues = { enabled: false, captureContent: false, noMetrics: false };

function resolve(input: Partial<ResolveTelemetryInput> & { config: TelemetryConfigValues }) {
  return resolveTelemetrySettings({ identity: 'helper', env: {}, ...input });
}

function failure(fn: () => unknown): TelemetryError {
  try {
    fn();
  } catch (err) {
    if (err instanceof TelemetryError) return err;
    throw err;
  }
  throw new Error('expected a TelemetryError');
}

describe('enablement', () => {
  it('is off unless agent.yaml turns it on, and says where that came from', () => {
    const s = resolve({ config: off, present: new Set() });
    expect(s.enabled).toEqual({ value: false, origin: 'default' });
    expect(s.plan).toBeUndefined();
    const t = resolve({ config: on, present: new Set(['telemetry.enabled']) });
    expect(t.enabled).toEqual({ value: true, origin: 'agent.yaml' });
    expect(t.plan?.tracesUrl).toBe('http://localhost:4318/v1/traces');
    expect(t.plan?.metricsUrl).toBe('http://localhost:4318/v1/metrics');
  });

  it('applies the chain: off variable, then the caller label, then OTEL_SDK_DISABLED, then agent.yaml', () => {
    const env = { FISK_AI_TELEMETRY: 'off', OTEL_SDK_DISABLED: 'true' };
    expect(resolve({ config: on, env, disabledBy: '--no-telemetry' }).enabled).toEqual({ value: false, origin: 'FISK_AI_TELEMETRY' });
    expect(resolve({ config: on, env: { OTEL_SDK_DISABLED: 'true' }, disabledBy: '--no-telemetry' }).enabled).toEqual({
      value: false,
      origin: '--no-telemetry',
    });
    expect(resolve({ config: on, env: { OTEL_SDK_DISABLED: 'TRUE' } }).enabled).toEqual({ value: false, origin: 'OTEL_SDK_DISABLED' });
    expect(resolve({ config: on, env: { OTEL_SDK_DISABLED: 'false' } }).enabled.value).toBe(true);
  });

  it('refuses an off variable it does not understand rather than guessing', () => {
    const err = failure(() => resolve({ config: on, env: { FISK_AI_TELEMETRY: 'on' } }));
    expect(err.code).toBe('variable');
    expect(err.key).toBe('FISK_AI_TELEMETRY');
    expect(err.category).toBe('configuration');
    expect(err.message).toContain('only switches telemetry off');
  });

  it('never lets OTLP exporter variables turn export on, and notes them when they are set', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example', OTEL_EXPORTER_OTLP_HEADERS: 'x=y' };
    const s = resolve({ config: off, env });
    expect(s.enabled.value).toBe(false);
    expect(s.plan).toBeUndefined();
    expect(s.note).toContain('OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS are not used');
    expect(s.note).toContain('telemetry.enabled');
    expect(resolve({ config: on, env, disabledBy: '--no-telemetry' }).note).toContain('--no-telemetry switches it off');
    expect(resolve({ config: off }).note).toBeUndefined();
    expect(resolve({ config: on, env }).note).toBeUndefined();
  });

  it('forces content capture off when export is off', () => {
    const s = resolve({ config: { ...on, captureContent: true }, disabledBy: '--no-telemetry' });
    expect(s.captureContent.value).toBe(false);
    expect(s.captureContent.origin).toContain('--no-telemetry');
  });
});

describe('validation', () => {
  it('runs only when export is on', () => {
    const stale = { ...off, endpoint: 'not a url', protocol: 'carrier-pigeon' };
    expect(resolve({ config: stale }).endpoint.value).toBe('not a url');
    const err = failure(() => resolve({ config: { ...on, endpoint: 'not a url' } }));
    expect([err.code, err.key]).toEqual(['endpoint', 'telemetry.endpoint']);
  });

  it('refuses grpc and unknown protocols with what to use instead', () => {
    const grpc = failure(() => resolve({ config: { ...on, protocol: 'grpc' } }));
    expect(grpc.code).toBe('protocol');
    expect(grpc.message).toContain('use http/protobuf');
    const env = failure(() => resolve({ config: on, env: { OTEL_EXPORTER_OTLP_PROTOCOL: 'smoke' } }));
    expect(env.key).toBe('OTEL_EXPORTER_OTLP_PROTOCOL');
    expect(resolve({ config: { ...on, protocol: 'http/json' } }).plan?.protocol).toBe('http/json');
  });

  it('refuses plain http to another host while capture is on, judged on the parsed address', () => {
    const capture = { ...on, captureContent: true };
    for (const endpoint of ['http://collector.example:4318', 'http://127.attacker.example:4318', 'http://10.0.0.1:4318']) {
      const err = failure(() => resolve({ config: { ...capture, endpoint } }));
      expect(err.code).toBe('insecure_capture');
    }
    for (const endpoint of [
      'http://127.0.0.1:4318',
      'http://[::1]:4318',
      'http://localhost:4318',
      'http://localhost.:4318',
      'https://collector.example',
    ]) {
      expect(resolve({ config: { ...capture, endpoint } }).plan?.captureContent).toBe(true);
    }
    // Without capture, plain http anywhere is the operator's choice.
    expect(resolve({ config: { ...on, endpoint: 'http://collector.example:4318' } }).plan).toBeDefined();
    // The environment's endpoint is held to the same rule.
    const err = failure(() => resolve({ config: capture, env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.example' } }));
    expect(err.key).toBe('OTEL_EXPORTER_OTLP_ENDPOINT');
  });

  it('refuses credentials in the URL', () => {
    expect(failure(() => resolve({ config: { ...on, endpoint: 'https://user:pw@collector.example' } })).message).toContain(
      'OTEL_EXPORTER_OTLP_HEADERS',
    );
  });
});

describe('values', () => {
  it('honours an explicit sample_ratio of 0 and defaults an absent one to 1', () => {
    expect(resolve({ config: { ...on, sampleRatio: 0 } }).plan?.sampleRatio).toBe(0);
    expect(resolve({ config: on }).sampleRatio).toEqual({ value: 1, origin: 'default' });
  });

  it('takes the endpoint from agent.yaml, then the environment, with signal variables used as given', () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://env.example/otlp/',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'https://metrics.example/in',
    };
    const fromEnv = resolve({ config: on, env });
    expect(fromEnv.endpoint).toEqual({ value: 'https://env.example/otlp/', origin: 'OTEL_EXPORTER_OTLP_ENDPOINT' });
    expect(fromEnv.plan?.tracesUrl).toBe('https://env.example/otlp/v1/traces');
    expect(fromEnv.plan?.metricsUrl).toBe('https://metrics.example/in');
    const fromFile = resolve({ config: { ...on, endpoint: 'https://file.example' }, env });
    expect(fromFile.plan?.tracesUrl).toBe('https://file.example/v1/traces');
    expect(fromFile.plan?.metricsUrl).toBe('https://file.example/v1/metrics');
  });

  it('names the service from agent.yaml, then OTEL_SERVICE_NAME, then the identity', () => {
    expect(resolve({ config: on }).serviceName).toEqual({ value: 'helper', origin: 'identity' });
    expect(resolve({ config: on, env: { OTEL_SERVICE_NAME: 'svc' } }).serviceName).toEqual({ value: 'svc', origin: 'OTEL_SERVICE_NAME' });
    expect(resolve({ config: { ...on, serviceName: 'named' }, env: { OTEL_SERVICE_NAME: 'svc' } }).serviceName.value).toBe('named');
  });

  it('keeps metrics on unless no_metrics says otherwise', () => {
    expect(resolve({ config: on }).plan?.metrics).toBe(true);
    expect(resolve({ config: { ...on, noMetrics: true } }).plan?.metrics).toBe(false);
  });
});

describe('telemetrySettingRows', () => {
  it('lists every effective value under its agent.yaml key with its origin', () => {
    const s = resolve({
      config: { ...on, sampleRatio: 0, noMetrics: true },
      present: new Set(['telemetry.enabled', 'telemetry.sample_ratio', 'telemetry.no_metrics']),
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://env.example' },
    });
    expect(telemetrySettingRows(s)).toEqual([
      { key: 'telemetry.enabled', value: 'true', origin: 'agent.yaml' },
      { key: 'telemetry.endpoint', value: 'https://env.example', origin: 'OTEL_EXPORTER_OTLP_ENDPOINT' },
      { key: 'telemetry.protocol', value: 'http/protobuf', origin: 'default' },
      { key: 'telemetry.service_name', value: 'helper', origin: 'identity' },
      { key: 'telemetry.sample_ratio', value: '0', origin: 'agent.yaml' },
      { key: 'telemetry.capture_content', value: 'false', origin: 'default' },
      { key: 'telemetry.no_metrics', value: 'true', origin: 'agent.yaml' },
    ]);
  });
});
