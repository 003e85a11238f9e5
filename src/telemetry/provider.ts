/**
 * The telemetry facade: one object per process that hands out run, startup, chat and tool spans
 * and records the metrics, over providers that are never registered globally. A disabled run gets
 * the same object with nothing behind it, so call sites never branch on whether telemetry is on.
 */
import {
  context as contextApi,
  createNoopMeter,
  defaultTextMapGetter,
  defaultTextMapSetter,
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { Attributes, Context, Span, TextMapPropagator, Tracer } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_TOKEN_TYPE,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  GEN_AI_TOKEN_TYPE_VALUE_INPUT,
  GEN_AI_TOKEN_TYPE_VALUE_OUTPUT,
} from '@opentelemetry/semantic-conventions/incubating';
import type { CapturedMessage } from './content.js';
import { instruments } from './instruments.js';
import type { Instruments } from './instruments.js';
import { encodeMessages, fitText, jsonCost, MessageCursor } from './content.js';
import type { DeliveryReport } from './delivery.js';
import type { ExportPipeline } from './pipeline.js';
import type { TelemetrySettings } from './settings.js';
import { CONTENT_ATTRIBUTE_LIMIT } from './settings.js';
import type { DegradeReason, ErrorClass, ServedOutcome, ToolExit, ToolKind } from './vocabulary.js';
import { toolExitClass } from './vocabulary.js';

/** The event a chat span gets for each HTTP attempt the provider's client makes. */
export const HTTP_ATTEMPT_EVENT = 'fisk.http.attempt';
/** The startup span's name; deliberately not the conventions' create_agent. */
export const STARTUP_SPAN = 'fisk.startup';

/** The request size a batch of captured spans aims under; the batch size is derived from it. */
const CAPTURE_REQUEST_TARGET = 4 * 1024 * 1024;
const DEFAULT_BATCH_SIZE = 512;
/** How long a shutdown's flush may run before the collector's address is probed (milliseconds). */
const PROBE_AFTER_MS = 250;

/** A fetch function, written out longhand so `src/llm`'s FetchMiddleware accepts it without an import. */
export type TelemetryFetch = (input: string | URL | globalThis.Request, init?: RequestInit) => Promise<globalThis.Response>;
export type TelemetryFetchMiddleware = (next: TelemetryFetch) => TelemetryFetch;

/** How the export is shaped: capture makes spans large, so batches shrink and requests are gzipped. */
export interface ExportShape {
  readonly maxExportBatchSize: number;
  readonly gzip: boolean;
}

export function exportShape(captureContent: boolean, attributeLimit = CONTENT_ATTRIBUTE_LIMIT): ExportShape {
  if (!captureContent) return { maxExportBatchSize: DEFAULT_BATCH_SIZE, gzip: false };
  // Two content attributes at the limit per span, at most.
  return { maxExportBatchSize: Math.max(1, Math.floor(CAPTURE_REQUEST_TARGET / (2 * attributeLimit))), gzip: true };
}

export interface TelemetryOptions {
  /** `service.version` on the resource. */
  readonly serviceVersion?: string | undefined;
  /** Per-request export timeout; 10 s unless given. */
  readonly exportTimeoutMs?: number | undefined;
  /** How often metrics are pushed; 60 s unless given. Shutdown always pushes what is left. */
  readonly metricIntervalMs?: number | undefined;
  /** The most JSON-escaped bytes one content attribute carries. */
  readonly contentAttributeLimit?: number | undefined;
}

export interface RunOptions {
  /** The agent's identity, as `gen_ai.agent.name`. */
  readonly agentName: string;
  /** Span attribute only; never on a metric. */
  readonly conversationId?: string | undefined;
  /** A W3C `traceparent` from a delegating peer; adopted so a delegation stays one trace. */
  readonly traceparent?: string | undefined;
  readonly tracestate?: string | undefined;
}

export interface ChatOptions {
  /** The provider's name in the GenAI conventions (`anthropic`, `openai`), as `gen_ai.provider.name`. */
  readonly provider: string;
  readonly model: string;
  readonly serverAddress?: string | undefined;
  readonly serverPort?: number | undefined;
}

