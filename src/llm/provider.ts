import type { Message, StopReason, SystemBlock, ThinkingMode, ToolDef, Usage } from './types.js';

/**
 * One model call. Everything the provider needs is here: it never reaches for configuration.
 */
export interface Request {
  readonly model: string;
  /** System prompt segments, in order. Built fresh by the caller for every call. */
  readonly system: readonly SystemBlock[];
  readonly messages: readonly Message[];
  readonly tools: readonly ToolDef[];
  /** The per-response output token cap. */
  readonly maxOutputTokens: number;
  readonly thinking: ThinkingMode;
  /** A model-defined level passed through verbatim; absent sends nothing. */
  readonly reasoningEffort?: string;
  /** Whether an operator is present; an interactive run asks for a longer cache lifetime. */
  readonly interactive: boolean;
  /** `true` turns both cache breakpoints off (`llm.no_prompt_cache`). */
  readonly noPromptCache: boolean;
}

/**
 * The completed assistant turn. A streamed call returns exactly what the same call unstreamed
 * would: the same message, usage, stop reason and model.
 */
export interface Response {
  readonly message: Message;
  readonly stopReason: StopReason;
  readonly usage: Usage;
  /** The model id the provider reported, when it reported one. */
  readonly model?: string;
}

/**
 * What a provider supports, declared rather than discovered (no vendor exposes capability flags
 * at runtime).
 */
export interface Caps {
  /** The neutral provider id stamped into the run fingerprint (`anthropic`, `openai`, ...). */
  readonly provider: string;
  /** The OpenTelemetry GenAI semantic-convention provider name (`anthropic`, `openai`, ...). */
  readonly semconvProvider: string;
  /** Server-side tool search, so definitions past the threshold may be deferred. */
  readonly toolSearch: boolean;
  readonly thinking: boolean;
  readonly promptCache: boolean;
  /** Declared and informational: nothing clamps a request against it. */
  readonly maxOutputTokens?: number;
}

/**
 * Fragments of the answer as the model generates them, for a surface that shows the answer while it
 * is written. Purely a view: the fragments of one kind, concatenated, are that kind's text in the
 * final response, and nothing a callback does changes the response. A callback that throws is
 * ignored, so a broken display never fails a call.
 */
export interface StreamObserver {
  /** A fragment of answer text. */
  onText?(delta: string): void;
  /** A fragment of reasoning (the summary a provider shows, never a signature). */
  onThinking?(delta: string): void;
}

/**
 * A model provider. `call` is a single request; the provider alone enforces the per-call timeout
 * it was constructed with, and honours `signal` for cancellation. With an `observer` that has at
 * least one callback the provider streams the answer and reports fragments as they arrive; the
 * response it returns is the same either way.
 */
export interface Provider {
  call(request: Request, signal: AbortSignal, observer?: StreamObserver): Promise<Response>;
  capabilities(): Caps;
}
