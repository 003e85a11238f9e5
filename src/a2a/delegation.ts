/**
 * Delegating a whole prompt to another agent: the calling side, and what it shares with the
 * serving side (`prompt-server.ts`). Subjects, all inside `choria.fisk-ai.`:
 *
 * - `prompt.<identity>`: a request or follow-up; the synchronous reply is the ack (sequence one),
 *   and the rest of the reply set (events, text fragments, warnings, questions, keepalives, then a
 *   result or an error) is published to the same inbox, numbered without gaps.
 * - `cancel.<identity>.<request id>` and `elicit.<identity>.<request id>`: cancels, answers and
 *   keepalives from the caller. Both are subscribed before the ack goes out, because a cancel
 *   arriving at nobody cannot be fixed, while one arriving early merely waits.
 */
import { decode, encode } from './codec.js';
import { A2aError } from './errors.js';
import { HOPS_HEADER, checkIdentity, subjects } from './protocol.js';
import { stampReply, stampRequest } from './stamp.js';
import type { Transport } from './transport.js';
import type {
  AnswerValue,
  BodyOf,
  Budget,
  ErrorMessage,
  FollowupMessage,
  HostedRunStart,
  Identity,
  Message,
  QuestionMessage,
  RequestMessage,
  ResultMessage,
  RunAskMessage,
  RunEventMessage,
  RunOutcomeMessage,
  RunStartedMessage,
  RunStartMessage,
} from './types.js';

/** The bad-request answer to a request whose prompt is blank. */
export const EMPTY_PROMPT = 'the request has an empty prompt: put what the agent should do in prompt';

/** An answer as it goes on the wire: a reasoned decline travels as `decline` with its reason beside it. */
function wireAnswer(value: AnswerValue): { readonly value: string | boolean | null; readonly reason?: string } {
  if (typeof value === 'object' && value !== null) return { value: 'decline', reason: value.reason };
  return { value };
}

/** How often the serving side says it is alive, and how often a caller holding a question should. */
export const KEEPALIVE_INTERVAL_MS = 10_000;

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
  const low = (configured: number, asked: number | undefined): number =>
    asked !== undefined && asked > 0 && asked < configured ? asked : configured;
  const timeout = budget.call_timeout !== undefined ? parseDurationMs(budget.call_timeout) : undefined;
  return {
    maxTokens: low(limits.maxTokens, budget.max_tokens),
    maxIterations: low(limits.maxIterations, budget.max_iterations),
    callTimeoutMs: low(limits.callTimeoutMs, timeout),
  };
}

/** What the caller sees of a reply set, in order, apart from the ack and the terminal message. */
export type DelegationUpdate = Exclude<
  Message,
  RequestMessage | FollowupMessage | ResultMessage | ErrorMessage | HostedRunMessage | RunStartMessage
>;

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
  /**
   * Aborting it sends `run.abort`: the run stops now, its running tool killed. A hosted run takes
   * it, and so does a delegated prompt on an agent of this version; an older agent ignores it, so
   * a caller that must stop the run either way aborts `signal` too (the cancel follows).
   */
  readonly abort?: AbortSignal;
  /** Given, once the agent accepted, the way to answer a question that went out as an event. */
  readonly onAnswerer?: (answer: (question: string, value: AnswerValue) => Promise<void>) => void;
}

/**
 * Delegates one prompt and resolves with the terminal message (a result or an error). Throws
 * `A2aError`: `unavailable` when the agent does not answer or goes silent past the idle limit,
 * `sequence` for a reply set with a gap, `rejected` for a transport refusal.
 */
