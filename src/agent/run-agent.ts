/**
 * `runAgent`: one run of the agent loop. One iteration polls for suspend, takes the tool set once,
 * calls the model, journals the assistant turn before any tool runs, executes each tool call, and
 * feeds all results back as one user message. The run ends with a closed status and never throws:
 * a budget stop, a model failure and a crash are all outcomes.
 */
import { isRetryableFailure } from '../errors/fisk-error.js';
import { LlmError } from '../llm/errors.js';
import type { Provider, Request, Response } from '../llm/provider.js';
import { addUsage, ZERO_USAGE } from '../llm/types.js';
import type { ContentBlock, Message, StopReason, ToolResultBlock, ToolUseBlock, Usage } from '../llm/types.js';
import type { InvokeWrapper } from '../toolkit/invoke/types.js';
import type { Prompter, ToolSet, ToolSetSource } from '../toolkit/tool.js';
import { ConfirmGate } from './confirm-gate.js';
import { deriveCounters, tokensProcessed } from './counters.js';
import { AgentError, CRASH_MESSAGE } from './errors.js';
import type { RunError } from './errors.js';
import type { AgentEvent, EventSink } from './events.js';
import { DISCARD_EVENTS } from './events.js';
import type { Hooks } from './hooks.js';
import type { JournalEntry, RunJournal } from './journal.js';
import { observedPrompter } from './observed-prompter.js';
import { messageOf } from './outcome.js';
import type { DeferredCall, OutcomeCommon, RunOutcome } from './outcome.js';
import { withPiiGuard } from './pii/guard.js';
import type { RunSettings } from './settings.js';
import type { RunPhase } from './status.js';
import { systemBlocks } from './system-prompt.js';
import { isRunStateError } from '../runstate/errors.js';
import { oneLine } from '../util/terminal-text.js';
import { executeToolCall } from './tool-call.js';

/**
 * How long a model call waits for tool lists being read again: a server that announces a change
 * and then never answers its list must not hold the run up; its change reaches a later call.
 */
export const TOOLS_SETTLE_LIMIT_MS = 5_000;

