/**
 * Delegating a whole prompt to another agent: the serving side a run handler plugs into, and
 * the calling side. Subjects, all inside `choria.fisk-ai.`:
 *
 * - `prompt.<identity>`: a request or follow-up; the synchronous reply is the ack (sequence one),
 *   and the rest of the reply set (events, text fragments, warnings, questions, keepalives, then a
 *   result or an error) is published to the same inbox, numbered without gaps.
 * - `cancel.<identity>.<request id>` and `elicit.<identity>.<request id>`: cancels, answers and
 *   keepalives from the caller. Both are subscribed before the ack goes out, because a cancel
 *   arriving at nobody cannot be fixed, while one arriving early merely waits.
 */
import { createHash } from 'node:crypto';
import { decode, encode, prepareCodec } from './codec.js';
import { A2aError } from './errors.js';
import { HOPS_HEADER, MAX_MESSAGE_BYTES, checkIdentity, checkRequestId, hopsRefusal, mintId, parseHops, subjects } from './protocol.js';
import type { ProtocolId } from './protocol.js';
import { stampReply, stampRequest } from './stamp.js';
import { refuseBadBody } from './tool-service.js';
import { withoutPaths } from '../util/server-paths.js';
import type { EndpointSpec, IncomingRequest, Subscription, Transport } from './transport.js';
import type {
  AnswerMessage,
  AnswerValue,
  BodyOf,
  Budget,
  ErrorMessage,
  FollowupMessage,
  Header,
  HostedRunStart,
  Identity,
  KnownBlock,
  Message,
  QuestionKind,
  QuestionMessage,
  RequestMessage,
  ResultMessage,
  RunAskMessage,
  RunEventMessage,
  RunOutcomeMessage,
  RunStartedMessage,
  RunStartMessage,
  StopReason,
  Usage,
} from './types.js';

/** The bad-request answer to a request whose prompt is blank. */
const EMPTY_PROMPT = 'the request has an empty prompt: put what the agent should do in prompt';

/** An answer as it goes on the wire: a reasoned decline travels as `decline` with its reason beside it. */
function wireAnswer(value: AnswerValue): { readonly value: string | boolean | null; readonly reason?: string } {
  if (typeof value === 'object' && value !== null) return { value: 'decline', reason: value.reason };
  return { value };
}

/** An answer as it came off the wire: a reason counts only beside a decline. */
function answerOf(m: AnswerMessage): AnswerValue {
  return m.value === 'decline' && typeof m.reason === 'string' && m.reason.trim() !== '' ? { decision: 'decline', reason: m.reason } : m.value;
}

/** How often the serving side says it is alive, and how often a caller holding a question should. */
export const KEEPALIVE_INTERVAL_MS = 10_000;

/** Session ids are derived, never taken from a caller: a hash of who asked and which conversation. */
export function deriveSessionId(caller: string, conversation: string): string {
  return `a2a-${createHash('sha256').update(`fisk-ai a2a session\0${caller}\0${conversation}`).digest('hex').slice(0, 32)}`;
}

/** The answer to a question, or silence once the window closed without one. */
export type AskResult = { readonly answered: true; readonly value: AnswerValue } | { readonly answered: false };

/** What a run handler gets for one delegated request. */
export interface DelegatedRun {
  readonly request: RequestMessage | FollowupMessage;
  /** Derived from the caller and the conversation; the request's own ids are never used as one. */
  readonly sessionId: string;
  /** The caller's asserted name: for logs, never for authorization. */
  readonly caller: string;
  /**
   * The agents the request came through (the `HOPS_HEADER`), outermost first, the caller last when
   * it said so; a run sends it on, with this agent added, to whatever it delegates to.
   */
  readonly hops: readonly string[];
  /** Aborted when the caller cancels: park at the next boundary and end suspended. */
  readonly park: AbortSignal;
  /** Sends one of the blocks a terminal renders. */
  emit(block: KnownBlock): Promise<void>;
  /** Streams a fragment of model text. */
  text(fragment: string): Promise<void>;
  warn(text: string): Promise<void>;
  /**
   * Puts a question to the caller. Silence is `{ answered: false }`: the question tools defer on
   * it and the confirm gate aborts, which is the handler's call. A cancel gives the question up.
   */
  ask(question: { readonly kind: QuestionKind; readonly text: string; readonly options?: readonly string[] }): Promise<AskResult>;
}