export interface ToolOptions {
  /** Span attribute only. */
  readonly callId?: string | undefined;
}

const NOOP_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** Marks a span failed with a closed class. Never records an exception: that would carry a stack. */
function fail(span: Span, cls: ErrorClass | undefined): void {
  if (cls === undefined) return;
  span.setAttribute(ATTR_ERROR_TYPE, cls);
  span.setStatus({ code: SpanStatusCode.ERROR, message: cls });
}

interface Internals {
  readonly tracer: Tracer | undefined;
  /** W3C trace context; set exactly when spans are exported. */
  readonly propagator: TextMapPropagator | undefined;
  readonly inst: Instruments;
  readonly capture: boolean;
  readonly limit: number;
}

/**
 * The handle every caller holds. Built by `startTelemetry`; `Telemetry.disabled()` is the same
 * handle with nothing behind it.
 */
export class Telemetry {
  readonly #i: Internals;
  readonly #pipeline: ExportPipeline | undefined;
  #report: Promise<DeliveryReport> | undefined;

  private constructor(i: Internals, pipeline?: ExportPipeline) {
    this.#i = i;
    this.#pipeline = pipeline;
  }

  /** A handle that records nothing. */
  static disabled(): Telemetry {
    return new Telemetry({
      tracer: undefined,
      propagator: undefined,
      inst: instruments(createNoopMeter()),
      capture: false,
      limit: CONTENT_ATTRIBUTE_LIMIT,
    });
  }

  /** @internal Built by startTelemetry, which loads the export pipeline only for a plan. */
  static fromPipeline(pipeline: ExportPipeline, capture: boolean, limit: number): Telemetry {
    return new Telemetry(
      { tracer: pipeline.tracer, propagator: pipeline.propagator, inst: instruments(pipeline.meter ?? createNoopMeter()), capture, limit },
      pipeline,
    );
  }

  /** Whether anything is exported. For display; call sites need not check it. */
  get enabled(): boolean {
    return this.#i.tracer !== undefined;
  }

  /**
   * Whether content is captured, as resolved: read this, not the configuration, for any marker
   * shown to a person.
   */
  get captureContent(): boolean {
    return this.#i.capture;
  }

