/**
 * A run another agent hosts, as the same run handle a local run gives, so every surface that
 * renders a handle (the line surface, the full-screen view) renders a delegated run too. It sits
 * on the delegation client (`runRemote`) and any a2a transport:
 *
 * - the remote reply set becomes the local events (and the answer, once the result arrives, the
 *   final `text` event a local run ends with);
 * - the remote run's questions are `question` events carrying the agent's own question id, and
 *   `answer(id)` sends the answer back; nobody else is asked;
 * - `suspend` sends the a2a cancel (the remote run parks at its next boundary and ends suspended);
 *   `cancel` sends `run.abort` and then the cancel (it stops now, its running tool killed, and
 *   ends aborted; an agent that does not take `run.abort` parks it on the cancel instead);
 * - `followUp` continues the remote conversation with a delegated follow-up;
 * - the outcome is a `RunOutcome`, its counters derived from the events the agent sent.
 */
import { A2aError, delegate } from '../a2a/index.js';
import type { AnswerValue, HostedRunStart, QuestionMessage, RunFailure, Transport } from '../a2a/index.js';
import type { AgentEvent, EventSink } from '../agent/events.js';
import { NO_COUNTERS, zeroByKind } from '../agent/counters.js';
import type { RunOutcome } from '../agent/outcome.js';
import { CONFIG_ERROR_CODES, ConfigError } from '../config/index.js';
import type { ConfigErrorCode } from '../config/index.js';
import { ERROR_CATEGORIES, FiskError } from '../errors/fisk-error.js';
import type { ErrorCategory } from '../errors/fisk-error.js';
import { EventHub, HOST_ERROR_CODES, HostError, takesFollowUp } from '../host/index.js';
import type { FollowUpOptions, HostErrorCode, QuestionAnswer, RunHandle, RunStart } from '../host/index.js';
import { stopReason, ZERO_USAGE } from '../llm/types.js';
import type { SystemBlock } from '../llm/types.js';
import type { Prompter } from '../toolkit/tool.js';
import { raceAbort } from '../util/abort-race.js';
import { conservativeAnswer, runRemote } from './remote-run.js';
import type { RemoteRunOutcome } from './remote-run.js';

export interface RemoteHandleOptions {
  readonly transport: Transport;
  /** The calling identity, sent as the sender. */
  readonly self: string;
  /** The identity of the agent that runs the prompt. */
  readonly agent: string;
  readonly prompt: string;
  /**
   * Continue this conversation (a follow-up in the same remote session) instead of starting one;
   * with an empty prompt, the agent carries the conversation on from where it stopped.
   */
  readonly conversation?: string;
  /** Ask the agent to stream the model's text as `text_fragment` events. */
  readonly stream?: boolean;
  /** The longest silence accepted from the agent (floored at three keepalive intervals). */
  readonly idleTimeoutMs?: number;
  readonly keepaliveMs?: number;
}

/** A handle on a delegated run: a `RunHandle`, plus how the agent itself said the run ended. */
export interface RemoteRunHandle extends RunHandle {
  /** The agent the run was delegated to. */
  readonly agent: string;
  /** The conversation a follow-up continues (the first request's id). */
  readonly conversation: string;
  /** Whether the cancel was sent (`suspend` or `cancel`): the caller stopped the run. */
  readonly cancelSent: boolean;
  /** The remote ending as sent (stop reason, error code), for a surface that reports it. Never rejects. */
  readonly remote: Promise<RemoteRunOutcome>;
  followUp(prompt: string): Promise<RemoteRunHandle>;
}

interface Waiting {
  readonly question: Promise<QuestionAnswer>;
  readonly resolve: (value: QuestionAnswer) => void;
  answered: boolean;
}