export type RunEnding = { readonly stop_reason: StopReason; readonly text?: string; readonly usage?: Usage } | { readonly error: string; readonly stop_reason?: StopReason; readonly code?: string };

export type DelegationHandler = (run: DelegatedRun) => Promise<RunEnding>;

/**
 * What a hosted-run handler gets for one `run.start`: the host's own run, driven by a client in
 * the same process. Its questions have no window: the operator answering them is present.
 */
export interface HostedRun {
  readonly request: RunStartMessage;
  /** Set when the request continues an earlier conversation: its id. */
  readonly continues: string | undefined;
  /** Aborted by the caller's cancel: suspend at the next boundary. */
  readonly park: AbortSignal;
  /** Aborted by `run.abort`: stop now, killing a running tool. */
  readonly abort: AbortSignal;
  started(started: RunStartedMessage['started']): Promise<void>;
  event(event: RunEventMessage['event']): Promise<void>;
  outcome(body: Pick<RunOutcomeMessage, 'outcome' | 'failure'>): Promise<void>;
  /** Puts one prompter call to the caller; resolves with the answer (silence only when the run ends). */
  ask(call: RunAskMessage['call']): Promise<AskResult>;
  /** Told of an \`answer\` for a question that went out as an event (answered by its id). */
  onAnswer(listener: (question: string, value: AnswerValue) => void): void;
}

export type HostedRunHandler = (run: HostedRun) => Promise<RunEnding>;

export interface PromptServerOptions {
  readonly identity: string;
  readonly transport: Transport;
  readonly handler: DelegationHandler;
  /**
   * Takes `run.start` requests: the host's own run, driven by a client in this process. Give it
   * only on a transport that never leaves the process; without it `run.start` is refused.
   */
  readonly hostedRuns?: HostedRunHandler;
  /** Runs at once (default 1); a request beyond that is refused with a negative ack and an error. */
  readonly workers?: number;
  /** How long a question waits for an answer, restarted by each keepalive (default 5 min). */
  readonly questionWindowMs?: number;
  readonly keepaliveMs?: number;
}

export interface PromptServer {
  /** The endpoint to add to the agent's service (`startToolService`'s `extraEndpoints`). */
  readonly endpoint: EndpointSpec;
  /** Refuses new requests from now on; resolves when running ones have ended. */
  drain(): Promise<void>;
}

/** Parses a duration such as `90s`, `1m30s`, `500ms`; `undefined` for anything else. */
export function parseDurationMs(text: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const n = Number(m[1]);
    total += n * (m[2] === 'ms' ? 1 : m[2] === 's' ? 1000 : m[2] === 'm' ? 60_000 : 3_600_000);
    matched = re.lastIndex;
  }
  return matched === text.length && text.length > 0 ? total : undefined;
}

/** Limits as configured. */
export interface RunLimits {
  readonly maxTokens: number;
  readonly maxIterations: number;
  readonly callTimeoutMs: number;
}

/** A caller's budget can only lower the configured limits, never raise them; an unparsable timeout is ignored. */
export function applyBudget(limits: RunLimits, budget: Budget | undefined): RunLimits {
  if (budget === undefined) return limits;
  const low = (configured: number, asked: number | undefined): number => (asked !== undefined && asked > 0 && asked < configured ? asked : configured);
  const timeout = budget.call_timeout !== undefined ? parseDurationMs(budget.call_timeout) : undefined;
  return { maxTokens: low(limits.maxTokens, budget.max_tokens), maxIterations: low(limits.maxIterations, budget.max_iterations), callTimeoutMs: low(limits.callTimeoutMs, timeout) };
}