  /**
   * Starts the root span of one run (`invoke_agent`). End it last, after the barrier that turns a
   * crash into an error, so it sees that error.
   */
  startRun(options: RunOptions): RunSpan {
    let parent = ROOT_CONTEXT;
    // a peer's trace context matters only to spans that are exported
    if (options.traceparent !== undefined && this.#i.propagator !== undefined) {
      const carrier: Record<string, string> = { traceparent: options.traceparent };
      if (options.tracestate !== undefined) carrier['tracestate'] = options.tracestate;
      parent = this.#i.propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
    }
    const attrs: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      [ATTR_GEN_AI_AGENT_NAME]: options.agentName,
    };
    if (options.conversationId !== undefined) attrs[ATTR_GEN_AI_CONVERSATION_ID] = options.conversationId;
    const span = startSpan(this.#i, `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${options.agentName}`, SpanKind.INTERNAL, attrs, parent);
    return new RunSpan(this.#i, span, trace.setSpan(parent, span));
  }

  /**
   * Runs one tool call outside any run (a served MCP call) inside a tool span. See
   * `RunSpan.toolCall`.
   */
  toolCall<T>(name: string, kind: ToolKind, fn: (span: ToolSpan) => Promise<T>, options: ToolOptions = {}): Promise<T> {
    return runTool(this.#i, ROOT_CONTEXT, name, kind, fn, options);
  }

  /** Counts one knowledge search that degraded from hybrid to lexical. Metrics are not sampled. */
  recordDegradedKnowledge(reason: DegradeReason): void {
    this.#i.inst.degraded.add(1, { 'fisk.knowledge.degrade_reason': reason });
  }

  /**
   * Records one session append's duration, measured by the caller; no span per append, which
   * would double a run's span count.
   */
  recordSessionAppend(backend: string, seconds: number, failed: boolean): void {
    const attrs: Attributes = { 'fisk.session.backend': backend };
    if (failed) attrs[ATTR_ERROR_TYPE] = '_OTHER';
    this.#i.inst.sessionAppend.record(seconds, attrs);
  }

  /** Counts one piece of served work by channel and how it settled. */
  recordServedWork(channel: string, outcome: ServedOutcome): void {
    this.#i.inst.served.add(1, { 'fisk.serve.channel': channel, 'fisk.serve.outcome': outcome });
  }

  /** Counts one piece of served work taken again after an earlier attempt. */
  recordServedRetry(channel: string): void {
    this.#i.inst.retries.add(1, { 'fisk.serve.channel': channel });
  }

  /** Moves the count of served runs in progress by `delta` (1 when one starts, -1 when it ends). */
  recordServedInFlight(channel: string, delta: 1 | -1): void {
    this.#i.inst.inFlight.add(delta, { 'fisk.serve.channel': channel });
  }

  /** Counts one pause in pulling: a channel stopped taking work while a dependency kept failing. */
  recordPullPause(channel: string): void {
    this.#i.inst.pauses.add(1, { 'fisk.serve.channel': channel });
  }

  /** Records how long one piece of work waited in its queue before it was taken, in seconds. */
  recordQueueLag(channel: string, seconds: number): void {
    this.#i.inst.queueLag.record(Math.max(0, seconds), { 'fisk.serve.channel': channel });
  }

  /**
   * Flushes and stops export, within `timeoutMs` of its own (5 s unless given) rather than the
   * caller's deadline, so an interrupt cannot discard the run. A flush still going after
   * `probeAfterMs` has the collector's address probed, so a collector that is not running is
   * reported at once. Safe to call more than once.
   */
  shutdown(timeoutMs = 5_000, probeAfterMs = PROBE_AFTER_MS): Promise<DeliveryReport> {
    this.#report ??= this.#shutdown(timeoutMs, probeAfterMs);
    return this.#report;
  }

  async #shutdown(timeoutMs: number, probeAfterMs: number): Promise<DeliveryReport> {
    const pipeline = this.#pipeline;
    const none = { attempted: 0, delivered: 0, firstError: undefined };
    if (pipeline === undefined) return { spans: none, metricPoints: none, timedOut: false, summary: 'telemetry off' };
    const work = pipeline.shutdown();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), timeoutMs);
    });
    // a collector that refuses connections will not take what is left: no need to wait it out. The
    // address is probed only when the flush is still going after a moment, so a collector that
    // takes the export at once sees no extra connection.
    let probeTimer: NodeJS.Timeout | undefined;
    const refused = new Promise<{ why: string }>((resolve) => {
      probeTimer = setTimeout(() => void pipeline.unreachable().then((why) => resolve({ why })), probeAfterMs);
    });
    const ended = await Promise.race([work.then(() => 'done' as const), deadline, refused]);
    clearTimeout(timer);
    clearTimeout(probeTimer);
    const timedOut = ended === 'late';
    const unreachable = typeof ended === 'object' ? ended.why : undefined;
    return { timedOut, ...pipeline.delivery(timedOut, unreachable) };
  }
}

function startSpan(i: Internals, name: string, kind: SpanKind, attributes: Attributes, parent: Context): Span {
  return i.tracer?.startSpan(name, { kind, attributes }, parent) ?? NOOP_SPAN;
}

/** The root span of one run, and the parent of its startup, chat and tool spans. */
export class RunSpan {
  readonly #i: Internals;
  readonly #span: Span;
  readonly #ctx: Context;
  readonly #cursor = new MessageCursor();
  #ended = false;

  /** @internal */
  constructor(i: Internals, span: Span, ctx: Context) {
    this.#i = i;
    this.#span = span;
    this.#ctx = ctx;
  }

