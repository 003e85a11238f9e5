/**
 * Telemetry as the host drives it: settings resolved from a configuration before anything opens,
 * one facade per process, a root span per run with its startup span, a chat span per model call
 * (HTTP attempts reach it through a fetch middleware), and a tool span around every call through
 * the invocation pipeline. Disabled telemetry takes the same paths with nothing behind them.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { JournalEntry, RunJournal } from '../agent/journal.js';
import type { RunOutcome } from '../agent/outcome.js';
import type { Config } from '../config/index.js';
import { LlmError } from '../llm/errors.js';
import type { FetchMiddleware } from '../llm/http.js';
import type { Provider, Request, Response } from '../llm/provider.js';
import type { Message } from '../llm/types.js';
import { startTelemetry } from '../telemetry/index.js';
import type {
  CapturedMessage,
  CapturedPart,
  ChatSpan,
  DegradeReason,
  ErrorClass,
  RunSpan,
  StartupSpan,
  Telemetry,
  TelemetrySettings,
  ToolExit,
  ToolKind,
  ToolSpan,
} from '../telemetry/index.js';
import type { InvokeResult, InvokeWrapper, RefusalReason } from '../toolkit/invoke/index.js';
import type { Kind } from '../toolkit/tool.js';
import { telemetrySettingsFor } from './telemetry-settings.js';

export { NO_TELEMETRY_FLAG, telemetryInfo, telemetrySettingsFor } from './telemetry-settings.js';

export interface HostTelemetryOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The command's `--no-telemetry` was given. */
  readonly disabled?: boolean;
  readonly serviceVersion?: string;
  /** Per-request export timeout and metric push interval; the library's defaults otherwise. */
  readonly exportTimeoutMs?: number;
  readonly metricIntervalMs?: number;
}

const TOOL_KIND: Record<Kind, ToolKind | undefined> = {
  application: 'command',
  builtin: 'builtin',
  remote: 'remote_tool',
  custom: 'function',
  mcp: 'mcp',
  unknown: undefined,
};

/** How a finished invocation ended, as the tool span's exit. */
export function toolExitOf(result: InvokeResult): ToolExit {
  switch (result.kind) {
    case 'deferred':
      return 'ok';
    case 'end_run':
      return result.code === 'hook' ? 'crashed' : 'cancelled';
    case 'answered':
      if (result.refused !== undefined) return refusalExit(result.refused);
      if (result.timedOut === true) return 'timeout';
      // a command that exited non-zero answered the model, but it failed all the same
      return result.isError || (result.exec !== undefined && result.exec.exitCode !== 0) ? 'failed' : 'ok';
  }
}

function refusalExit(reason: RefusalReason): ToolExit {
  switch (reason) {
    case 'unknown_tool':
    case 'not_loaded':
      return 'unknown_tool';
    case 'invalid_arguments':
      return 'invalid_arguments';
    case 'denied':
    case 'ungateable':
      return 'denied';
  }
}

/** The error class of a failed model call. */
export function modelErrorClass(err: unknown): ErrorClass {
  if (!(err instanceof LlmError)) return err instanceof Error && err.name === 'AbortError' ? 'cancelled' : '_OTHER';
  switch (err.code) {
    case 'timeout':
      return 'timeout';
    case 'aborted':
      return 'cancelled';
    case 'rate_limited':
      return 'rate_limited';
    case 'overloaded':
    case 'network':
      return 'unavailable';
    case 'bad_request':
      return 'invalid_request';
    case 'auth':
      return 'auth';
    case 'server':
    case 'decode':
      return 'provider_error';
  }
}

/** The error class a run's outcome puts on its root span; `undefined` for a run that ended well. */
export function outcomeErrorClass(outcome: RunOutcome): ErrorClass | undefined {
  switch (outcome.status) {
    case 'completed':
    case 'suspended':
      return undefined;
    case 'budget':
    case 'max_iterations':
      return 'budget_exhausted';
    case 'aborted':
      return 'cancelled';
    case 'error':
      return outcome.error.code === 'model' ? 'provider_error' : '_OTHER';
    case 'crashed':
      return 'crashed';
  }
}

function parsedArguments(input: string): unknown {
  try {
    return JSON.parse(input) as unknown;
  } catch {
    return input;
  }
}