/** Trims the longest text field of an outgoing message until it fits the cap: a dropped message would leave a gap. */
function fit(message: Message): Uint8Array {
  try {
    return encode(message);
  } catch (err) {
    if (!(err instanceof A2aError) || err.code !== 'oversize') throw err;
  }
  const over = new TextEncoder().encode(JSON.stringify(message)).byteLength - MAX_MESSAGE_BYTES + 1024;
  const cut = (s: string): string => `${s.slice(0, Math.max(0, s.length - over - 64))}\n...[trimmed to fit the message limit]`;
  const m = message as unknown as Record<string, unknown>;
  if (typeof m['text'] === 'string') return encode({ ...message, text: cut(m['text']) } as Message);
  const block = m['block'] as Record<string, unknown> | undefined;
  if (block !== undefined) {
    const key = typeof block['output'] === 'string' ? 'output' : 'text';
    if (typeof block[key] === 'string') return encode({ ...message, block: { ...block, [key]: cut(block[key]) } } as unknown as Message);
  }
  return encode(message);
}

/** The reply set of one request: numbered from one, advancing only after a successful publish. */
class ReplySet {
  private next = 1;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly transport: Transport,
    private readonly inbox: string,
    private readonly request: Header,
    private readonly self: Identity,
  ) {}

  /** The ack goes out through the single-reply path, synchronously, as sequence one. */
  ack(incoming: IncomingRequest, accepted: boolean, reason?: string): void {
    const data = encode(stampReply('io.choria.fisk-ai.v1.ack', { accepted, ...(reason !== undefined ? { reason } : {}) }, this.request, { self: this.self, sequence: this.next }));
    if (incoming.respond(data)) this.next++;
  }

  send<P extends ProtocolId>(protocol: P, body: BodyOf<P>): Promise<void> {
    const run = async (): Promise<void> => {
      const data = fit(stampReply(protocol, body, this.request, { self: this.self, sequence: this.next }));
      await this.transport.publish(this.inbox, data);
      this.next++;
    };
    const p = this.chain.then(run);
    this.chain = p.catch(() => undefined);
    return p;
  }
}

interface PendingQuestion {
  resolve(r: AskResult): void;
  restart(): void;
}

