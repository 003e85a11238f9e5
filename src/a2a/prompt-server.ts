/**
 * The serving side of delegating a whole prompt: the `prompt` endpoint a run handler plugs into.
 * Each request it accepts gets a reply set numbered without gaps (the ack first, then events, text
 * fragments, warnings, questions and keepalives, then a result or an error), and its cancel and
 * elicit subjects are subscribed before the ack goes out. The calling side is `delegate`.
 */
import { createHash } from 'node:crypto';
import { decode, encode, prepareCodec } from './codec.js';
import { EMPTY_PROMPT, KEEPALIVE_INTERVAL_MS } from './delegation.js';
import { A2aError } from './errors.js';
import { HOPS_HEADER, MAX_MESSAGE_BYTES, checkIdentity, checkRequestId, hopsRefusal, mintId, parseHops, subjects } from './protocol.js';
import type { ProtocolId } from './protocol.js';
import { stampReply } from './stamp.js';
import { refuseBadBody } from './tool-service.js';
import { withoutPaths } from '../util/server-paths.js';
import type { EndpointSpec, IncomingRequest, Subscription, Transport } from './transport.js';
import type {
  AnswerMessage,
  AnswerValue,
  BodyOf,
  FollowupMessage,
  Header,
  Identity,
  KnownBlock,
  Message,
  QuestionKind,
  RequestMessage,
  RunAskMessage,
  RunEventMessage,
  RunOutcomeMessage,
  RunStartedMessage,
  RunStartMessage,
  StopReason,
  Usage,
} from './types.js';

/** An answer as it came off the wire: a reason counts only beside a decline. */
function answerOf(m: AnswerMessage): AnswerValue {
  return m.value === 'decline' && typeof m.reason === 'string' && m.reason.trim() !== ''
    ? { decision: 'decline', reason: m.reason }
    : m.value;
}

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
  /** Aborted by the caller's `run.abort`: stop now, killing a running tool, and end aborted. */
  readonly abort: AbortSignal;
  /** Sends one of the blocks a terminal renders. */
  emit(block: KnownBlock): Promise<void>;
  /** Streams a fragment of model text. */
  text(fragment: string): Promise<void>;
  warn(text: string): Promise<void>;
  /**
   * Puts a question to the caller. Silence is `{ answered: false }`: the question tools defer on
   * it and the confirm gate aborts, which is the handler's call. A cancel or an abort gives the
   * question up. An approval names its tool and the tag that gated it, so the caller can show the
   * decision as this agent's own surface would.
   */
  ask(question: {
    readonly kind: QuestionKind;
    readonly text: string;
    readonly options?: readonly string[];
    readonly tool?: string;
    readonly trigger?: string;
  }): Promise<AskResult>;
}