  /** The W3C `traceparent` to hand a peer this run delegates to; undefined when not recording. */
  traceparent(): string | undefined {
    if (!this.#span.isRecording()) return undefined;
    const carrier: Record<string, string> = {};
    this.#i.propagator?.inject(this.#ctx, carrier, defaultTextMapSetter);
    return carrier['traceparent'];
  }

  /**
   * Starts the startup span. It keeps a context of its own that is never the run's, so the run does
   * not nest inside a span that ended at handoff.
   */
  startup(): StartupSpan {
    return new StartupSpan(this.#i, startSpan(this.#i, STARTUP_SPAN, SpanKind.INTERNAL, {}, this.#ctx));
  }

  /** Starts the span of one model call. */
  chat(options: ChatOptions): ChatSpan {
    const attrs: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT,
      [ATTR_GEN_AI_PROVIDER_NAME]: options.provider,
      [ATTR_GEN_AI_REQUEST_MODEL]: options.model,
    };
    if (options.serverAddress !== undefined) attrs[ATTR_SERVER_ADDRESS] = options.serverAddress;
    if (options.serverPort !== undefined) attrs[ATTR_SERVER_PORT] = options.serverPort;
    const span = startSpan(this.#i, `${GEN_AI_OPERATION_NAME_VALUE_CHAT} ${options.model}`, SpanKind.CLIENT, attrs, this.#ctx);
    return new ChatSpan(this.#i, span, options, this.#cursor);
  }

  /**
   * Runs one tool call inside a tool span covering the whole handling, from before the registry
   * lookup through every exit. `fn` reports how it ended with `span.exit(...)`; a call that
   * returns without saying is `ok`, one that throws is `crashed` and the error is rethrown.
   */
  toolCall<T>(name: string, kind: ToolKind, fn: (span: ToolSpan) => Promise<T>, options: ToolOptions = {}): Promise<T> {
    return runTool(this.#i, this.#ctx, name, kind, fn, options);
  }

  /** Ends the run span, marking it failed with `failure` when given. Later calls do nothing. */
  end(failure?: ErrorClass): void {
    if (this.#ended) return;
    this.#ended = true;
    fail(this.#span, failure);
    this.#span.end();
  }
}

/** The span from run start to the first model call. */
export class StartupSpan {
  readonly #i: Internals;
  readonly #span: Span;
  #ended = false;

  /** @internal */
  constructor(i: Internals, span: Span) {
    this.#i = i;
    this.#span = span;
  }

  /**
   * Records the system instructions, when capture is on; `build` is not called otherwise. Call it
   * as the very last thing before the loop starts: the prompt is not final before then.
   */
  recordSystemInstructions(build: () => string): void {
    if (!this.#i.capture || !this.#span.isRecording()) return;
    const text = fitText(build(), this.#i.limit - jsonCost([{ type: 'text', content: '' }]));
    this.#span.setAttribute(ATTR_GEN_AI_SYSTEM_INSTRUCTIONS, JSON.stringify([{ type: 'text', content: text }]));
  }

  end(failure?: ErrorClass): void {
    if (this.#ended) return;
    this.#ended = true;
    fail(this.#span, failure);
    this.#span.end();
  }
}

export interface ChatResponse {
  readonly id?: string | undefined;
  readonly model?: string | undefined;
  readonly finishReasons?: readonly string[] | undefined;
  readonly inputTokens?: number | undefined;
  readonly outputTokens?: number | undefined;
}

/** The span of one model call. Finish it from one place, on success and failure alike. */
export class ChatSpan {
  readonly #i: Internals;
  readonly #span: Span;
  readonly #options: ChatOptions;
  readonly #cursor: MessageCursor;
  readonly #startedAt = performance.now();
  #response: ChatResponse = {};
  #attempts = 0;
  #ended = false;

  /** @internal */
  constructor(i: Internals, span: Span, options: ChatOptions, cursor: MessageCursor) {
    this.#i = i;
    this.#span = span;
    this.#options = options;
    this.#cursor = cursor;
  }

  /**
   * Records the messages sent since the previous model call of this run, when capture is on;
   * `build` returns the whole conversation and is not called otherwise.
   */
  recordInput(build: () => readonly CapturedMessage[]): void {
    if (!this.#i.capture || !this.#span.isRecording()) return;
    const encoded = encodeMessages(this.#cursor.take(build()), this.#i.limit);
    this.#span.setAttribute(ATTR_GEN_AI_INPUT_MESSAGES, encoded.json);
    if (encoded.dropped > 0) this.#span.setAttribute('fisk.gen_ai.input_messages.dropped', encoded.dropped);
  }

  /** Records the model's reply, when capture is on; `build` is not called otherwise. */
  recordOutput(build: () => readonly CapturedMessage[]): void {
    if (!this.#i.capture || !this.#span.isRecording()) return;
    const encoded = encodeMessages(build(), this.#i.limit);
    this.#span.setAttribute(ATTR_GEN_AI_OUTPUT_MESSAGES, encoded.json);
  }

  /** What the provider answered: ids, finish reasons and token usage (input and output only). */
  response(r: ChatResponse): void {
    this.#response = { ...this.#response, ...r };
  }

  /**
   * A fetch middleware that adds one event per HTTP attempt to this span; it opens no span. Put
   * it last in the list so it sits innermost and sees every retry.
   */
  fetchMiddleware(): TelemetryFetchMiddleware {
    return (next) => async (input, init) => {
      const attempt = ++this.#attempts;
      const started = performance.now();
      const attrs: Attributes = { 'fisk.http.attempt': attempt, [ATTR_HTTP_REQUEST_METHOD]: requestMethod(input, init) };
      const host = requestHost(input);
      if (host !== undefined) attrs[ATTR_SERVER_ADDRESS] = host;
      try {
        const res = await next(input, init);
        attrs[ATTR_HTTP_RESPONSE_STATUS_CODE] = res.status;
        if (res.status >= 400) attrs[ATTR_ERROR_TYPE] = String(res.status);
        return res;
      } catch (err) {
        attrs[ATTR_ERROR_TYPE] = isAbort(err) ? 'cancelled' : 'unavailable';
        throw err;
      } finally {
        attrs['fisk.http.duration_s'] = (performance.now() - started) / 1000;
        this.#span.addEvent(HTTP_ATTEMPT_EVENT, attrs);
      }
    };
  }

  /** Ends the span and records the duration and token metrics. Later calls do nothing. */
  end(failure?: ErrorClass): void {
    if (this.#ended) return;
    this.#ended = true;
    const r = this.#response;
    const base: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT,
      [ATTR_GEN_AI_PROVIDER_NAME]: this.#options.provider,
      [ATTR_GEN_AI_REQUEST_MODEL]: this.#options.model,
    };
    if (r.model !== undefined) base[ATTR_GEN_AI_RESPONSE_MODEL] = r.model;
    if (this.#options.serverAddress !== undefined) base[ATTR_SERVER_ADDRESS] = this.#options.serverAddress;
    if (r.id !== undefined) this.#span.setAttribute(ATTR_GEN_AI_RESPONSE_ID, r.id);
    if (r.model !== undefined) this.#span.setAttribute(ATTR_GEN_AI_RESPONSE_MODEL, r.model);
    if (r.finishReasons !== undefined) this.#span.setAttribute(ATTR_GEN_AI_RESPONSE_FINISH_REASONS, [...r.finishReasons]);
    if (r.inputTokens !== undefined) {
      this.#span.setAttribute(ATTR_GEN_AI_USAGE_INPUT_TOKENS, r.inputTokens);
      this.#i.inst.tokens.record(r.inputTokens, { ...base, [ATTR_GEN_AI_TOKEN_TYPE]: GEN_AI_TOKEN_TYPE_VALUE_INPUT });
    }
    if (r.outputTokens !== undefined) {
      this.#span.setAttribute(ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, r.outputTokens);
      this.#i.inst.tokens.record(r.outputTokens, { ...base, [ATTR_GEN_AI_TOKEN_TYPE]: GEN_AI_TOKEN_TYPE_VALUE_OUTPUT });
    }
    const durationAttrs: Attributes = failure === undefined ? base : { ...base, [ATTR_ERROR_TYPE]: failure };
    this.#i.inst.duration.record((performance.now() - this.#startedAt) / 1000, durationAttrs);
    fail(this.#span, failure);
    this.#span.end();
  }
}

/** The span of one tool call, handed to the function `toolCall` runs. */
export class ToolSpan {
  readonly #i: Internals;
  readonly #span: Span;
  #exit: ToolExit | undefined;

  /** @internal */
  constructor(i: Internals, span: Span) {
    this.#i = i;
    this.#span = span;
  }

  /** Says how the call ended. The last call wins. */
  exit(exit: ToolExit): void {
    this.#exit = exit;
  }

  /** The exit reported so far. */
  get reportedExit(): ToolExit | undefined {
    return this.#exit;
  }

  /** Records the call's arguments, when capture is on; `build` is not called otherwise. */
  recordArguments(build: () => unknown): void {
    if (!this.#i.capture || !this.#span.isRecording()) return;
    this.#span.setAttribute(ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, fitText(JSON.stringify(build()) ?? 'null', this.#i.limit));
  }

  /** Records the call's result text, when capture is on; `build` is not called otherwise. */
  recordResult(build: () => string): void {
    if (!this.#i.capture || !this.#span.isRecording()) return;
    this.#span.setAttribute(ATTR_GEN_AI_TOOL_CALL_RESULT, fitText(build(), this.#i.limit));
  }

  /** Span attribute only, never a metric label: an exit code, a memory location. */
  attribute(key: `fisk.${string}`, value: string | number | boolean): void {
    this.#span.setAttribute(key, value);
  }
}

async function runTool<T>(
  i: Internals,
  parent: Context,
  name: string,
  kind: ToolKind,
  fn: (span: ToolSpan) => Promise<T>,
  options: ToolOptions,
): Promise<T> {
  const attrs: Attributes = {
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
    [ATTR_GEN_AI_TOOL_NAME]: name,
    'fisk.tool.kind': kind,
  };
  if (options.callId !== undefined) attrs[ATTR_GEN_AI_TOOL_CALL_ID] = options.callId;
  const span = startSpan(i, `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${name}`, SpanKind.INTERNAL, attrs, parent);
  const handle = new ToolSpan(i, span);
  try {
    // The active context is set for code that reads it; nothing is registered globally, so
    // without a context manager this is only the explicit parent the handle already carries.
    return await contextApi.with(trace.setSpan(parent, span), () => fn(handle));
  } catch (err) {
    if (handle.reportedExit === undefined || handle.reportedExit === 'ok') handle.exit(isAbort(err) ? 'cancelled' : 'crashed');
    throw err;
  } finally {
    const exit = handle.reportedExit ?? 'ok';
    span.setAttribute('fisk.tool.exit', exit);
    fail(span, toolExitClass(exit));
    span.end();
  }
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
}

function requestMethod(input: string | URL | globalThis.Request, init?: RequestInit): string {
  if (init?.method !== undefined) return init.method.toUpperCase();
  if (typeof input !== 'string' && !(input instanceof URL)) return input.method.toUpperCase();
  return 'GET';
}

/** Only the host: a URL's path or query may carry a key. */
function requestHost(input: string | URL | globalThis.Request): string | undefined {
  try {
    const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    return new URL(href).hostname;
  } catch {
    return undefined;
  }
}

/**
 * Builds the handle for a process from resolved settings: export when `settings.plan` is set, the
 * disabled handle otherwise. Registers nothing globally: no tracer provider, no propagator.
 */
export async function startTelemetry(settings: TelemetrySettings, options: TelemetryOptions = {}): Promise<Telemetry> {
  const plan = settings.plan;
  if (plan === undefined) return Telemetry.disabled();
  const { startExport } = await import('./pipeline.js');
  const limit = options.contentAttributeLimit ?? CONTENT_ATTRIBUTE_LIMIT;
  const pipeline = startExport(plan, {
    shape: exportShape(plan.captureContent, limit),
    serviceVersion: options.serviceVersion,
    exportTimeoutMs: options.exportTimeoutMs ?? 10_000,
    metricIntervalMs: options.metricIntervalMs ?? 60_000,
  });
  return Telemetry.fromPipeline(pipeline, plan.captureContent, limit);
}
