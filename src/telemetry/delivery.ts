/**
 * Delivery accounting. OTLP export is fire-and-forget, so a run whose every span was rejected
 * would otherwise shut down looking healthy; these exporters wrap the real ones and tally
 * attempts against deliveries, keeping the first failure's text.
 */
import { ExportResultCode } from '@opentelemetry/core';
import type { ExportResult } from '@opentelemetry/core';
import { AggregationTemporality, AggregationType } from '@opentelemetry/sdk-metrics';
import type { InstrumentType, PushMetricExporter, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { Context } from '@opentelemetry/api';
import { TraceFlags } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** Counts for one signal. */
export interface DeliveryCount {
  /** Items handed to the exporter (spans, or data points for metrics). */
  readonly attempted: number;
  /** Items the collector accepted. */
  readonly delivered: number;
  /** The first export failure's message, if any export failed. */
  readonly firstError: string | undefined;
}

export interface DeliveryReport {
  readonly spans: DeliveryCount;
  readonly metricPoints: DeliveryCount;
  /** True when the shutdown flush ran out of time; counts may then be short. */
  readonly timedOut: boolean;
  /** Why nothing more could be delivered, when no collector address accepted a connection. */
  readonly unreachable?: string;
  /** One line for a person: `12 of 12 spans delivered`, with the first error when one failed. */
  readonly summary: string;
}

type AggregationOption = ReturnType<NonNullable<PushMetricExporter['selectAggregation']>>;

class Tally {
  attempted = 0;
  delivered = 0;
  firstError: string | undefined;

  wrap(n: number, cb: (r: ExportResult) => void): (r: ExportResult) => void {
    this.attempted += n;
    return (r) => {
      if (r.code === ExportResultCode.SUCCESS) this.delivered += n;
      else this.firstError ??= r.error?.message ?? 'export failed';
      cb(r);
    };
  }

  snapshot(): DeliveryCount {
    return { attempted: this.attempted, delivered: this.delivered, firstError: this.firstError };
  }
}

export class CountingSpanExporter implements SpanExporter {
  readonly #inner: SpanExporter;
  readonly #tally = new Tally();

  constructor(inner: SpanExporter) {
    this.#inner = inner;
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.#inner.export(spans, this.#tally.wrap(spans.length, resultCallback));
  }

  shutdown(): Promise<void> {
    return this.#inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.#inner.forceFlush?.() ?? Promise.resolve();
  }

  count(): DeliveryCount {
    return this.#tally.snapshot();
  }
}

/**
 * Counts every sampled span that ended, in front of the batching processor: a span the batch
 * queue drops never reaches the exporter, and would otherwise be missing from both sides of
 * "N of M".
 */
export class RecordedSpanCounter implements SpanProcessor {
  readonly #inner: SpanProcessor;
  #ended = 0;

  constructor(inner: SpanProcessor) {
    this.#inner = inner;
  }

  onStart(span: Span, parentContext: Context): void {
    this.#inner.onStart(span, parentContext);
  }

  onEnding(span: Span): void {
    this.#inner.onEnding?.(span);
  }

  onEnd(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0) this.#ended++;
    this.#inner.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.#inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.#inner.shutdown();
  }

  get ended(): number {
    return this.#ended;
  }
}

/**
 * The span count of a report: every sampled span that ended against those delivered. Spans that
 * never reached the exporter are named when no export error explains the gap.
 */
export function spanDelivery(ended: number, exported: DeliveryCount): DeliveryCount {
  const lost = ended - exported.attempted;
  const firstError = exported.firstError ?? (lost > 0 ? `${lost} spans never reached the exporter` : undefined);
  return { attempted: Math.max(ended, exported.attempted), delivered: exported.delivered, firstError };
}

/** Data points in one collection. */
function pointCount(m: ResourceMetrics): number {
  let n = 0;
  for (const s of m.scopeMetrics) for (const metric of s.metrics) n += metric.dataPoints.length;
  return n;
}

/**
 * Counts data points. An empty collection is dropped before the wire and not counted: a collector
 * answers 400 to it, and a quiet run would otherwise report a failed attempt for recording nothing.
 */
export class CountingMetricExporter implements PushMetricExporter {
  readonly #inner: PushMetricExporter;
  readonly #tally = new Tally();

  constructor(inner: PushMetricExporter) {
    this.#inner = inner;
  }

  selectAggregationTemporality(instrumentType: InstrumentType): AggregationTemporality {
    return this.#inner.selectAggregationTemporality?.(instrumentType) ?? AggregationTemporality.CUMULATIVE;
  }

  selectAggregation(instrumentType: InstrumentType): AggregationOption {
    return this.#inner.selectAggregation?.(instrumentType) ?? { type: AggregationType.DEFAULT };
  }

  export(metrics: ResourceMetrics, resultCallback: (result: ExportResult) => void): void {
    const n = pointCount(metrics);
    if (n === 0) {
      resultCallback({ code: ExportResultCode.SUCCESS });
      return;
    }
    this.#inner.export(metrics, this.#tally.wrap(n, resultCallback));
  }

  forceFlush(): Promise<void> {
    return this.#inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.#inner.shutdown();
  }

  count(): DeliveryCount {
    return this.#tally.snapshot();
  }
}

/** Whether some of what was handed to the exporters was not delivered. */
export function deliveryShort(spans: DeliveryCount, points: DeliveryCount): boolean {
  return spans.delivered < spans.attempted || points.delivered < points.attempted;
}

/**
 * The one-line summary of a report's counts. `unreachable`, when no collector address accepted a
 * connection, says why what was left was not delivered, in place of errors the exporter had not
 * reported yet.
 */
export function deliverySummary(spans: DeliveryCount, points: DeliveryCount, timedOut: boolean, unreachable?: string): string {
  let line = `${spans.delivered} of ${spans.attempted} spans delivered`;
  if (points.attempted > 0) line += `, ${points.delivered} of ${points.attempted} metric points`;
  if (unreachable !== undefined) return `${line} (${unreachable})`;
  // what was not delivered is counted in words, not only by the two figures: a flood that outruns
  // the export queue or the exporter's concurrent requests says how many spans it dropped
  const dropped = spans.attempted - spans.delivered;
  const count = dropped > 0 ? `${dropped} ${dropped === 1 ? 'span' : 'spans'} dropped` : undefined;
  const err = spans.firstError ?? points.firstError;
  if (err !== undefined) line += ` (${count === undefined ? '' : `${count}; `}first error: ${err})`;
  else if (count !== undefined) line += ` (${count})`;
  if (timedOut) line += ' (the shutdown flush ran out of time)';
  return line;
}