export type RunEnding =
  | { readonly stop_reason: StopReason; readonly text?: string; readonly usage?: Usage }
  | { readonly error: string; readonly stop_reason?: StopReason; readonly code?: string };

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
  readonly #transport: Transport;
  readonly #inbox: string;
  readonly #request: Header;
  readonly #self: Identity;
  #next = 1;
  #chain: Promise<void> = Promise.resolve();

  constructor(transport: Transport, inbox: string, request: Header, self: Identity) {
    this.#transport = transport;
    this.#inbox = inbox;
    this.#request = request;
    this.#self = self;
  }

  /** The ack goes out through the single-reply path, synchronously, as sequence one. */
  ack(incoming: IncomingRequest, accepted: boolean, reason?: string): void {
    const data = encode(
      stampReply('io.choria.fisk-ai.v1.ack', { accepted, ...(reason !== undefined ? { reason } : {}) }, this.#request, {
        self: this.#self,
        sequence: this.#next,
      }),
    );
    if (incoming.respond(data)) this.#next++;
  }

  send<P extends ProtocolId>(protocol: P, body: BodyOf<P>): Promise<void> {
    const run = async (): Promise<void> => {
      const data = fit(stampReply(protocol, body, this.#request, { self: this.#self, sequence: this.#next }));
      await this.#transport.publish(this.#inbox, data);
      this.#next++;
    };
    const p = this.#chain.then(run);
    this.#chain = p.catch(() => undefined);
    return p;
  }
}

interface PendingQuestion {
  resolve(r: AskResult): void;
  restart(): void;
}

/** What the prompt endpoint takes: `run.start` only where hosted runs are served. */
type PromptRequest = RequestMessage | FollowupMessage | RunStartMessage;

const DELEGATION_PROTOCOLS = ['io.choria.fisk-ai.v1.request', 'io.choria.fisk-ai.v1.followup'] as const;
const HOSTING_PROTOCOLS = [...DELEGATION_PROTOCOLS, 'io.choria.fisk-ai.v1.run.start'] as const;

/**
 * One request the prompt server accepted: its reply set, the signals a cancel and an abort raise,
 * its open questions, and the cancel and elicit subjects it listens on until its reply set ends.
 */
class AcceptedPrompt {
  readonly #request: PromptRequest;
  readonly #replies: ReplySet;
  readonly #hops: readonly string[];
  readonly #windowMs: number;
  readonly #park = new AbortController();
  readonly #abort = new AbortController();
  readonly #questions = new Map<string, PendingQuestion>();
  readonly #answerListeners: ((question: string, value: AnswerValue) => void)[] = [];
  readonly #subscriptions: Subscription[] = [];

  constructor(request: PromptRequest, replies: ReplySet, hops: readonly string[], windowMs: number) {
    this.#request = request;
    this.#replies = replies;
    this.#hops = hops;
    this.#windowMs = windowMs;
  }

  get #hosted(): boolean {
    return this.#request.protocol === 'io.choria.fisk-ai.v1.run.start';
  }

  /** Subscribes the cancel and elicit subjects; called before the ack, so an early cancel waits rather than being lost. */
  async listen(transport: Transport, self: string): Promise<void> {
    this.#subscriptions.push(await transport.subscribe(subjects.cancel(self, this.#request.request), (data) => this.#onCancel(data)));
    this.#subscriptions.push(await transport.subscribe(subjects.elicit(self, this.#request.request), (data) => this.#onElicit(data)));
  }

  /** Sends a keepalive every `intervalMs` until the returned function is called. */
  keepAlive(intervalMs: number): () => void {
    const timer = setInterval(() => void this.#replies.send('io.choria.fisk-ai.v1.keepalive', {}).catch(() => undefined), intervalMs);
    return () => clearInterval(timer);
  }

  /** Runs the request through the handler its protocol calls for; a handler that throws ends the run as crashed. */
  async run(handler: DelegationHandler, hostedRuns: HostedRunHandler | undefined): Promise<RunEnding> {
    try {
      const request = this.#request;
      // the endpoint takes run.start only when hosted runs are served
      if (request.protocol === 'io.choria.fisk-ai.v1.run.start') return await (hostedRuns as HostedRunHandler)(this.#hostedRun(request));
      return await handler(this.#delegatedRun(request));
    } catch (err) {
      return { error: `the run failed: ${withoutPaths((err as Error).message)}`, stop_reason: 'error', code: 'crashed' };
    }
  }

  /** Gives up the questions still open, sends how the run ended, and stops listening. */
  async end(ending: RunEnding): Promise<void> {
    for (const question of this.#questions.values()) question.resolve({ answered: false });
    try {
      if ('error' in ending) await this.#replies.send('io.choria.fisk-ai.v1.error', ending);
      else await this.#replies.send('io.choria.fisk-ai.v1.result', ending);
    } catch (err) {
      // a terminal message that cannot go out as built still ends the reply set, so the caller
      // is not left waiting to its own deadline; a transport that is gone takes this one too
      const reason = err instanceof Error ? err.message : String(err);
      await this.#replies
        .send('io.choria.fisk-ai.v1.error', {
          error: `the agent could not send how the run ended: ${reason}`,
          stop_reason: 'error',
          code: 'crashed',
        })
        .catch(() => undefined);
    } finally {
      for (const subscription of this.#subscriptions) subscription.close();
    }
  }

  #onCancel(data: Uint8Array): void {
    let message;
    try {
      message = decode(data, ['io.choria.fisk-ai.v1.cancel', 'io.choria.fisk-ai.v1.run.abort']);
    } catch {
      return;
    }
    if (message.protocol === 'io.choria.fisk-ai.v1.run.abort') this.#abort.abort(new Error('aborted by the caller'));
    else this.#park.abort(new Error('canceled by the caller'));
    // a question is not a boundary: closing the gate gives it up (a hosted run's operator is
    // still there, and its questions end with the run)
    if (!this.#hosted) for (const question of this.#questions.values()) question.resolve({ answered: false });
  }

  #onElicit(data: Uint8Array): void {
    let message;
    try {
      message = decode(data, ['io.choria.fisk-ai.v1.answer', 'io.choria.fisk-ai.v1.keepalive']);
    } catch {
      return;
    }
    const question = message.question === undefined ? undefined : this.#questions.get(message.question);
    if (question === undefined) {
      if (message.protocol === 'io.choria.fisk-ai.v1.answer')
        for (const listener of this.#answerListeners) listener(message.question, answerOf(message));
      return;
    }
    if (message.protocol === 'io.choria.fisk-ai.v1.answer') question.resolve({ answered: true, value: answerOf(message) });
    else question.restart();
  }

  /** Sends a question under a fresh id and waits for its answer; a windowed one turns to silence once the window closes. */
  #ask(send: (id: string) => Promise<void>, windowed: boolean): Promise<AskResult> {
    const id = mintId();
    const answer = new Promise<AskResult>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (result: AskResult): void => {
        if (timer !== undefined) clearTimeout(timer);
        this.#questions.delete(id);
        resolve(result);
      };
      const restart = (): void => {
        if (!windowed) return;
        if (timer !== undefined) clearTimeout(timer);
        timer = setTimeout(() => done({ answered: false }), this.#windowMs);
      };
      this.#questions.set(id, { resolve: done, restart });
      restart();
    });
    return send(id).then(() => answer);
  }

  #hostedRun(start: RunStartMessage): HostedRun {
    const replies = this.#replies;
    return {
      request: start,
      continues: start.conversation === start.request ? undefined : start.conversation,
      park: this.#park.signal,
      abort: this.#abort.signal,
      started: (started) => replies.send('io.choria.fisk-ai.v1.run.started', { started }),
      event: (event) => replies.send('io.choria.fisk-ai.v1.run.event', { event }),
      outcome: (body) => replies.send('io.choria.fisk-ai.v1.run.outcome', body),
      ask: (call) => this.#ask((id) => replies.send('io.choria.fisk-ai.v1.run.ask', { question: id, call }), false),
      onAnswer: (listener) => void this.#answerListeners.push(listener),
    };
  }

  #delegatedRun(request: RequestMessage | FollowupMessage): DelegatedRun {
    const replies = this.#replies;
    const park = this.#park.signal;
    const abort = this.#abort.signal;
    const caller = request.sender.name;
    return {
      request,
      sessionId: deriveSessionId(caller, request.protocol === 'io.choria.fisk-ai.v1.followup' ? request.conversation : request.request),
      caller,
      hops: this.#hops,
      park,
      abort,
      emit: (block) => replies.send('io.choria.fisk-ai.v1.event', { block }),
      text: (fragment) => replies.send('io.choria.fisk-ai.v1.text', { text: fragment }),
      warn: (text) => replies.send('io.choria.fisk-ai.v1.warning', { text }),
      ask: async (question) => {
        if (park.aborted || abort.aborted) return { answered: false };
        const approval =
          question.tool !== undefined && question.tool !== '' && question.trigger !== undefined && question.trigger !== ''
            ? { tool: question.tool, trigger: question.trigger }
            : {};
        return this.#ask(
          (id) =>
            replies.send('io.choria.fisk-ai.v1.question', {
              question: id,
              kind: question.kind,
              text: question.text,
              ...(question.options !== undefined ? { options: question.options } : {}),
              ...approval,
            }),
          true,
        );
      },
    };
  }
}

