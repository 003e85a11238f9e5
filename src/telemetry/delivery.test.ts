import { describe, expect, it } from 'vitest';
import { ExportResultCode } from '@opentelemetry/core';
import type { ExportResult } from '@opentelemetry/core';
import { emptyResource } from '@opentelemetry/resources';
import { ValueType } from '@opentelemetry/api';
import { DataPointType } from '@opentelemetry/sdk-metrics';
import type { PushMetricExporter, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { Config } from '../config/index.js';
import { CountingMetricExporter, deliverySummary, spanDelivery } from './delivery.js';
import type { TelemetryConfigValues } from './settings.js';
import { ERROR_CLASSES } from './vocabulary.js';
import { ERROR_TYPE_VALUE_OTHER } from '@opentelemetry/semantic-conventions';

/** A metric exporter that answers every export with a fixed result and remembers what it got. */
class FixedExporter implements PushMetricExporter {
  readonly received: ResourceMetrics[] = [];
  constructor(private readonly result: ExportResult) {}
  export(metrics: ResourceMetrics, cb: (r: ExportResult) => void): void {
    this.received.push(metrics);
    cb(this.result);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

function collection(points: number): ResourceMetrics {
  const dataPoints = Array.from({ length: points }, () => ({
    startTime: [0, 0] as [number, number],
    endTime: [0, 0] as [number, number],
    attributes: {},
    value: 1,
  }));
  return {
    resource: emptyResource(),
    scopeMetrics: [
      {
        scope: { name: 'test' },
        metrics: [
          {
            descriptor: { name: 'm', description: '', unit: '', valueType: ValueType.INT },
            aggregationTemporality: 1,
            dataPointType: DataPointType.SUM,
            dataPoints,
            isMonotonic: true,
          },
        ],
      },
    ],
  };
}

describe('CountingMetricExporter', () => {
  it('drops an empty collection before the wire without counting it, and counts points otherwise', () => {
    const inner = new FixedExporter({ code: ExportResultCode.SUCCESS });
    const counting = new CountingMetricExporter(inner);
    const results: ExportResult[] = [];
    counting.export(collection(0), (r) => results.push(r));
    expect(inner.received).toHaveLength(0);
    expect(results).toEqual([{ code: ExportResultCode.SUCCESS }]);
    counting.export(collection(3), (r) => results.push(r));
    expect(inner.received).toHaveLength(1);
    expect(counting.count()).toEqual({ attempted: 3, delivered: 3, firstError: undefined });
  });

  it('keeps the first failure', () => {
    const counting = new CountingMetricExporter(
      new FixedExporter({ code: ExportResultCode.FAILED, error: new Error('collector said 400') }),
    );
    counting.export(collection(2), () => undefined);
    expect(counting.count()).toEqual({ attempted: 2, delivered: 0, firstError: 'collector said 400' });
  });
});

describe('spanDelivery', () => {
  it('counts spans that never reached the exporter against delivery and names the gap', () => {
    expect(spanDelivery(10, { attempted: 4, delivered: 4, firstError: undefined })).toEqual({
      attempted: 10,
      delivered: 4,
      firstError: '6 spans never reached the exporter',
    });
    expect(
      deliverySummary(
        spanDelivery(3, { attempted: 3, delivered: 3, firstError: undefined }),
        { attempted: 0, delivered: 0, firstError: undefined },
        false,
      ),
    ).toBe('3 of 3 spans delivered');
  });

  it('says how many spans were dropped, with or without an export error', () => {
    const none = { attempted: 0, delivered: 0, firstError: undefined };
    expect(deliverySummary(spanDelivery(10, { attempted: 4, delivered: 4, firstError: undefined }), none, false)).toBe(
      '4 of 10 spans delivered (6 spans dropped; first error: 6 spans never reached the exporter)',
    );
    expect(deliverySummary({ attempted: 5, delivered: 4, firstError: 'Concurrent export limit reached' }, none, false)).toBe(
      '4 of 5 spans delivered (1 span dropped; first error: Concurrent export limit reached)',
    );
    expect(deliverySummary({ attempted: 5, delivered: 3, firstError: undefined }, none, true)).toBe(
      '3 of 5 spans delivered (2 spans dropped) (the shutdown flush ran out of time)',
    );
  });
});

describe('error classes', () => {
  it('fall back to the conventions own value for an unclassified failure', () => {
    expect(ERROR_CLASSES).toContain(ERROR_TYPE_VALUE_OTHER);
  });
});

describe('config values', () => {
  it('accepts the prepared telemetry block of agent.yaml as it is', () => {
    const fromConfig = (c: Config['telemetry']): TelemetryConfigValues => c;
    expect(
      fromConfig({
        enabled: true,
        endpoint: undefined,
        protocol: undefined,
        serviceName: undefined,
        sampleRatio: 0,
        captureContent: false,
        noMetrics: false,
      }).sampleRatio,
    ).toBe(0);
  });
});