export async function delegate(
  transport: Transport,
  self: string,
  agent: string,
  opts: DelegateOptions,
): Promise<ResultMessage | ErrorMessage> {
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
      ? stampRequest(
          'io.choria.fisk-ai.v1.run.start',
          { start: opts.run },
          { sender: me, recipient: { name: agent }, ...(opts.conversation === undefined ? {} : { conversation: opts.conversation }) },
        )
      : opts.conversation === undefined
        ? stampRequest('io.choria.fisk-ai.v1.request', body, { sender: me, recipient: { name: agent } })
        : stampRequest('io.choria.fisk-ai.v1.followup', body, { sender: me, recipient: { name: agent }, conversation: opts.conversation });
  const keepaliveMs = opts.keepaliveMs ?? KEEPALIVE_INTERVAL_MS;
  const idleMs = Math.max(opts.idleTimeoutMs ?? 0, 3 * keepaliveMs);
  let outSeq = 1;
  const sendBack = async <
    P extends
      'io.choria.fisk-ai.v1.cancel' | 'io.choria.fisk-ai.v1.answer' | 'io.choria.fisk-ai.v1.keepalive' | 'io.choria.fisk-ai.v1.run.abort',
  >(
    subject: string,
    protocol: P,
    b: BodyOf<P>,
  ): Promise<void> => {
    const m = stampReply(protocol, b, req, { self: me, sequence: outSeq });
    // these go from the caller to the agent: the reply stamping swapped the parties, so put them back
    await transport.publish(subject, encode({ ...m, sender: me, recipient: { name: agent } }));
    outSeq++;
  };
  const hops = opts.hops ?? [];
  const stream = await transport.requestStream(
    subjects.prompt(agent),
    encode(req),
    hops.length === 0 ? {} : { headers: { [HOPS_HEADER]: hops.join(',') } },
  );
  const onAbort = (): void =>
    void sendBack(subjects.cancel(agent, req.request), 'io.choria.fisk-ai.v1.cancel', { reason: 'canceled by the caller' }).catch(
      () => undefined,
    );
  const onStop = (): void =>
    void sendBack(subjects.cancel(agent, req.request), 'io.choria.fisk-ai.v1.run.abort', { reason: 'aborted by the caller' }).catch(
      () => undefined,
    );
  const answerQuestion = (question: string, value: AnswerValue): Promise<void> =>
    sendBack(subjects.elicit(agent, req.request), 'io.choria.fisk-ai.v1.answer', { question, ...wireAnswer(value) });
  try {
    let expected = 1;
    for (;;) {
      const reply = decode(await stream.next(expected === 1 ? Math.min(idleMs, 30_000) : idleMs));
      if (reply.request !== req.request)
        throw new A2aError(
          'sequence',
          `reply for request ${JSON.stringify(reply.request)} arrived on the inbox of ${JSON.stringify(req.request)}`,
        );
      if (reply.sequence !== expected)
        throw new A2aError('sequence', `reply set from ${agent} skipped from ${expected} to ${reply.sequence}`);
      expected++;
      switch (reply.protocol) {
        case 'io.choria.fisk-ai.v1.ack':
          if (reply.sequence !== 1) throw new A2aError('sequence', `an ack arrived at position ${reply.sequence}`);
          opts.onAck?.(reply.accepted, req.conversation);
          // a stop asked for before the ack goes out first, so an agent that takes it stops now
          // rather than parking on the cancel behind it
          if (reply.accepted && opts.abort !== undefined) {
            if (opts.abort.aborted) onStop();
            else opts.abort.addEventListener('abort', onStop, { once: true });
          }
          if (reply.accepted && opts.signal !== undefined) {
            if (opts.signal.aborted) onAbort();
            else opts.signal.addEventListener('abort', onAbort, { once: true });
          }
          if (reply.accepted) opts.onAnswerer?.(answerQuestion);
          break;
        case 'io.choria.fisk-ai.v1.run.started':
        case 'io.choria.fisk-ai.v1.run.event':
        case 'io.choria.fisk-ai.v1.run.outcome':
          if (opts.run === undefined)
            throw new A2aError('unexpected_protocol', `unexpected message protocol in a reply set: ${reply.protocol}`);
          opts.onRun?.(reply);
          break;
        case 'io.choria.fisk-ai.v1.run.ask': {
          if (opts.run === undefined)
            throw new A2aError('unexpected_protocol', `unexpected message protocol in a reply set: ${reply.protocol}`);
          const ask = opts.onRunAsk ?? ((): Promise<null> => Promise.resolve(null));
          void ask(reply)
            .then((value) => answerQuestion(reply.question, value))
            .catch(() => undefined);
          break;
        }
        case 'io.choria.fisk-ai.v1.result':
        case 'io.choria.fisk-ai.v1.error':
          return reply;
        case 'io.choria.fisk-ai.v1.question': {
          opts.onUpdate?.(reply);
          const ask = opts.onQuestion;
          if (ask !== undefined) {
            const keepalive = (): Promise<void> =>
              sendBack(subjects.elicit(agent, req.request), 'io.choria.fisk-ai.v1.keepalive', { question: reply.question });
            void ask(reply, keepalive)
              .then((value) =>
                sendBack(subjects.elicit(agent, req.request), 'io.choria.fisk-ai.v1.answer', {
                  question: reply.question,
                  ...wireAnswer(value),
                }),
              )
              .catch(() => undefined);
          }
          break;
        }
        case 'io.choria.fisk-ai.v1.event':
        case 'io.choria.fisk-ai.v1.text':
        case 'io.choria.fisk-ai.v1.warning':
        case 'io.choria.fisk-ai.v1.keepalive':
          opts.onUpdate?.(reply);
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
          throw new A2aError('unexpected_protocol', `unexpected message protocol in a reply set: ${reply.protocol}`);
        default: {
          const never: never = reply;
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