/** Counters from what the agent showed of its run: one model call per `model_call` phase, one tool call per result. */
function countersFrom(events: readonly AgentEvent[], remote: RemoteRunOutcome): RunOutcome['counters'] {
  let llmCalls = 0;
  let toolCalls = 0;
  let iteration = -1;
  for (const e of events) {
    if (e.type === 'status' && e.phase === 'model_call' && e.iteration !== iteration) {
      iteration = e.iteration;
      llmCalls++;
    }
    if (e.type === 'tool_result') toolCalls++;
  }
  // the agent does not say what kind of tool each call was
  const usage =
    remote.usage === undefined ? ZERO_USAGE : { ...ZERO_USAGE, input: remote.usage.input_tokens, output: remote.usage.output_tokens };
  return { llmCalls, toolCalls, toolCallsByKind: zeroByKind(), remoteToolCalls: 0, usage, delegatedUsage: { input: 0, output: 0 } };
}

/** The local outcome for a remote ending. */
export function outcomeFromRemote(remote: RemoteRunOutcome, agent: string, events: readonly AgentEvent[], durationMs: number): RunOutcome {
  const common = {
    stopReason: stopReason(remote.stopReason),
    counters: countersFrom(events, remote),
    model: '',
    durationMs,
    nextIteration: 0,
    messages: [],
  };
  if (remote.error !== undefined) {
    const message = `${agent}: ${remote.error.message}${remote.error.code === undefined ? '' : ` (${remote.error.code})`}`;
    if (remote.status === 'suspended') return { ...common, status: 'suspended', message, deferred: [] };
    if (remote.status === 'aborted' || remote.status === 'budget' || remote.status === 'max_iterations')
      return { ...common, status: remote.status, message };
    return { ...common, status: 'error', message, error: { code: 'remote', message } };
  }
  switch (remote.status) {
    case 'completed':
      return { ...common, status: 'completed', answer: remote.text };
    case 'suspended':
      return {
        ...common,
        status: 'suspended',
        message: remote.text === '' ? `${agent} suspended the run at its next step` : remote.text,
        deferred: [],
      };
    case 'aborted':
    case 'budget':
    case 'max_iterations':
      return { ...common, status: remote.status, message: remote.text === '' ? `${agent} stopped: ${remote.stopReason}` : remote.text };
    case 'error':
    case 'crashed': {
      const message = `${agent} stopped the run: ${remote.stopReason}${remote.text === '' ? '' : `: ${remote.text}`}`;
      return { ...common, status: 'error', message, error: { code: 'remote', message } };
    }
    default: {
      const never: never = remote.status;
      return never;
    }
  }
}

/**
 * Delegates a prompt and returns its handle once the agent acked it. Throws `A2aError` when the
 * agent cannot be reached (`unavailable`, `rejected`, `identity`); what goes wrong after the ack
 * is the run's outcome, an error.
 */
export function startRemoteRun(opts: RemoteHandleOptions): Promise<RemoteRunHandle> {
  return begin(opts, opts.conversation);
}