/** The conversation in the conventions' message shape; a tool result is a message of role `tool`. */
export function capturedMessages(messages: readonly Message[]): CapturedMessage[] {
  const out: CapturedMessage[] = [];
  for (const m of messages) {
    const parts: CapturedPart[] = [];
    const results: CapturedPart[] = [];
    for (const b of m.content) {
      switch (b.type) {
        case 'text':
          parts.push({ type: 'text', content: b.text });
          break;
        case 'thinking':
          parts.push({ type: 'reasoning', content: b.text, ...(b.signature === undefined ? {} : { signature: 'present' }) });
          break;
        case 'tool_use':
          parts.push({ type: 'tool_call', id: b.id, name: b.name, arguments: parsedArguments(b.input) });
          break;
        case 'tool_result':
          results.push({ type: 'tool_call_response', id: b.toolUseId, response: b.content });
          break;
        case 'provider':
          parts.push({ type: 'provider_raw', provider: b.kind, raw: b.raw });
          break;
      }
    }
    if (results.length > 0) out.push({ role: 'tool', parts: results });
    if (parts.length > 0) out.push({ role: m.role, parts });
  }
  return out;
}

/** What a run borrows from the process's telemetry. */
export interface RunTelemetryOptions {
  readonly agentName: string;
  readonly conversationId?: string | undefined;
  readonly traceparent?: string | undefined;
  readonly tracestate?: string | undefined;
}

/**
 * The process's telemetry: the facade, the settings it came from, and the fetch middleware that
 * reports HTTP attempts to the chat span of the model call they belong to.
 */
export class HostTelemetry {
  readonly settings: TelemetrySettings;
  readonly telemetry: Telemetry;
  readonly #chat = new AsyncLocalStorage<ChatSpan>();

  private constructor(settings: TelemetrySettings, telemetry: Telemetry) {
    this.settings = settings;
    this.telemetry = telemetry;
  }

  /**
   * Resolves the settings and starts export when they say so. Call before anything else opens: a
   * bad endpoint throws a configuration error here, before any model or tool is touched.
   */
  static async open(config: Config, options: HostTelemetryOptions): Promise<HostTelemetry> {
    const settings = telemetrySettingsFor(config, options.env, options.disabled === true);
    const telemetry = await startTelemetry(settings, {
      serviceVersion: options.serviceVersion,
      exportTimeoutMs: options.exportTimeoutMs,
      metricIntervalMs: options.metricIntervalMs,
    });
    return new HostTelemetry(settings, telemetry);
  }

  get enabled(): boolean {
    return this.telemetry.enabled;
  }

  /** The note to print when OTLP variables are set but telemetry is off. */
  get note(): string | undefined {
    return this.settings.note;
  }

  /**
   * Append last to the provider's fetch middleware: it sits innermost and records each HTTP
   * attempt, retries included, on the chat span of the call in progress.
   */
  readonly fetchMiddleware: FetchMiddleware = (next) => (input, init) => {
    const chat = this.#chat.getStore();
    return chat === undefined ? next(input, init) : chat.fetchMiddleware()(next)(input, init);
  };

  /** Counts a knowledge search that fell back to lexical: `RuntimeDeps.onKnowledgeDegraded`. */
  readonly knowledgeDegraded = (step: DegradeReason): void => {
    this.telemetry.recordDegradedKnowledge(step);
  };

  /**
   * The run's journal with each append (a batch counting as one) timed and recorded
   * (`fisk.session.append.duration`), measured here by the caller rather than as a span per
   * append, which would double a run's spans.
   */
  timedJournal(journal: RunJournal, backend: string): RunJournal {
    const telemetry = this.telemetry;
    const timed = async (write: () => Promise<void>): Promise<void> => {
      const started = performance.now();
      let failed = true;
      try {
        await write();
        failed = false;
      } finally {
        telemetry.recordSessionAppend(backend, (performance.now() - started) / 1000, failed);
      }
    };
    const appendAll = journal.appendAll?.bind(journal);
    return {
      ...(journal.stillOwned === undefined ? {} : { stillOwned: () => journal.stillOwned?.() ?? Promise.resolve(true) }),
      append: (entry) => timed(() => journal.append(entry)),
      // a batch is one durable step, so it is timed as one append
      ...(appendAll === undefined ? {} : { appendAll: (entries: readonly JournalEntry[]) => timed(() => appendAll(entries)) }),
    };
  }