/** The serving side of delegation for one identity. */
export function startPromptServer(opts: PromptServerOptions): PromptServer {
  const self: Identity = { name: checkIdentity(opts.identity) };
  prepareCodec();
  const workers = Math.max(1, opts.workers ?? 1);
  const windowMs = opts.questionWindowMs ?? 300_000;
  const keepaliveMs = opts.keepaliveMs ?? KEEPALIVE_INTERVAL_MS;
  const running = new Set<Promise<void>>();
  // the worker is free once the handler returns, before the terminal message goes out, so a caller
  // that saw the end of one run and sends the next is never refused as busy
  let active = 0;
  let draining = false;

  const refuse = async (incoming: IncomingRequest, replies: ReplySet, reason: string, code: string): Promise<void> => {
    // a refusing ack closes nothing, so a terminal error always follows it
    replies.ack(incoming, false, reason);
    await replies.send('io.choria.fisk-ai.v1.error', { error: reason, code });
  };

  const handle = async (incoming: IncomingRequest): Promise<void> => {
    let req: RequestMessage | FollowupMessage | RunStartMessage;
    try {
      req = decode(incoming.data, opts.hostedRuns === undefined ? ['io.choria.fisk-ai.v1.request', 'io.choria.fisk-ai.v1.followup'] : ['io.choria.fisk-ai.v1.request', 'io.choria.fisk-ai.v1.followup', 'io.choria.fisk-ai.v1.run.start']);
      checkRequestId(req.request);
    } catch (err) {
      if (refuseBadBody(incoming, err)) return;
      throw err;
    }
    if (incoming.replyTo === undefined) {
      incoming.respondError(400, 'a delegated request needs a reply inbox');
      return;
    }
    // a request with nothing to do is a bad request, like a body failing its schema; an empty
    // follow-up is not: it continues the conversation where it stopped
    if (req.protocol === 'io.choria.fisk-ai.v1.request' && req.prompt.trim() === '') {
      incoming.respondError(400, EMPTY_PROMPT);
      return;
    }
    const replies = new ReplySet(opts.transport, incoming.replyTo, req, self);
    if (draining) return refuse(incoming, replies, `agent ${self.name} is shutting down`, 'draining');
    if (active >= workers) return refuse(incoming, replies, `agent ${self.name} is busy: all ${workers} workers are running`, 'busy');
    const hops = parseHops(incoming.headers[HOPS_HEADER]);
    const looped = hopsRefusal(self.name, hops);
    if (looped !== undefined) return refuse(incoming, replies, `agent ${self.name} refuses the request: ${looped}`, 'cycle');

    const park = new AbortController();
    const abort = new AbortController();
    const hosted = req.protocol === 'io.choria.fisk-ai.v1.run.start';
    const questions = new Map<string, PendingQuestion>();
    const answered: ((question: string, value: AnswerValue) => void)[] = [];
    const subs: Subscription[] = [];
    subs.push(
      await opts.transport.subscribe(subjects.cancel(self.name, req.request), (data) => {
        let m;
        try {
          m = decode(data, hosted ? ['io.choria.fisk-ai.v1.cancel', 'io.choria.fisk-ai.v1.run.abort'] : ['io.choria.fisk-ai.v1.cancel']);
        } catch {
          return;
        }
        if (m.protocol === 'io.choria.fisk-ai.v1.run.abort') {
          abort.abort(new Error('aborted by the caller'));
          return;
        }
        park.abort(new Error('canceled by the caller'));
        // a question is not a boundary: closing the gate gives it up (a hosted run's operator is
        // still there, and its questions end with the run)
        if (!hosted) for (const q of questions.values()) q.resolve({ answered: false });
      }),
    );
    subs.push(
      await opts.transport.subscribe(subjects.elicit(self.name, req.request), (data) => {
        let m;
        try {
          m = decode(data, ['io.choria.fisk-ai.v1.answer', 'io.choria.fisk-ai.v1.keepalive']);
        } catch {
          return;
        }
        const q = m.question === undefined ? undefined : questions.get(m.question);
        if (q === undefined) {
          if (m.protocol === 'io.choria.fisk-ai.v1.answer') for (const listener of answered) listener(m.question, answerOf(m));
          return;
        }
        if (m.protocol === 'io.choria.fisk-ai.v1.answer') q.resolve({ answered: true, value: answerOf(m) });
        else q.restart();
      }),
    );
    replies.ack(incoming, true);

    const caller = req.sender.name;
    const ask = (send: (id: string) => Promise<void>, windowed: boolean): Promise<AskResult> => {
      const id = mintId();
      const answer = new Promise<AskResult>((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        const done = (r: AskResult): void => {
          if (timer !== undefined) clearTimeout(timer);
          questions.delete(id);
          resolve(r);
        };
        const restart = (): void => {
          if (!windowed) return;
          if (timer !== undefined) clearTimeout(timer);
          timer = setTimeout(() => done({ answered: false }), windowMs);
        };
        questions.set(id, { resolve: done, restart });
        restart();
      });
      return send(id).then(() => answer);
    };
    const handler = (): Promise<RunEnding> => {
      if (req.protocol === 'io.choria.fisk-ai.v1.run.start') {
        const start = req;
        const hostedRun: HostedRun = {
          request: start,
          continues: start.conversation === start.request ? undefined : start.conversation,
          park: park.signal,
          abort: abort.signal,
          started: (started) => replies.send('io.choria.fisk-ai.v1.run.started', { started }),
          event: (event) => replies.send('io.choria.fisk-ai.v1.run.event', { event }),
          outcome: (body) => replies.send('io.choria.fisk-ai.v1.run.outcome', body),
          ask: (call) => ask((id) => replies.send('io.choria.fisk-ai.v1.run.ask', { question: id, call }), false),
          onAnswer: (listener) => void answered.push(listener),
        };
        return (opts.hostedRuns as HostedRunHandler)(hostedRun);
      }
      return opts.handler(delegated(req));
    };
    const delegated = (req: RequestMessage | FollowupMessage): DelegatedRun => ({
      request: req,
      sessionId: deriveSessionId(caller, req.protocol === 'io.choria.fisk-ai.v1.followup' ? req.conversation : req.request),
      caller,
      hops,
      park: park.signal,
      emit: (block) => replies.send('io.choria.fisk-ai.v1.event', { block }),
      text: (fragment) => replies.send('io.choria.fisk-ai.v1.text', { text: fragment }),
      warn: (text) => replies.send('io.choria.fisk-ai.v1.warning', { text }),
      ask: async (q) => {
        if (park.signal.aborted) return { answered: false };
        return ask((id) => replies.send('io.choria.fisk-ai.v1.question', { question: id, kind: q.kind, text: q.text, ...(q.options !== undefined ? { options: q.options } : {}) }), true);
      },
    });
    active++;
    const alive = setInterval(() => void replies.send('io.choria.fisk-ai.v1.keepalive', {}).catch(() => undefined), keepaliveMs);
    const work = (async () => {
      let ending: RunEnding;
      try {
        ending = await handler();
      } catch (err) {
        ending = { error: `the run failed: ${withoutPaths((err as Error).message)}`, stop_reason: 'error', code: 'crashed' };
      }
      active--;
      clearInterval(alive);
      for (const q of questions.values()) q.resolve({ answered: false });
      try {
        if ('error' in ending) await replies.send('io.choria.fisk-ai.v1.error', ending);
        else await replies.send('io.choria.fisk-ai.v1.result', ending);
      } catch (err) {
        // a terminal message that cannot go out as built still ends the reply set, so the caller
        // is not left waiting to its own deadline; a transport that is gone takes this one too
        const reason = err instanceof Error ? err.message : String(err);
        await replies.send('io.choria.fisk-ai.v1.error', { error: `the agent could not send how the run ended: ${reason}`, stop_reason: 'error', code: 'crashed' }).catch(() => undefined);
      } finally {
        for (const s of subs) s.close();
      }
    })().finally(() => running.delete(work));
    running.add(work);
  };

  return {
    endpoint: { name: 'prompt', subject: subjects.prompt(self.name), slotted: false, handle },
    drain: async () => {
      draining = true;
      await Promise.allSettled([...running]);
    },
  };
}

