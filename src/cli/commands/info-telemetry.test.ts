import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../exit-codes.js';
import { runCli } from '../program.js';
import { captureIo } from '../test-io.js';
import type { InfoReport } from './info.js';

const dir = mkdtempSync(join(tmpdir(), 'fisk-info-otel-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

async function info(yaml: string, env: Record<string, string>, ...flags: string[]): Promise<{ code: number; out: string; err: string }> {
  const path = join(dir, `agent-${n++}.yaml`);
  writeFileSync(path, `identity: ops\nllm:\n  model: claude-sonnet-4-6\n${yaml}`);
  const io = captureIo({ PATH: process.env['PATH'], ...env });
  const code = await runCli(['info', '--config', path, ...flags], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('fisk info telemetry', () => {
  it('shows every telemetry setting with the file, variable or default it came from', async () => {
    const r = await info('telemetry:\n  enabled: true\n  sample_ratio: 0\n', {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_SERVICE_NAME: 'ops-svc',
    });
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toMatch(/telemetry\.enabled\s+true\s+\[file\]/);
    expect(r.out).toMatch(/telemetry\.endpoint\s+http:\/\/127\.0\.0\.1:4318\s+\[OTEL_EXPORTER_OTLP_ENDPOINT\]/);
    expect(r.out).toMatch(/telemetry\.service_name\s+ops-svc\s+\[OTEL_SERVICE_NAME\]/);
    expect(r.out).toMatch(/telemetry\.sample_ratio\s+0\s+\[file\]/);
    expect(r.out).toMatch(/telemetry\.protocol\s+http\/protobuf\s+\[default\]/);
    const json = JSON.parse((await info('telemetry:\n  enabled: true\n', {}, '--json')).out) as InfoReport;
    expect(json.telemetry.map((row) => row.key)).toEqual([
      'telemetry.enabled',
      'telemetry.endpoint',
      'telemetry.protocol',
      'telemetry.service_name',
      'telemetry.sample_ratio',
      'telemetry.capture_content',
      'telemetry.no_metrics',
    ]);
    expect(json.telemetry.find((row) => row.key === 'telemetry.service_name')).toEqual({
      key: 'telemetry.service_name',
      value: 'ops',
      origin: 'identity',
    });
  });

  it('names the switch that keeps telemetry off when OTLP variables are set', async () => {
    const r = await info('', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' });
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toMatch(/telemetry\.enabled\s+false\s+\[default\]/);
    expect(r.err).toContain('OTEL_EXPORTER_OTLP_ENDPOINT is not used');
  });

  it('reports a setting a run would refuse as a warning naming it, and still lists the rest', async () => {
    const r = await info('telemetry:\n  enabled: true\n', { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(r.code).toBe(EXIT.ok);
    expect(r.err).toMatch(/warning: OTEL_EXPORTER_OTLP_PROTOCOL: .*grpc/);
    expect(r.out).toContain('System prompt');
  });
});
