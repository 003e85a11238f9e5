import { withCallTimeout } from '../llm/call-timeout.js';
import { LlmError } from '../llm/errors.js';
import type { Caps, Provider, Request, Response } from '../llm/provider.js';
import type { ContentBlock, Usage } from '../llm/types.js';
import { stopReason, ZERO_USAGE } from '../llm/types.js';

/**
 * One scripted answer: a response returned as is, an error thrown as is, or a function computing
 * the answer from the request (and free to wait on the signal, to test cancellation and timeouts).
 */
export type ScriptStep = Response | Error | ((request: Request, signal: AbortSignal) => Response | Promise<Response>);

/** Options for {@link ScriptedProvider}. */
export interface ScriptedProviderOptions {
  /** Capabilities to declare instead of the defaults (provider id `scripted`, nothing supported). */
  readonly caps?: Partial<Caps>;
  /** A per-call timeout enforced like a real provider's; none when absent. */
  readonly callTimeoutMs?: number;
}

/**
 * A provider that answers from a queue and records every request it was given, for testing the
 * agent loop and anything else that calls a model. It enforces the caller's signal (and, when
 * configured, a per-call timeout) exactly as the real providers do, and throws when its script
 * runs out so a test never hangs on a call it did not plan for.
 */
export class ScriptedProvider implements Provider {
  readonly #steps: ScriptStep[];
  readonly #requests: Request[] = [];
  readonly #caps: Caps;
  readonly #timeoutMs: number;

  constructor(steps: readonly ScriptStep[] = [], options: ScriptedProviderOptions = {}) {
    this.#steps = [...steps];
    this.#caps = {
      provider: 'scripted',
      semconvProvider: 'scripted',
      toolSearch: false,
      thinking: false,
      promptCache: false,
      ...options.caps,
    };
    this.#timeoutMs = options.callTimeoutMs ?? 0;
  }

  /** Appends answers to the script. */
  push(...steps: ScriptStep[]): this {
    this.#steps.push(...steps);
    return this;
  }

  /** Every request received so far, in order (deep copies: later mutation by the caller is not seen). */
  get requests(): readonly Request[] {
    return this.#requests;
  }

  /** How many scripted answers are still queued. */
  get remaining(): number {
    return this.#steps.length;
  }

  capabilities(): Caps {
    return this.#caps;
  }

  async call(request: Request, signal: AbortSignal): Promise<Response> {
    this.#requests.push(structuredClone(request));
    const step = this.#steps.shift();
    return withCallTimeout(
      this.#timeoutMs,
      signal,
      async (inner) => {
        if (step === undefined) {
          throw new Error(`scripted provider: no answer queued for call ${this.#requests.length}`);
        }
        if (step instanceof Error) throw step;
        if (typeof step === 'function') return step(request, inner);
        return step;
      },
      (err) => (err instanceof LlmError ? err : new LlmError('server', err instanceof Error ? err.message : String(err), { cause: err })),
    );
  }
}

/** Options shared by the response builders. */
export interface ScriptedResponseOptions {
  readonly usage?: Partial<Usage>;
  readonly model?: string;
  /** Overrides the stop reason the builder would choose; an unknown value passes through as `other`. */
  readonly stopReason?: string;
}

/** A completed assistant turn with the given blocks. */
export function scriptedResponse(content: readonly ContentBlock[], options: ScriptedResponseOptions = {}): Response {
  const hasToolUse = content.some((b) => b.type === 'tool_use');
  const base: Response = {
    message: { role: 'assistant', content },
    stopReason: stopReason(options.stopReason ?? (hasToolUse ? 'tool_use' : 'end_turn')),
    usage: { ...ZERO_USAGE, ...options.usage },
  };
  return options.model === undefined ? base : { ...base, model: options.model };
}

/** A final text answer (`end_turn`). */
export function textResponse(text: string, options: ScriptedResponseOptions = {}): Response {
  return scriptedResponse([{ type: 'text', text }], options);
}

/** One scripted tool call: `input` is an object (serialised) or raw JSON text (sent verbatim). */
export interface ScriptedToolCall {
  readonly name: string;
  readonly input?: unknown;
  readonly id?: string;
}

let nextCallId = 1;

/** A turn asking for one or more tool calls (`tool_use`), optionally preceded by text. */
export function toolUseResponse(
  calls: readonly ScriptedToolCall[],
  options: ScriptedResponseOptions & { readonly text?: string } = {},
): Response {
  const blocks: ContentBlock[] = [];
  if (options.text !== undefined) blocks.push({ type: 'text', text: options.text });
  for (const c of calls) {
    blocks.push({
      type: 'tool_use',
      id: c.id ?? `toolu_scripted_${nextCallId++}`,
      name: c.name,
      input: typeof c.input === 'string' ? c.input : JSON.stringify(c.input ?? {}),
    });
  }
  return scriptedResponse(blocks, options);
}

/** A step that never answers on its own: it settles only when the call is cancelled or times out. */
export function hangingStep(): ScriptStep {
  return (_request, signal) =>
    new Promise<Response>((_, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted')), { once: true });
    });
}