/** What the caller sees of a reply set, in order, apart from the ack and the terminal message. */
export type DelegationUpdate = Exclude<Message, RequestMessage | FollowupMessage | ResultMessage | ErrorMessage | HostedRunMessage | RunStartMessage>;

/** What a hosted run's reply set carries besides the reference messages. */
export type HostedRunMessage = RunStartedMessage | RunEventMessage | RunOutcomeMessage;

export interface DelegateOptions {
  readonly prompt: string;
  readonly context?: string;
  readonly toolHints?: readonly string[];
  readonly budget?: Budget;
  /** Ask for the model's text as fragments while it is generated (the request's `stream` field). */
  readonly stream?: boolean;
  /** Continue this conversation (a follow-up) instead of starting one. */
  readonly conversation?: string;
  /** The longest silence accepted between two messages; floored at three keepalive intervals. */
  readonly idleTimeoutMs?: number;
  readonly keepaliveMs?: number;
  /** Every event, text fragment, warning, question and keepalive, in sequence order. */
  readonly onUpdate?: (update: DelegationUpdate) => void;
  /**
   * Answers a question. `keepalive` restarts the serving side's window while somebody is still
   * deciding. Without it, questions go unanswered and the serving side treats them as silence.
   */
  readonly onQuestion?: (question: QuestionMessage, keepalive: () => Promise<void>) => Promise<AnswerValue>;
  /** Aborting it sends a cancel: the remote run parks at its next boundary and ends suspended. */
  readonly signal?: AbortSignal;
  /** The agents the task has come through, ending with this one, sent as the `HOPS_HEADER`. */
  readonly hops?: readonly string[];
  /**
   * Told once the agent acked the request: whether it accepted it (a refusal's error follows),
   * and the conversation a follow-up names to continue this one.
   */
  readonly onAck?: (accepted: boolean, conversation: string) => void;
  /**
   * Sends `run.start` instead of a request: the agent's host runs its own run as asked (an agent
   * that does not host runs refuses it). The prompt is `run.prompt`; `prompt` is not sent.
   */
  readonly run?: HostedRunStart;
  /** A hosted run's start details, events and outcome, in sequence order. */
  readonly onRun?: (message: HostedRunMessage) => void;
  /** Answers a hosted run's prompter call; without it the call is answered with `null`. */
  readonly onRunAsk?: (message: RunAskMessage) => Promise<AnswerValue>;
  /** Aborting it sends `run.abort`: a hosted run stops now. */
  readonly abort?: AbortSignal;
  /** Given, once the agent accepted, the way to answer a question that went out as an event. */
  readonly onAnswerer?: (answer: (question: string, value: AnswerValue) => Promise<void>) => void;
}