async function begin(opts: RemoteHandleOptions, conversation: string | undefined): Promise<RemoteRunHandle> {
  const hub = new EventHub();
  const seen: AgentEvent[] = [];
  const waiting = new Map<string, Waiting>();
  const stop = new AbortController();
  const abort = new AbortController();
  const began = Date.now();
  const wait = (id: string): Waiting => {
    let entry = waiting.get(id);
    if (entry === undefined) {
      let resolve: (value: QuestionAnswer) => void = () => undefined;
      const question = new Promise<QuestionAnswer>((r) => (resolve = r));
      entry = { question, resolve, answered: false };
      waiting.set(id, entry);
    }
    return entry;
  };
  const sink: EventSink = {
    emit(event) {
      // the question is waited for before anyone sees it, so an answer given at once is not lost
      if (event.type === 'question' && event.id !== undefined) wait(event.id);
      seen.push(event);
      hub.emit(event);
    },
  };
  const answer = async (question: QuestionMessage, signal: AbortSignal): Promise<QuestionAnswer> => {
    const entry = wait(question.question);
    if (signal.aborted) return conservativeAnswer(question);
    try {
      return await raceAbort(entry.question, signal, () => conservativeAnswer(question));
    } finally {
      waiting.delete(question.question);
    }
  };

  let acked: ((conversation: string) => void) | undefined;
  const accepted = new Promise<string>((resolve) => (acked = resolve));
  const running = runRemote({
    transport: opts.transport,
    self: opts.self,
    agent: opts.agent,
    prompt: opts.prompt,
    sink,
    answer,
    signal: stop.signal,
    abort: abort.signal,
    onAck: (_accepted, c) => acked?.(c),
    ...(conversation === undefined ? {} : { conversation }),
    ...(opts.stream === true ? { stream: true } : {}),
    ...(opts.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: opts.idleTimeoutMs }),
    ...(opts.keepaliveMs === undefined ? {} : { keepaliveMs: opts.keepaliveMs }),
  });
  // the handle exists once the agent answered; a failure before that is the caller's to report
  const first = await Promise.race([accepted.then((c) => ({ acked: c })), running.then(() => ({ acked: undefined }))]);
  const conv = first.acked ?? conversation ?? '';

  const remote: Promise<RemoteRunOutcome> = running.catch((err: unknown): RemoteRunOutcome => {
    const message = err instanceof Error ? err.message : String(err);
    return {
      status: 'error',
      stopReason: 'error',
      text: '',
      usage: undefined,
      error: { message, code: err instanceof A2aError ? err.code : undefined },
    };
  });
  const outcome = remote.then((result) => {
    for (const entry of waiting.values()) entry.resolve(null);
    if (result.status === 'completed' && result.text !== '') sink.emit({ type: 'text', text: result.text, final: true });
    hub.close();
    return outcomeFromRemote(result, opts.agent, seen, Date.now() - began);
  });

  const handle: RemoteRunHandle = {
    agent: opts.agent,
    conversation: conv,
    get cancelSent() {
      return stop.signal.aborted && stop.signal.reason instanceof Error && stop.signal.reason.message !== 'closed';
    },
    remote,
    start: { kind: 'new', runId: undefined },
    runId: undefined,
    system: [],
    subscribe: (s) => hub.subscribe(s),
    events: () => hub.events(),
    // the a2a cancel parks the remote run at its next boundary; run.abort, sent first, stops it now
    suspend: () => stop.abort(new Error('suspend requested')),
    cancel: () => {
      abort.abort(new Error('canceled'));
      stop.abort(new Error('canceled'));
    },
    answer: (id, value) => {
      const entry = waiting.get(id);
      if (entry === undefined || entry.answered) return false;
      entry.answered = true;
      entry.resolve(value);
      return true;
    },
    outcome,
    async followUp(prompt: string): Promise<RemoteRunHandle> {
      const previous = await outcome;
      if (previous.status !== 'completed' && previous.status !== 'suspended') {
        throw new HostError('resume', `a follow-up continues a completed or suspended turn; ${opts.agent}'s ended ${previous.status}`);
      }
      const text = prompt.trim();
      if (text === '') throw new HostError('usage', 'a follow-up needs a prompt');
      if (conv === '')
        throw new HostError('resume', `${opts.agent} never accepted the first prompt, so there is no conversation to continue`);
      return begin({ ...opts, prompt: text }, conv);
    },
    async close(): Promise<void> {
      stop.abort(new Error('closed'));
      await outcome;
    },
  };
  return handle;
}

/** A failure the hosting side raised before its run started, with its code and category kept. */
export class HostedRunFailure extends FiskError {
  readonly category: ErrorCategory;

  constructor(code: string, category: ErrorCategory, message: string) {
    super(code, message);
    this.name = 'HostedRunFailure';
    this.category = category;
  }
}

function categoryOf(value: string): ErrorCategory {
  return (ERROR_CATEGORIES as readonly string[]).includes(value) ? (value as ErrorCategory) : 'internal';
}

const isConfigCode = (code: string): code is ConfigErrorCode => (CONFIG_ERROR_CODES as readonly string[]).includes(code);
const isHostCode = (code: string): code is HostErrorCode => (HOST_ERROR_CODES as readonly string[]).includes(code);

/**
 * The host's failure as it was raised: a configuration error is one again, with each issue and
 * the key it names; a host error is one again; anything else keeps its code and category.
 */