  /** Starts the root span of one run, and its startup span. */
  run(options: RunTelemetryOptions): RunTelemetry {
    return new RunTelemetry(this.telemetry.startRun(options), this.#chat);
  }

  /** A tool span around every call a serving surface handles outside any run (`fisk mcp`). */
  servedToolWrapper(): InvokeWrapper {
    return toolWrapper((name, kind, fn, callId) => this.telemetry.toolCall(name, kind, fn, { callId }));
  }

  /**
   * The wrappers for calls a serving surface handles outside any run: the tool span when telemetry
   * is exported, and none when it is off, so a served call then pays for no span nobody will see.
   */
  servedToolWrappers(): readonly InvokeWrapper[] {
    return this.enabled ? [this.servedToolWrapper()] : [];
  }

  /**
   * Flushes and stops export within its own timeout. Returns the line to print ("N of M spans
   * delivered"), or `undefined` when export is off.
   */
  async finish(): Promise<string | undefined> {
    const report = await this.telemetry.shutdown();
    return this.enabled ? report.summary : undefined;
  }
}

type ToolRunner = <T>(name: string, kind: ToolKind, fn: (span: ToolSpan) => Promise<T>, callId: string) => Promise<T>;

function toolWrapper(run: ToolRunner): InvokeWrapper {
  return (call, next) =>
    run(
      call.name,
      'function',
      async (span) => {
        span.recordArguments(() => parsedArguments(call.input));
        const result = await next();
        const kind = result.kind === 'end_run' ? undefined : TOOL_KIND[result.toolKind];
        if (kind !== undefined) span.attribute('fisk.tool.kind', kind);
        if (result.kind === 'answered') {
          if (result.exec !== undefined) span.attribute('fisk.tool.exit_code', result.exec.exitCode);
          span.recordResult(() => result.content);
        }
        span.exit(toolExitOf(result));
        return result;
      },
      call.id,
    );
}

/** One run's spans: the root, its startup span, its chat and tool spans. */
export class RunTelemetry {
  readonly #span: RunSpan;
  readonly #startup: StartupSpan;
  readonly #chat: AsyncLocalStorage<ChatSpan>;

  /** @internal */
  constructor(span: RunSpan, chat: AsyncLocalStorage<ChatSpan>) {
    this.#span = span;
    this.#startup = span.startup();
    this.#chat = chat;
  }

  /** The `traceparent` to hand a peer this run delegates to. */
  traceparent(): string | undefined {
    return this.#span.traceparent();
  }

  /** Records the system prompt on the startup span (capture only); call just before the loop starts. */
  systemInstructions(build: () => string): void {
    this.#startup.recordSystemInstructions(build);
  }

  /**
   * Wraps one model call in a chat span; the first call ends the startup span. Hand it to the
   * loop as `RunOptions.modelCall`.
   */
  modelCall(provider: Provider): (request: Request, call: () => Promise<Response>) => Promise<Response> {
    const caps = provider.capabilities();
    return async (request, call) => {
      this.#startup.end();
      const chat = this.#span.chat({ provider: caps.semconvProvider, model: request.model });
      chat.recordInput(() => capturedMessages(request.messages));
      let response: Response;
      try {
        response = await this.#chat.run(chat, call);
      } catch (err) {
        chat.end(modelErrorClass(err));
        throw err;
      }
      // instrumentation never changes what the loop sees: a response it cannot describe is passed on
      // untouched, so a provider that breaks its contract fails in the loop, as it would untraced
      try {
        chat.response({
          ...(response.model === undefined ? {} : { model: response.model }),
          finishReasons: [response.stopReason.raw],
          inputTokens: response.usage.input,
          outputTokens: response.usage.output,
        });
        chat.recordOutput(() => capturedMessages([response.message]).map((m) => ({ ...m, finishReason: response.stopReason.raw })));
        chat.end();
      } catch {
        chat.end('_OTHER');
      }
      return response;
    };
  }

  /** The tool span wrapper for this run's invocation pipeline (`RunOptions.toolWrappers`). */
  toolWrapper(): InvokeWrapper {
    return toolWrapper((name, kind, fn, callId) => this.#span.toolCall(name, kind, fn, { callId }));
  }

  /** Ends the run: after the crash barrier, so the root span carries the run's final error. */
  end(outcome: RunOutcome): void {
    this.#startup.end(outcomeErrorClass(outcome));
    this.#span.end(outcomeErrorClass(outcome));
  }

  /** Ends a run that never started (a refused resume, a tool set that would not assemble). */
  fail(err: unknown): void {
    const cls: ErrorClass = err instanceof Error && 'category' in err && err.category === 'configuration' ? 'configuration' : '_OTHER';
    this.#startup.end(cls);
    this.#span.end(cls);
  }
}