/**
 * Delegates one prompt and resolves with the terminal message (a result or an error). Throws
 * `A2aError`: `unavailable` when the agent does not answer or goes silent past the idle limit,
 * `sequence` for a reply set with a gap, `rejected` for a transport refusal.
 */
export async function delegate(transport: Transport, self: string, agent: string, opts: DelegateOptions): Promise<ResultMessage | ErrorMessage> {
  const me: Identity = { name: checkIdentity(self, 'the calling identity') };
  checkIdentity(agent, 'agent');
  // refused here as the agent would refuse it, before anything goes out
  if (opts.run === undefined && opts.conversation === undefined && opts.prompt.trim() === '') throw new A2aError('invalid', EMPTY_PROMPT);
  const body = {
    prompt: opts.prompt,
    ...(opts.context !== undefined ? { context: opts.context } : {}),
    ...(opts.toolHints !== undefined ? { tool_hints: opts.toolHints } : {}),
    ...(opts.budget !== undefined ? { budget: opts.budget } : {}),
    ...(opts.stream === true ? { stream: true } : {}),
  };
  const req =
    opts.run !== undefined
      ? stampRequest('io.choria.fisk-ai.v1.run.start', { start: opts.run }, { sender: me, recipient: { name: agent }, ...(opts.conversation === undefined ? {} : { conversation: opts.conversation }) })
      : opts.conversation === undefined
        ? stampRequest('io.choria.fisk-ai.v1.request', body, { sender: me, recipient: { name: agent } })
        : stampRequest('io.choria.fisk-ai.v1.followup', body, { sender: me, recipient: { name: agent }, conversation: opts.conversation });
  const keepaliveMs = opts.keepaliveMs ?? KEEPALIVE_INTERVAL_MS;
  const idleMs = Math.max(opts.idleTimeoutMs ?? 0, 3 * keepaliveMs);
  let outSeq = 1;
  const sendBack = async <P extends 'io.choria.fisk-ai.v1.cancel' | 'io.choria.fisk-ai.v1.answer' | 'io.choria.fisk-ai.v1.keepalive' | 'io.choria.fisk-ai.v1.run.abort'>(subject: string, protocol: P, b: BodyOf<P>): Promise<void> => {
    const m = stampReply(protocol, b, req, { self: me, sequence: outSeq });
    // these go from the caller to the agent: the reply stamping swapped the parties, so put them back
    await transport.publish(subject, encode({ ...m, sender: me, recipient: { name: agent } }));
    outSeq++;
  };
  const hops = opts.hops ?? [];
  const stream = await transport.requestStream(subjects.prompt(agent), encode(req), hops.length === 0 ? {} : { headers: { [HOPS_HEADER]: hops.join(',') } });
  const onAbort = (): void => void sendBack(subjects.cancel(agent, req.request), 'io.choria.fisk-ai.v1.cancel', { reason: 'canceled by the caller' }).catch(() => undefined);
  const onStop = (): void => void sendBack(subjects.cancel(agent, req.request), 'io.choria.fisk-ai.v1.run.abort', { reason: 'aborted by the caller' }).catch(() => undefined);
  const answerQuestion = (question: string, value: AnswerValue): Promise<void> => sendBack(subjects.elicit(agent, req.request), 'io.choria.fisk-ai.v1.answer', { question, ...wireAnswer(value) });
  try {
    let expected = 1;
    for (;;) {
      const m = decode(await stream.next(expected === 1 ? Math.min(idleMs, 30_000) : idleMs));
      if (m.request !== req.request) throw new A2aError('sequence', `reply for request ${JSON.stringify(m.request)} arrived on the inbox of ${JSON.stringify(req.request)}`);
      if (m.sequence !== expected) throw new A2aError('sequence', `reply set from ${agent} skipped from ${expected} to ${m.sequence}`);
      expected++;
      switch (m.protocol) {
        case 'io.choria.fisk-ai.v1.ack':
          if (m.sequence !== 1) throw new A2aError('sequence', `an ack arrived at position ${m.sequence}`);
          opts.onAck?.(m.accepted, req.conversation);
          if (m.accepted && opts.signal !== undefined) {
            if (opts.signal.aborted) onAbort();
            else opts.signal.addEventListener('abort', onAbort, { once: true });
          }
          if (m.accepted && opts.abort !== undefined) {
            if (opts.abort.aborted) onStop();
            else opts.abort.addEventListener('abort', onStop, { once: true });
          }
          if (m.accepted) opts.onAnswerer?.(answerQuestion);
          break;
        case 'io.choria.fisk-ai.v1.run.started':
        case 'io.choria.fisk-ai.v1.run.event':
        case 'io.choria.fisk-ai.v1.run.outcome':
          if (opts.run === undefined) throw new A2aError('unexpected_protocol', `unexpected message protocol in a reply set: ${m.protocol}`);
          opts.onRun?.(m);
          break;
        case 'io.choria.fisk-ai.v1.run.ask': {
          if (opts.run === undefined) throw new A2aError('unexpected_protocol', `unexpected message protocol in a reply set: ${m.protocol}`);
          const ask = opts.onRunAsk ?? ((): Promise<null> => Promise.resolve(null));
          void ask(m)
            .then((value) => answerQuestion(m.question, value))
            .catch(() => undefined);
          break;
        }
        case 'io.choria.fisk-ai.v1.result':
        case 'io.choria.fisk-ai.v1.error':
          return m;
        case 'io.choria.fisk-ai.v1.question': {
          opts.onUpdate?.(m);
          const ask = opts.onQuestion;
          if (ask !== undefined) {
            const keepalive = (): Promise<void> => sendBack(subjects.elicit(agent, req.request), 'io.choria.fisk-ai.v1.keepalive', { question: m.question });
            void ask(m, keepalive)
              .then((value) => sendBack(subjects.elicit(agent, req.request), 'io.choria.fisk-ai.v1.answer', { question: m.question, ...wireAnswer(value) }))
              .catch(() => undefined);
          }
          break;
        }
        case 'io.choria.fisk-ai.v1.event':
        case 'io.choria.fisk-ai.v1.text':
        case 'io.choria.fisk-ai.v1.warning':
        case 'io.choria.fisk-ai.v1.keepalive':
          opts.onUpdate?.(m);
          break;
        case 'io.choria.fisk-ai.v1.request':
        case 'io.choria.fisk-ai.v1.followup':
        case 'io.choria.fisk-ai.v1.cancel':
        case 'io.choria.fisk-ai.v1.answer':
        case 'io.choria.fisk-ai.v1.tool.request':
        case 'io.choria.fisk-ai.v1.tool.reply':
        case 'io.choria.fisk-ai.v1.discovery.request':
        case 'io.choria.fisk-ai.v1.discovery.reply':
        case 'io.choria.fisk-ai.v1.run.start':
        case 'io.choria.fisk-ai.v1.run.abort':
          throw new A2aError('unexpected_protocol', `unexpected message protocol in a reply set: ${m.protocol}`);
        default: {
          const never: never = m;
          return never;
        }
      }
    }
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    opts.abort?.removeEventListener('abort', onStop);
    stream.close();
  }
}