export function rebuiltFailure(f: RunFailure): Error {
  const issues = f.issues ?? [];
  if (f.class === 'config' && issues.length > 0 && issues.every((i) => isConfigCode(i.code))) {
    return new ConfigError(
      issues.map((i) => ({ code: i.code as ConfigErrorCode, key: i.key, message: i.message, ...(i.at === undefined ? {} : { at: i.at }) })),
    );
  }
  if (f.class === 'host' && isHostCode(f.code)) return new HostError(f.code, f.message);
  return new HostedRunFailure(f.code, categoryOf(f.category), f.message);
}

export interface HostedHandleOptions {
  readonly transport: Transport;
  /** The calling identity, sent as the sender. */
  readonly self: string;
  /** The identity the host serves its own runs under. */
  readonly agent: string;
  /** What to run; `questions` says who answers: `ask` (the prompter below), `events` (`answer(id)`), `none`. */
  readonly start: HostedRunStart;
  /** Answers the run's prompter calls when `start.questions` is `ask`. */
  readonly prompter?: Prompter;
}

/** A hosted run's handle: a `RunHandle`, plus the conversation its follow-ups continue. */
export interface HostedRunHandle extends RunHandle {
  readonly conversation: string;
  followUp(prompt: string, options?: FollowUpOptions): Promise<HostedRunHandle>;
}

/** One prompter call relayed from the hosted run, put to the local prompter as it is. */
async function askLocal(
  prompter: Prompter | undefined,
  call: Readonly<Record<string, unknown>>,
  signal: AbortSignal,
): Promise<AnswerValue> {
  if (prompter === undefined) return null;
  const question = typeof call['question'] === 'string' ? call['question'] : '';
  switch (call['kind']) {
    case 'approval': {
      const r = (call['request'] ?? {}) as Record<string, unknown>;
      const text = (k: string): string => (typeof r[k] === 'string' ? r[k] : '');
      return prompter.approve({ tool: text('tool'), commandLine: text('commandLine'), trigger: text('trigger') }, signal);
    }
    case 'confirm':
      return prompter.confirm(question, signal);
    case 'select': {
      const options = Array.isArray(call['options']) ? call['options'].filter((o): o is string => typeof o === 'string') : [];
      return prompter.select(question, options, signal);
    }
    case 'input':
      return prompter.input(question, signal);
    default:
      return null;
  }
}

/**
 * Starts a hosted run (`run.start`) and returns its handle once the host said how it began. The
 * handle re-emits exactly what the host's own handle emits; `suspend` sends the a2a cancel (the
 * run parks at its next boundary), `cancel` sends `run.abort` (it stops now). A failure before the
 * run started is thrown as the host raised it: a `ConfigError` again, anything else a
 * `HostedRunFailure` with the same code, category and message.
 */
export function startHostedRun(opts: HostedHandleOptions): Promise<HostedRunHandle> {
  return beginHosted(opts, undefined);
}