/**
 * The serving side of delegation for one identity: the `prompt` endpoint, which runs each request
 * it accepts through the handler, at most `workers` at once, and refuses the rest in their reply set.
 * Start one with `startPromptServer`.
 */
export class PromptServer {
  /** The endpoint to add to the agent's service (`startToolService`'s `extraEndpoints`). */
  readonly endpoint: EndpointSpec;
  readonly #options: PromptServerOptions;
  readonly #self: Identity;
  readonly #workers: number;
  readonly #windowMs: number;
  readonly #keepaliveMs: number;
  readonly #running = new Set<Promise<void>>();
  // the worker is free once the handler returns, before the terminal message goes out, so a caller
  // that saw the end of one run and sends the next is never refused as busy
  #active = 0;
  #draining = false;

  constructor(options: PromptServerOptions) {
    this.#self = { name: checkIdentity(options.identity) };
    prepareCodec();
    this.#options = options;
    this.#workers = Math.max(1, options.workers ?? 1);
    this.#windowMs = options.questionWindowMs ?? 300_000;
    this.#keepaliveMs = options.keepaliveMs ?? KEEPALIVE_INTERVAL_MS;
    this.endpoint = {
      name: 'prompt',
      subject: subjects.prompt(this.#self.name),
      slotted: false,
      handle: (incoming) => this.#take(incoming),
    };
  }

  /** Refuses new requests from now on; resolves when running ones have ended. */
  async drain(): Promise<void> {
    this.#draining = true;
    await Promise.allSettled([...this.#running]);
  }

  /** Answers a body it cannot take with a 400; otherwise acks, refusing in the reply set what cannot run now. */
  async #take(incoming: IncomingRequest): Promise<void> {
    const request = this.#decode(incoming);
    if (request === undefined) return;
    if (incoming.replyTo === undefined) {
      incoming.respondError(400, 'a delegated request needs a reply inbox');
      return;
    }
    // a request with nothing to do is a bad request, like a body failing its schema; an empty
    // follow-up is not: it continues the conversation where it stopped
    if (request.protocol === 'io.choria.fisk-ai.v1.request' && request.prompt.trim() === '') {
      incoming.respondError(400, EMPTY_PROMPT);
      return;
    }
    const replies = new ReplySet(this.#options.transport, incoming.replyTo, request, this.#self);
    const hops = parseHops(incoming.headers[HOPS_HEADER]);
    const refusal = this.#refusal(hops);
    if (refusal !== undefined) {
      // a refusing ack closes nothing, so a terminal error always follows it
      replies.ack(incoming, false, refusal.reason);
      await replies.send('io.choria.fisk-ai.v1.error', { error: refusal.reason, code: refusal.code });
      return;
    }
    const accepted = new AcceptedPrompt(request, replies, hops, this.#windowMs);
    await accepted.listen(this.#options.transport, this.#self.name);
    replies.ack(incoming, true);
    this.#start(accepted);
  }

  /** The request in `incoming`, or undefined once a body it cannot take was answered with a 400. */
  #decode(incoming: IncomingRequest): PromptRequest | undefined {
    try {
      const request = decode(incoming.data, this.#options.hostedRuns === undefined ? DELEGATION_PROTOCOLS : HOSTING_PROTOCOLS);
      checkRequestId(request.request);
      return request;
    } catch (err) {
      if (refuseBadBody(incoming, err)) return undefined;
      throw err;
    }
  }

  /** Why a well-formed request is refused now (shutting down, every worker busy, a delegation loop), or undefined. */
  #refusal(hops: readonly string[]): { readonly reason: string; readonly code: string } | undefined {
    const name = this.#self.name;
    if (this.#draining) return { reason: `agent ${name} is shutting down`, code: 'draining' };
    if (this.#active >= this.#workers) return { reason: `agent ${name} is busy: all ${this.#workers} workers are running`, code: 'busy' };
    const looped = hopsRefusal(name, hops);
    if (looped !== undefined) return { reason: `agent ${name} refuses the request: ${looped}`, code: 'cycle' };
    return undefined;
  }

  /** Runs an accepted request on a worker, keeping it alive to the caller, and counts it until its reply set ends. */
  #start(accepted: AcceptedPrompt): void {
    this.#active++;
    const stopKeepalive = accepted.keepAlive(this.#keepaliveMs);
    const work = (async () => {
      const ending = await accepted.run(this.#options.handler, this.#options.hostedRuns);
      this.#active--;
      stopKeepalive();
      await accepted.end(ending);
    })().finally(() => this.#running.delete(work));
    this.#running.add(work);
  }
}

/** Starts the serving side of delegation for one identity. */
export function startPromptServer(opts: PromptServerOptions): PromptServer {
  return new PromptServer(opts);
}
