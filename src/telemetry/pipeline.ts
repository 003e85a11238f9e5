/**
 * The OTLP export pipeline behind an enabled `Telemetry`: exporters, batching, the tracer and
 * meter providers and the delivery tally. Loaded by `startTelemetry` only when the settings plan an
 * export, so a process with telemetry off never loads the OpenTelemetry SDK or its exporters.
 */
import type { Meter, TextMapPropagator, Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { DeliveryCount } from './delivery.js';
import {
  CountingMetricExporter,
  CountingSpanExporter,
  deliveryShort,
  deliverySummary,
  RecordedSpanCounter,
  spanDelivery,
} from './delivery.js';
import { collectorUnreachable } from './reach.js';
import type { ExportPlan } from './settings.js';

/** What the pipeline needs besides the plan. */
export interface PipelineOptions {
  /** Batch size and compression, from `exportShape`. */
  readonly shape: { readonly maxExportBatchSize: number; readonly gzip: boolean };
  readonly serviceVersion?: string | undefined;
  readonly exportTimeoutMs: number;
  readonly metricIntervalMs: number;
}

/** A started export: where spans and metrics go, and how to stop it and count what got through. */
export interface ExportPipeline {
  readonly tracer: Tracer;
  /** The meter of the metrics export, undefined when metrics are off. */
  readonly meter: Meter | undefined;
  /** W3C trace context, for adopting a peer's `traceparent` and handing one on. */
  readonly propagator: TextMapPropagator;
  /** Flushes and stops both providers. */
  shutdown(): Promise<unknown>;
  /** Resolves with a sentence when no collector address accepts a connection; never otherwise. */
  unreachable(): Promise<string>;
  /**
   * The delivery counts so far and the line for a person. `unreachable` (why nothing could be sent)
   * is kept, and said, only when something was left undelivered.
   */
  delivery(
    timedOut: boolean,
    unreachable?: string,
  ): { readonly spans: DeliveryCount; readonly metricPoints: DeliveryCount; readonly summary: string; readonly unreachable?: string };
}

export function startExport(plan: ExportPlan, options: PipelineOptions): ExportPipeline {
  const { shape } = options;
  const timeoutMillis = options.exportTimeoutMs;
  const compression = shape.gzip ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE;
  const resource = defaultResource().merge(
    resourceFromAttributes({
      [ATTR_SERVICE_NAME]: plan.serviceName,
      ...(options.serviceVersion === undefined ? {} : { [ATTR_SERVICE_VERSION]: options.serviceVersion }),
    }),
  );
  const traceConfig = { url: plan.tracesUrl, compression, timeoutMillis };
  const spans = new CountingSpanExporter(
    plan.protocol === 'http/json' ? new JsonTraceExporter(traceConfig) : new ProtoTraceExporter(traceConfig),
  );
  const recorded = new RecordedSpanCounter(
    new BatchSpanProcessor(spans, { maxExportBatchSize: shape.maxExportBatchSize, maxQueueSize: Math.max(2048, shape.maxExportBatchSize) }),
  );
  const ratio = new TraceIdRatioBasedSampler(plan.sampleRatio);
  const tracerProvider = new BasicTracerProvider({
    resource,
    // Follows a remote parent that claims sampled, so a delegation stays one trace; one that
    // claims not sampled gets this process's own ratio, so a peer cannot switch recording off.
    sampler: new ParentBasedSampler({ root: ratio, remoteParentNotSampled: ratio }),
    spanProcessors: [recorded],
  });
  let meterProvider: MeterProvider | undefined;
  let metrics: CountingMetricExporter | undefined;
  if (plan.metrics) {
    const metricConfig = { url: plan.metricsUrl, compression, timeoutMillis };
    metrics = new CountingMetricExporter(
      plan.protocol === 'http/json' ? new JsonMetricExporter(metricConfig) : new ProtoMetricExporter(metricConfig),
    );
    meterProvider = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: metrics,
          exportIntervalMillis: options.metricIntervalMs,
          exportTimeoutMillis: Math.min(timeoutMillis, options.metricIntervalMs),
        }),
      ],
    });
  }
  const none = { attempted: 0, delivered: 0, firstError: undefined };
  return {
    tracer: tracerProvider.getTracer('fisk-ai', options.serviceVersion),
    meter: meterProvider?.getMeter('fisk-ai', options.serviceVersion),
    propagator: new W3CTraceContextPropagator(),
    shutdown: () => Promise.allSettled([tracerProvider.shutdown(), meterProvider?.shutdown()]),
    unreachable: () => collectorUnreachable(plan.metrics ? [plan.tracesUrl, plan.metricsUrl] : [plan.tracesUrl]),
    delivery(timedOut, unreachable) {
      const spanCount = spanDelivery(recorded.ended, spans.count());
      const metricPoints = metrics?.count() ?? none;
      const reported = unreachable !== undefined && deliveryShort(spanCount, metricPoints) ? unreachable : undefined;
      return {
        spans: spanCount,
        metricPoints,
        summary: deliverySummary(spanCount, metricPoints, timedOut, reported),
        ...(reported === undefined ? {} : { unreachable: reported }),
      };
    },
  };
}