async function beginHosted(opts: HostedHandleOptions, conversation: string | undefined): Promise<HostedRunHandle> {
  const hub = new EventHub();
  const park = new AbortController();
  const abort = new AbortController();
  const asking = new AbortController();
  const open = new Set<string>();
  const began = Date.now();
  let answerer: ((question: string, value: AnswerValue) => Promise<void>) | undefined;
  let started: ((begun: { start: RunStart; system: readonly SystemBlock[]; tools: readonly string[] | undefined }) => void) | undefined;
  let refused: ((err: Error) => void) | undefined;
  const starting = new Promise<{ start: RunStart; system: readonly SystemBlock[]; tools: readonly string[] | undefined }>(
    (resolve, reject) => {
      started = resolve;
      refused = reject;
    },
  );
  starting.catch(() => undefined);
  let ended: RunOutcome | undefined;
  let conv = conversation ?? '';
  const running = delegate(opts.transport, opts.self, opts.agent, {
    prompt: opts.start.prompt ?? '',
    run: opts.start,
    ...(conversation === undefined ? {} : { conversation }),
    signal: park.signal,
    abort: abort.signal,
    onAck: (_accepted, conversationId) => {
      if (conversation === undefined) conv = conversationId;
    },
    onAnswerer: (a) => (answerer = a),
    onRun: (message) => {
      switch (message.protocol) {
        case 'io.choria.fisk-ai.v1.run.started': {
          const { system, tools, ...start } = message.started as unknown as RunStart & {
            system?: readonly SystemBlock[];
            tools?: readonly string[];
          };
          started?.({ start, system: system ?? [], tools });
          return;
        }
        case 'io.choria.fisk-ai.v1.run.event': {
          const event = message.event as unknown as AgentEvent;
          if (event.type === 'question' && event.id !== undefined) open.add(event.id);
          hub.emit(event);
          return;
        }
        case 'io.choria.fisk-ai.v1.run.outcome':
          if (message.failure !== undefined) refused?.(rebuiltFailure(message.failure));
          else ended = message.outcome as unknown as RunOutcome;
          return;
        default: {
          const never: never = message;
          return never;
        }
      }
    },
    onRunAsk: (m) => askLocal(opts.prompter, m.call, asking.signal),
  });
  const outcome: Promise<RunOutcome> = running
    .then(
      (end) => {
        if (ended !== undefined) return ended;
        const message = end.protocol === 'io.choria.fisk-ai.v1.error' ? end.error : `the run ended (${end.stop_reason}) without saying how`;
        return failedOutcome(message, Date.now() - began);
      },
      (err: unknown) => failedOutcome(err instanceof Error ? err.message : String(err), Date.now() - began),
    )
    .then((outcome) => {
      asking.abort(new Error('the run ended'));
      hub.close();
      return outcome;
    });
  // the run began, or never will: a refusal, or a reply set that ended first
  const first = await Promise.race([starting, outcome.then((o) => o)]);
  if (!('start' in first)) {
    // a refusal rejected `starting` above; anything else that ended the reply set is said as it ended
    throw new HostedRunFailure('remote', 'runtime', messageOfOutcome(first));
  }
  const start = first.start;
  const handle: HostedRunHandle = {
    conversation: conv,
    start,
    runId: start.runId,
    system: first.system,
    ...(first.tools === undefined ? {} : { tools: first.tools }),
    subscribe: (s) => hub.subscribe(s),
    events: () => hub.events(),
    suspend: () => park.abort(new Error('suspend requested')),
    cancel: () => abort.abort(new Error('canceled')),
    answer: (id, value) => {
      if (!open.has(id) || answerer === undefined) return false;
      open.delete(id);
      void answerer(id, value).catch(() => undefined);
      return true;
    },
    outcome,
    followUp: async (prompt: string, options: FollowUpOptions = {}): Promise<HostedRunHandle> => {
      const previous = await outcome;
      if (!takesFollowUp(previous.status)) {
        throw new HostError(
          'resume',
          `a follow-up continues a completed turn; this one ended ${previous.status}${start.runId === undefined ? '' : `: resume it with fisk run --resume ${start.runId}`}`,
        );
      }
      const model = options.model ?? opts.start.model;
      const further = {
        questions: opts.start.questions,
        prompt,
        ...(opts.start.stream === true ? { stream: true } : {}),
        ...(opts.start.interactive === true ? { interactive: true } : {}),
        ...(model === undefined ? {} : { model }),
      };
      return beginHosted({ ...opts, start: further }, conv);
    },
    async close(): Promise<void> {
      await outcome;
    },
  };
  return handle;
}

function messageOfOutcome(o: RunOutcome): string {
  return o.status === 'completed' ? o.answer : o.message;
}

/** The outcome of a hosted run whose reply set broke before the host said how it ended. */
function failedOutcome(message: string, durationMs: number): RunOutcome {
  return {
    status: 'error',
    message,
    error: { code: 'remote', message },
    stopReason: undefined,
    counters: NO_COUNTERS,
    model: '',
    durationMs,
    nextIteration: 0,
    messages: [],
  };
}