async function settledWithin(tools: ToolSetSource, signal: AbortSignal): Promise<void> {
  if (tools.settled === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, TOOLS_SETTLE_LIMIT_MS);
    onAbort = resolve;
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([tools.settled(), stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}

/** Everything one run needs. Every resource is borrowed: the run never closes what it is given. */
export interface RunOptions {
  /** The few configuration values the loop reads (`settingsFromConfig` derives them from a `Config`). */
  readonly settings: RunSettings;
  readonly provider: Provider;
  /** Where the tool set comes from; one snapshot per model call. */
  readonly tools: ToolSetSource;
  /** The operator's prompt. May be empty when `history` already ends with a user turn. */
  readonly prompt: string;
  /** Who answers questions; absent means nobody, so every gated call is denied. */
  readonly prompter?: Prompter;
  /**
   * The prompter puts each question on the event stream itself (a run handle's prompter, with an
   * id to answer by), so the loop does not announce it a second time.
   */
  readonly questionsAnnounced?: boolean;
  readonly hooks?: Hooks;
  readonly events?: EventSink;
  readonly signal?: AbortSignal;
  /** Durable storage for the run; without one the run is journaled in memory only. */
  readonly journal?: RunJournal;
  /** Polled at each loop boundary; true ends the run suspended before the next iteration. */
  readonly suspendRequested?: () => boolean;
  /** A conversation to continue (a resume or a follow-up), before `prompt`. */
  readonly history?: readonly Message[];
  /** The iteration index to continue from (a resume); 0 by default. */
  readonly startIteration?: number;
  /**
   * The iteration `llm.budget.max_iterations` counts from: a follow-up's first, so each prompt
   * gets the whole budget; 0 by default, so a resume continues the budget of the turn it resumes.
   */
  readonly budgetFrom?: number;
  /**
   * What peers reported spending on tasks delegated in the journaled turns before this one (a
   * resume): added to the run's delegated tokens, and `counted` to what `llm.budget.max_tokens` counts.
   */
  readonly delegatedBefore?: { readonly input: number; readonly output: number; readonly counted: number };
  /** Grants restored from a journal: tools approved for the rest of the run, and call ids approved once. */
  readonly grants?: {
    readonly standing?: readonly string[];
    readonly oneShot?: readonly string[];
    readonly declined?: readonly string[];
    /** What the operator said to do instead, by call id, for the `declined` calls that carried a reason. */
    readonly declineReasons?: Readonly<Record<string, string>>;
  };
  /** The working directory handed to tools that declare they need one. */
  readonly workDir?: string;
  /** Extra system prompt segments from the host (memory and knowledge notes), after the built-in ones. */
  readonly systemNotes?: readonly string[];
  /** Whether an operator is present at a chat surface (longer cache lifetime). */
  readonly interactive?: boolean;
  /** Replaces every credential value the host holds in tool output, before the model or a person sees it. */
  readonly scrub?: (text: string) => string;
  /**
   * The agents this run acts for, outermost first, ending with this agent: a delegation tool sends
   * it on and refuses a peer already in it. Default: this agent alone.
   */
  readonly chain?: readonly string[];
  /** Answers a call the snapshot holds but the model may not call yet (a deferred tool not loaded). */
  readonly notCallable?: (set: ToolSet, name: string) => string | undefined;
  /** Wrappers around each tool call (telemetry), outermost first. */
  readonly toolWrappers?: readonly InvokeWrapper[];
  /** Wraps each model call (telemetry's chat span); `call` makes the request itself. */
  readonly modelCall?: (request: Request, call: () => Promise<Response>) => Promise<Response>;
  /**
   * A journaled model turn whose tool calls were not all answered (a resume after a crash or a
   * suspend inside a batch). Its unanswered calls run first, then the turn is committed with every
   * result in call order, so no journaled model call is made again.
   */
  readonly pendingBatch?: PendingToolBatch;
  /** Ask the provider to stream, and emit each piece of answer text as a `text_fragment` event. */
  readonly stream?: boolean;
}

/** A model turn from the journal and the results already recorded for its calls, by call id. */
export interface PendingToolBatch {
  readonly message: Message;
  readonly results: ReadonlyMap<string, ToolResultBlock>;
}

const NEVER_ABORTED = new AbortController().signal;

/** The bookkeeping of one run, kept on its own call chain. */
class Run {
  readonly entries: JournalEntry[] = [];
  readonly messages: Message[];
  readonly started = Date.now();
  iteration: number;
  model: string;
  lastStop: StopReason | undefined;
  deferred: DeferredCall[] = [];
  phase: RunPhase = 'model_call';
  /** The usage folded so far, step by step as entries are recorded; the outcome refolds them all. */
  #usage: Usage = ZERO_USAGE;
  /** Peers' tokens the operator asked the budget to count (`remote_agents[].count_budget`). */
  #counted = 0;
  readonly #delegatedBefore: { readonly input: number; readonly output: number };
  /** Entries kept back from the journal (`hold`), and the events waiting for them. */
  #held: JournalEntry[] = [];
  #waiting: AgentEvent[] = [];

  constructor(
    readonly settings: RunSettings,
    readonly events: EventSink,
    readonly journal: RunJournal | undefined,
    history: readonly Message[],
    startIteration: number,
    delegatedBefore: { readonly input: number; readonly output: number; readonly counted: number } = { input: 0, output: 0, counted: 0 },
  ) {
    this.messages = [...history];
    this.iteration = startIteration;
    this.model = settings.model;
    this.#delegatedBefore = delegatedBefore;
    this.#counted = delegatedBefore.counted;
  }

  /**
   * Keeps `entry` (a model turn) back from the journal until the next record or `flush`, so a turn
   * that ends the run is stored with its terminal entry as one durable step. Events emitted while
   * it is held wait with it: nothing the turn caused is seen before the turn is stored.
   */
  hold(entry: JournalEntry): void {
    this.#note(entry);
    this.#held.push(entry);
  }

  /** Whether an entry is held back from the journal. */
  holding(): boolean {
    return this.#held.length > 0;
  }

  async record(entry: JournalEntry): Promise<void> {
    await this.recordAll([entry]);
  }

  /**
   * Journals `entries`, behind whatever is held, as one durable step, then lets out the events that
   * waited for it. When the journal refuses them, the events are dropped with them.
   */
  async recordAll(entries: readonly JournalEntry[]): Promise<void> {
    for (const entry of entries) this.#note(entry);
    const batch = [...this.#held, ...entries];
    const waiting = this.#waiting;
    this.#held = [];
    this.#waiting = [];
    const journal = this.journal;
    if (journal !== undefined && batch.length > 0) {
      try {
        if (journal.appendAll !== undefined) await journal.appendAll(batch);
        else for (const entry of batch) await journal.append(entry);
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        // on a shared store, a journal that has moved on under another writer means the run was
        // taken over (a redelivered job resumed elsewhere): that writer finishes it, not a failure
        if (isRunStateError(err, 'locked')) throw new AgentError('taken_over', `another runner took the run over: ${why}`, { cause: err });
        throw new AgentError('journal', `the run journal refused a record: ${why}`, {
          cause: err,
          retryable: isRetryableFailure(err),
        });
      }
    }
    for (const event of waiting) this.events.emit(event);
  }

  /** Journals what is held, before anything that depends on it (a tool, a model call). */
  async flush(): Promise<void> {
    if (this.#held.length > 0) await this.recordAll([]);
  }

  /** Journals what is held without the events that waited for it: after a crash, which a sink may have caused. */
  async salvage(): Promise<void> {
    this.#waiting = [];
    await this.flush();
  }

  /** Emits `event`, after the held entries are stored when there are any. */
  emit(event: AgentEvent): void {
    if (this.#held.length > 0) this.#waiting.push(event);
    else this.events.emit(event);
  }

  #note(entry: JournalEntry): void {
    this.entries.push(entry);
    if (entry.type === 'assistant') this.#usage = addUsage(this.#usage, entry.usage);
    if (entry.type === 'tool_result' && entry.delegated?.countsBudget === true)
      this.#counted += entry.delegated.input + entry.delegated.output;
  }

  status(phase: RunPhase): void {
    this.phase = phase;
    const usage = this.#usage;
    this.emit({
      type: 'status',
      iteration: this.iteration,
      phase,
      usage: { input_tokens: usage.input + usage.cacheRead + usage.cacheWrite, output_tokens: usage.output },
    });
  }

  tokens(): number {
    return tokensProcessed(this.#usage) + this.#counted;
  }

  /** An outcome that reads nothing from the entries, for a crash that may have corrupted them. */
  crashedWithout(message: string): RunOutcome {
    const common: OutcomeCommon = {
      stopReason: undefined,
      counters: deriveCounters([]),
      model: this.model,
      durationMs: Date.now() - this.started,
      nextIteration: this.iteration,
      messages: [],
    };
    return { ...common, status: 'crashed', message, error: { code: 'crashed', message } };
  }

  #common(): OutcomeCommon {
    const counters = deriveCounters(this.entries);
    const delegated = counters.delegatedUsage;
    const before = this.#delegatedBefore;
    const delegatedUsage = { input: delegated.input + before.input, output: delegated.output + before.output };
    return {
      stopReason: this.lastStop,
      counters: { ...counters, delegatedUsage },
      model: this.model,
      durationMs: Date.now() - this.started,
      nextIteration: this.iteration,
      messages: this.messages,
    };
  }

  completed(answer: string): RunOutcome {
    return { ...this.#common(), status: 'completed', answer };
  }

  suspended(message: string): RunOutcome {
    return { ...this.#common(), status: 'suspended', message, deferred: this.deferred };
  }

  stopped(status: 'budget' | 'max_iterations' | 'aborted', message: string): RunOutcome {
    return { ...this.#common(), status, message };
  }

  failed(error: RunError, status: 'error' | 'crashed' = 'error'): RunOutcome {
    return { ...this.#common(), status, message: error.message, error };
  }
}

function textOf(message: Message): string {
  return message.content
    .filter((b): b is Extract<ContentBlock, { type: 'text' }> => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

/** The failure a refusal ends the run with, quoting the model's own words (bounded) when it gave any. */
export function refusalMessage(text: string): string {
  const said = text.replace(/\s+/g, ' ').trim();
  if (said === '') return 'the model refused to respond';
  return `the model refused to respond: ${said.length > 500 ? `${said.slice(0, 500)}…` : said}`;
}

function isAbort(err: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (err instanceof LlmError && err.code === 'aborted');
}

/** The system segment that tells the model its tool list changed since its last call. */
export function advisoryNote(advisories: readonly string[]): string {
  return `Your tool list changed since your last turn (the tools you have now are the ones sent with this request):\n${advisories.map((a) => `- ${oneLine(a)}`).join('\n')}`;
}

/** What the model is told for each call in a response cut at the output limit. */
export const TRUNCATED_CALL =
  'not run: your response was cut off at the output token limit, so these arguments may be incomplete; send the call again, shorter';

async function loop(run: Run, options: RunOptions, hooks: Hooks, prompter: Prompter | undefined, signal: AbortSignal): Promise<RunOutcome> {
  const settings = run.settings;
  const gate = new ConfirmGate(
    prompter,
    options.grants?.standing ?? [],
    options.grants?.oneShot ?? [],
    options.grants?.declined ?? [],
    options.grants?.declineReasons ?? {},
  );
  const system = systemBlocks(settings.systemPrompt, settings.humanInTheLoop, options.systemNotes ?? []);
  const startIteration = run.iteration;

  // UserPromptSubmit, with the PII guard reading what the caller's hook left behind
  if (options.prompt !== '') {
    const decided = hooks.userPromptSubmit === undefined ? undefined : await hooks.userPromptSubmit(options.prompt);
    if (decided?.action === 'deny') return run.failed({ code: 'hook', message: `the prompt was refused: ${decided.reason}` });
    const prompt = decided?.action === 'continue' && decided.prompt !== undefined ? decided.prompt : options.prompt;
    run.messages.push({ role: 'user', content: [{ type: 'text', text: prompt }] });
  }
  if (run.messages.length === 0) {
    return run.failed({ code: 'options', message: 'nothing to run: the prompt is empty and there is no conversation to continue' });
  }

  // a resumed batch: its model call is journaled, so only its unanswered calls run
  if (options.pendingBatch !== undefined) {
    run.messages.push(options.pendingBatch.message);
    const calls = options.pendingBatch.message.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
    const ended = await runBatch(
      run,
      calls,
      batchContext(run, options, options.tools.current(), gate, hooks, prompter, signal),
      options.pendingBatch.results,
    );
    if (ended !== undefined) return ended;
  }

  for (;;) {
    // 1. suspend only at the boundary, before the iteration index is consumed
    if (options.suspendRequested?.() === true) return run.suspended("suspended at the operator's request");
    if (signal.aborted) return run.stopped('aborted', 'the run was cancelled');
    if (run.iteration - (options.budgetFrom ?? 0) >= settings.maxIterations) {
      return run.stopped(
        'max_iterations',
        `stopped after ${settings.maxIterations} model calls (llm.budget.max_iterations); raise it to let the run go further`,
      );
    }
    if (run.iteration > startIteration && run.tokens() >= settings.maxTokens) return budgetStop(run);

    // a turn held back from the journal (a paused one) is stored before anything else happens
    await run.flush();

    // 2. one snapshot serves the model call and its whole batch; a list a server changed during
    // the last batch (its announcement came before its answer) is read first, so this call has it
    await settledWithin(options.tools, signal);
    if (signal.aborted) return run.stopped('aborted', 'the run was cancelled');
    const set = options.tools.current();
    // an advisory (a server changed its tool list) rides with the call that carries the new set
    const advisories = options.tools.drainAdvisories();
    for (const advisory of advisories) run.emit({ type: 'warning', text: advisory });

    // 3. the model call, under the provider's own per-call timeout
    run.status('model_call');
    const request: Request = {
      model: settings.model,
      system: advisories.length === 0 ? system : [...system, { text: advisoryNote(advisories) }],
      messages: [...run.messages],
      tools: set.definitions(),
      maxOutputTokens: settings.maxOutputTokens,
      thinking: settings.thinking,
      ...(settings.reasoningEffort === undefined ? {} : { reasoningEffort: settings.reasoningEffort }),
      interactive: options.interactive ?? false,
      noPromptCache: settings.noPromptCache,
    };
    let response: Response;
    try {
      const call = (): Promise<Response> =>
        options.stream === true
          ? options.provider.call(request, signal, { onText: (text) => run.events.emit({ type: 'text_fragment', text }) })
          : options.provider.call(request, signal);
      response = await (options.modelCall === undefined ? call() : options.modelCall(request, call));
    } catch (err) {
      if (isAbort(err, signal)) return run.stopped('aborted', 'the run was cancelled during a model call');
      const message = err instanceof Error ? err.message : String(err);
      return run.failed({
        code: 'model',
        message: `model call failed: ${message}`,
        ...(isRetryableFailure(err) ? { retryable: true } : {}),
      });
    }
    if (response.model !== undefined) run.model = response.model;
    run.lastStop = response.stopReason;

    // 4. journal the assistant turn before any tool runs. It is held until the next record or
    // effect: a turn that ends the run goes to the journal with its terminal record, one durable
    // step, and what it shows (its text, a warning) waits for it; a batch flushes it first
    run.hold({
      type: 'assistant',
      iteration: run.iteration,
      message: response.message,
      stopReason: response.stopReason,
      usage: response.usage,
    });
    run.messages.push(response.message);
    if (response.stopReason.unified === 'refusal') {
      run.iteration++;
      return run.failed({ code: 'model', message: refusalMessage(textOf(response.message)) });
    }
    const calls = response.message.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
    for (const block of response.message.content) {
      if (block.type === 'thinking' && block.text !== '') run.emit({ type: 'thinking', text: block.text });
      if (block.type === 'text' && block.text !== '') run.emit({ type: 'text', text: block.text, final: calls.length === 0 });
    }

    // a response cut at max_tokens never dispatches its calls; the model is told instead
    if (response.stopReason.unified === 'max_tokens' && calls.length > 0) {
      run.emit({
        type: 'warning',
        text: `the model's response was cut at the output limit (llm.budget.max_output_tokens = ${settings.maxOutputTokens}); its ${calls.length} tool call(s) were not run`,
      });
      const refused = calls.map((call) => ({
        call,
        block: { type: 'tool_result', toolUseId: call.id, content: TRUNCATED_CALL, isError: true } satisfies ToolResultBlock,
      }));
      // stored with the turn as one step: nothing runs between them
      await run.recordAll(
        refused.map(({ call, block }) => ({
          type: 'tool_result',
          result: block,
          name: call.name,
          kind: set.get(call.name)?.kind ?? 'unknown',
        })),
      );
      run.messages.push({ role: 'user', content: refused.map(({ block }) => block) });
      run.iteration++;
      continue;
    }

    if (calls.length === 0) {
      run.iteration++;
      if (response.stopReason.unified === 'pause_turn') continue;
      if (response.stopReason.unified === 'max_tokens') {
        run.emit({
          type: 'warning',
          text: `the answer was cut at the output limit (llm.budget.max_output_tokens = ${settings.maxOutputTokens}) and may be incomplete`,
        });
      }
      // a completed answer is returned even past the budget: those tokens are already spent
      return run.completed(textOf(response.message));
    }

    // the cumulative budget is checked before a tool batch
    if (run.tokens() >= settings.maxTokens) {
      run.iteration++;
      return budgetStop(run);
    }

    // 5. execute each call, then 6. feed the results back
    run.iteration++;
    const ended = await runBatch(run, calls, batchContext(run, options, set, gate, hooks, prompter, signal), new Map());
    if (ended !== undefined) return ended;
  }
}

type BatchContext = Parameters<typeof executeToolCall>[1];

function batchContext(
  run: Run,
  o: RunOptions,
  set: ToolSet,
  gate: ConfirmGate,
  hooks: Hooks,
  prompter: Prompter | undefined,
  signal: AbortSignal,
): BatchContext {
  const s = run.settings;
  return {
    set,
    gate,
    hooks,
    events: run.events,
    prompter,
    workDir: o.workDir,
    toolTimeoutMs: s.toolTimeoutMs,
    confirmTags: s.confirmTags,
    journal: o.journal,
    signal,
    ...(o.chain === undefined ? {} : { chain: o.chain }),
    ...(o.scrub === undefined ? {} : { scrub: o.scrub }),
    ...(o.toolWrappers === undefined ? {} : { wrappers: o.toolWrappers }),
    ...(o.notCallable === undefined ? {} : { notCallable: (name: string) => o.notCallable?.(set, name) }),
  };
}

/**
 * Runs one batch of calls in order, skipping those already answered (a resumed batch), journaling
 * each result and any grant it earned, then feeds every result back as one user message. Returns
 * an outcome when the run ends here: a deferral suspends it with nothing appended.
 */
async function runBatch(
  run: Run,
  calls: readonly ToolUseBlock[],
  ctx: BatchContext,
  answered: ReadonlyMap<string, ToolResultBlock>,
): Promise<RunOutcome | undefined> {
  // the model turn that asked for these calls is stored before the first of them runs
  await run.flush();
  run.status('tools');
  const results: ToolResultBlock[] = [];
  for (const call of calls) {
    const known = answered.get(call.id);
    if (known !== undefined) {
      results.push(known);
      continue;
    }
    const outcome = await executeToolCall(call, ctx);
    let answer: JournalEntry;
    switch (outcome.kind) {
      case 'answered':
        answer = {
          type: 'tool_result',
          result: outcome.block,
          name: call.name,
          kind: outcome.toolKind,
          ...(outcome.gate === undefined ? {} : { gate: outcome.gate }),
          ...(outcome.delegated === undefined ? {} : { delegated: outcome.delegated }),
        };
        break;
      case 'deferred':
        answer = { type: 'tool_deferred', toolUseId: call.id, name: call.name, kind: outcome.toolKind, reason: outcome.reason };
        break;
      case 'end_run':
        if (outcome.status === 'aborted') return run.stopped('aborted', outcome.message);
        return run.failed({ code: outcome.code === 'taken_over' ? 'taken_over' : 'hook', message: outcome.message });
      default: {
        const never: never = outcome;
        throw new TypeError(`unknown call result ${JSON.stringify(never)}`);
      }
    }
    // a grant is written only once the call that earned it is answered or deferred: with the
    // answer, as one durable step (nothing runs between them)
    await run.recordAll(outcome.grant === undefined ? [answer] : [answer, { type: 'grant', tool: outcome.grant, toolUseId: call.id }]);
    if (outcome.kind === 'answered') results.push(outcome.block);
    else run.deferred.push({ toolUseId: call.id, name: call.name, reason: outcome.reason });
  }
  if (run.deferred.length > 0) {
    return run.suspended(`suspended: ${run.deferred.map((d) => d.name).join(', ')} will answer later`);
  }
  run.messages.push({ role: 'user', content: results });
  return undefined;
}

function budgetStop(run: Run): RunOutcome {
  const s = run.settings;
  return run.stopped(
    'budget',
    `stopped at the token budget: ${run.tokens()} tokens processed, llm.budget.max_tokens is ${s.maxTokens}; raise it to let the run go further`,
  );
}

/**
 * Runs the agent loop once. Never throws: every ending, a crash included, is a `RunOutcome`.
 * RunEnd fires exactly once; a crash delivers its stack to the event sink only and returns an
 * outcome whose error carries none, because an outcome may cross to a remote peer.
 */
export async function runAgent(options: RunOptions): Promise<RunOutcome> {
  const events = options.events ?? DISCARD_EVENTS;
  const signal = options.signal ?? NEVER_ABORTED;
  const settings = options.settings;
  const run = new Run(settings, events, options.journal, options.history ?? [], options.startIteration ?? 0, options.delegatedBefore);
  let runEndFired = false;
  const fireRunEnd = async (outcome: RunOutcome): Promise<void> => {
    if (runEndFired) return;
    runEndFired = true;
    await options.hooks?.runEnd?.(outcome);
  };

  let outcome: RunOutcome;
  try {
    let hooks: Hooks;
    try {
      hooks = withPiiGuard(options.hooks ?? {}, settings.piiMode, (text) => events.emit({ type: 'warning', text }));
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      outcome = run.failed({
        code: 'pii',
        message: `the PII scanner could not be built (${why}); set harness.pii.mode to off to run without it`,
      });
      await fireRunEnd(outcome);
      return outcome;
    }
    const prompter =
      options.prompter === undefined || options.questionsAnnounced === true ? options.prompter : observedPrompter(options.prompter, events);
    try {
      outcome = await loop(run, options, hooks, prompter, signal);
    } catch (err) {
      if (!(err instanceof AgentError)) throw err;
      outcome = run.failed(err.toRunError());
    }
    outcome = await finish(run, outcome);
    run.status('finished');
    await fireRunEnd(outcome);
    return outcome;
  } catch (err) {
    // a model turn held for a terminal record that never came is stored alone: the crashed run
    // resumes without paying for that model call again
    await run.salvage().catch(() => undefined);
    // the crash barrier: the stack goes to the sink alone, inside its own guard
    const stack = err instanceof Error ? (err.stack ?? err.message) : String(err);
    try {
      events.emit({ type: 'crash', message: err instanceof Error ? err.message : String(err), stack });
    } catch {
      // a sink that fails while reporting a crash must not turn the crash into a throw
    }
    let crashed: RunOutcome;
    try {
      crashed = run.failed({ code: 'crashed', message: CRASH_MESSAGE }, 'crashed');
    } catch {
      // whatever broke may have broken the entries too: report the crash without counting them
      crashed = run.crashedWithout(CRASH_MESSAGE);
    }
    try {
      await fireRunEnd(crashed);
    } catch {
      // RunEnd has fired; what it threw cannot change the outcome
    }
    return crashed;
  }
}

function terminalOf(outcome: RunOutcome): JournalEntry {
  const message = messageOf(outcome);
  return message === '' ? { type: 'terminal', status: outcome.status } : { type: 'terminal', status: outcome.status, message };
}

/**
 * Writes the terminal entry, with the model turn that ended the run when it is held (one durable
 * step). A refused held turn fails the run, as it would have had the turn been written alone; a
 * refused terminal entry alone is a warning, the outcome standing.
 */
async function finish(run: Run, outcome: RunOutcome): Promise<RunOutcome> {
  const withTurn = run.holding();
  try {
    await run.record(terminalOf(outcome));
    return outcome;
  } catch (err) {
    // only a refusal by the journal is handled here: a sink that throws is a crash, as it always was
    if (!(err instanceof AgentError)) throw err;
    if (!withTurn) {
      run.events.emit({ type: 'warning', text: err.message });
      return outcome;
    }
    const failed = run.failed(err.toRunError());
    try {
      await run.record(terminalOf(failed));
    } catch (again) {
      run.events.emit({ type: 'warning', text: again instanceof Error ? again.message : String(again) });
    }
    return failed;
  }
}
