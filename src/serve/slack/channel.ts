/**
 * The Slack channel of `fisk serve` (`expose.agent.slack`): people mention the agent in a
 * configured channel, and the thread that mention starts is one conversation. Socket mode on
 * `@slack/bolt`, so the worker needs no public address.
 *
 * A thread's session id is derived from the workspace, channel and thread, and whether a message
 * opens the conversation or continues it is asked of the session store each time, so a restarted
 * worker carries on a thread it never saw begin. Questions go out as interactive messages and
 * outlive the turn that asked them: a click after the run stopped, or after a restart, resumes it.
 */
import { App, LogLevel, SocketModeReceiver } from '@slack/bolt';
import type { Logger } from '@slack/bolt';
import type { AgentEvent } from '../../agent/events.js';
import type { RunOutcome } from '../../agent/outcome.js';
import type { SlackApprovers } from '../../config/index.js';
import type { RunInput } from '../../host/index.js';
import { RunStateError } from '../../runstate/index.js';
import type { SessionStore } from '../../runstate/index.js';
import type { Channel, Work, WorkResult } from '../channel.js';
import {
  ACTIONS,
  decodeOrigin,
  decodeRef,
  escapeSlack,
  QuestionBoard,
  REASON_VIEW,
  reasonView,
  saidText,
  SlackPrompter,
} from './questions.js';
import { declineWith } from '../../toolkit/tool.js';
import type { QuestionRef, ReasonOrigin, Reply } from './questions.js';
import { journalAnswer, replyOf } from './answers.js';
import type { ActionPayload } from './answers.js';
import { splitMessage, toMrkdwn } from './render.js';
import type { SlackTokens } from './settings.js';
import { SLACK_TOKEN_VARIABLES, threadSessionId } from './settings.js';
import { ServeError } from '../errors.js';

/** What a second answer to a question is told. */
const ALREADY_ANSWERED =
  'This question is no longer open: it was already answered, or the conversation moved on. Nothing was changed; mention me in this thread to carry on.';

/** How long a question waits for a click before silence decides it. */
export const DEFAULT_QUESTION_WINDOW_MS = 15 * 60 * 1000;

export interface SlackChannelOptions {
  /** The channel ids the agent answers in (`expose.agent.slack.channels`); every other is ignored. */
  readonly channels: readonly string[];
  /** Threads answered at once (`expose.agent.slack.workers`). */
  readonly workers: number;
  /** Where served runs are journaled: asked whether a thread is already a conversation. */
  readonly sessions: SessionStore;
  readonly tokens: SlackTokens;
  /** The Web API base (a proxy, GovSlack, a local stand-in); Slack's own by default. */
  readonly apiUrl?: string;
  /** Who may answer an approval (default: only the person whose message started the turn). */
  readonly approvers?: SlackApprovers;
  /** How long a question waits in silence (default 15 minutes). */
  readonly questionWindowMs?: number;
  /** Problems worth a log line (a post Slack refused); never message text or tokens. */
  readonly warn?: (message: string) => void;
}

type TurnState = 'waiting' | 'queued' | 'handed' | 'ended';

/** One message the agent took on: a turn of a thread's conversation. */
interface Turn {
  readonly session: string;
  readonly channel: string;
  readonly thread: string;
  /** Who started the turn: the person whose message it answers (a resume keeps the original one). */
  readonly requester: string;
  /** What to run: a person's message, or a resume after a late click. */
  readonly ask: { readonly kind: 'message'; readonly text: string } | { readonly kind: 'resume' };
  state: TurnState;
  status: Promise<string | undefined>;
  readonly ended: Promise<void>;
  end(): void;
}

/** Fields of the events this channel reads. */
interface MessageEvent {
  readonly type?: string;
  readonly subtype?: string;
  readonly bot_id?: string;
  readonly user?: string;
  readonly text?: string;
  readonly ts?: string;
  readonly thread_ts?: string;
  readonly channel?: string;
  readonly team?: string;
}

interface ActionBody {
  readonly user?: { readonly id?: string; readonly team_id?: string };
  readonly trigger_id?: string;
  readonly team?: { readonly id?: string } | null;
  readonly channel?: { readonly id?: string };
  readonly container?: { readonly channel_id?: string; readonly message_ts?: string; readonly thread_ts?: string };
  readonly message?: { readonly ts?: string; readonly thread_ts?: string; readonly text?: string };
}

/** Fields of a reason box's submission this channel reads. */
interface SubmissionBody {
  readonly user?: { readonly id?: string; readonly team_id?: string };
  readonly team?: { readonly id?: string } | null;
  readonly view?: {
    readonly private_metadata?: string;
    readonly state?: { readonly values?: Readonly<Record<string, Readonly<Record<string, { readonly value?: string | null }>>>> };
  };
}

/** What a reason box's submission is answered with: nothing (the modal closes), or an error shown in it. */
type SubmissionAck = { readonly response_action: 'errors'; readonly errors: Readonly<Record<string, string>> } | undefined;

const STATUS = {
  queued: ':hourglass_flowing_sand: Queued: another answer in this thread comes first.',
  admitted: ':hourglass_flowing_sand: On it shortly.',
  working: ':gear: Working…',
  answered: ':white_check_mark: Answered.',
  notStarted: ':double_vertical_bar: Not started: the agent is restarting. Send the message again in a moment.',
} as const;

/** A logger for bolt that keeps quiet unless something is wrong, and then says it through `warn`. */
function quietLogger(warn: (m: string) => void): Logger {
  let level = LogLevel.WARN;
  const say = (args: unknown[]): void => warn(`slack: ${args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ')}`);
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: (...a: unknown[]) => say(a),
    error: (...a: unknown[]) => say(a),
    setLevel: (l: typeof level) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}

/** Whether the session store already holds `session`: the one authority on opening versus continuing. */
async function holds(store: SessionStore, session: string): Promise<boolean> {
  try {
    await store.load(session);
    return true;
  } catch (err) {
    if (err instanceof RunStateError && err.code === 'not_found') return false;
    throw err;
  }
}

/** What the status message says once a run ended other than with an answer. */
function endedStatus(outcome: RunOutcome): string {
  switch (outcome.status) {
    case 'completed':
      return STATUS.answered;
    case 'suspended':
      return outcome.deferred.length > 0
        ? ':raised_hand: Waiting for an answer to the question above; the conversation carries on once it is given.'
        : ':double_vertical_bar: Paused. Mention me in this thread to carry on.';
    case 'aborted':
      return ':raised_hand: Stopped before a call that needs approval, or by a shutdown. If an approval above is still open, its buttons carry the conversation on.';
    case 'budget':
    case 'max_iterations':
      return `:warning: Stopped: ${escapeSlack(outcome.message)}`;
    case 'error':
    case 'crashed':
      return `:x: Failed: ${escapeSlack(outcome.message)}`;
    default: {
      const never: never = outcome;
      return String(never);
    }
  }
}

/** The Slack channel: a `Channel` for `startServer`. Open it with `openSlackChannel`. */
export class SlackChannel implements Channel {
  readonly name = 'slack';
  readonly workers: number;
  /** The channel ids answered in. */
  readonly channels: readonly string[];
  readonly #o: SlackChannelOptions;
  readonly #allowed: ReadonlySet<string>;
  readonly #app: App;
  readonly #board = new QuestionBoard();
  readonly #warn: (m: string) => void;
  readonly #queue: Work[] = [];
  readonly #turns = new Set<Turn>();
  /** The last turn of each thread with one in progress, so a thread's turns run one after another. */
  readonly #tails = new Map<string, Promise<void>>();
  readonly #intake = new Set<Promise<void>>();
  readonly #posts = new Set<Promise<unknown>>();
  #wake: (() => void) | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;
  #settling: Promise<void> | undefined;
  #botUserId = '';

  private constructor(options: SlackChannelOptions) {
    if (!Number.isInteger(options.workers) || options.workers < 1)
      throw new RangeError(`workers must be a whole number of at least 1, not ${String(options.workers)}`);
    if (options.channels.length === 0) throw new RangeError('expose.agent.slack.channels names no channel to answer in');
    this.#o = options;
    this.workers = options.workers;
    this.channels = [...options.channels];
    this.#allowed = new Set(options.channels);
    this.#warn = options.warn ?? (() => undefined);
    const logger = quietLogger(this.#warn);
    const clientOptions = options.apiUrl === undefined ? {} : { slackApiUrl: options.apiUrl };
    const receiver = new SocketModeReceiver({ appToken: options.tokens.appToken, logger, installerOptions: { clientOptions } });
    this.#app = new App({ token: options.tokens.botToken, receiver, logger, clientOptions });
    this.#app.event('app_mention', ({ event, body }) =>
      this.#admitIntake(() => this.#onMessage(event, (body as { team_id?: string }).team_id, true)),
    );
    this.#app.message(({ message, body }) =>
      this.#admitIntake(() => this.#onMessage(message as MessageEvent, (body as { team_id?: string }).team_id, false)),
    );
    this.#app.action(/^fisk_/, async ({ ack, body, action }) => {
      await ack();
      await this.#admitIntake(() => this.#onAction(body, action as ActionPayload));
    });
    this.#app.view(REASON_VIEW.callbackId, async ({ ack, body }) => {
      let answer: SubmissionAck;
      const taking = this.#admitIntake(async () => {
        answer = await this.#onReason(body);
      });
      await taking;
      // the modal closes on an empty acknowledgement, or stays open showing why nothing was done
      if (answer === undefined) await ack();
      else await ack(answer);
    });
    this.#app.error(async (err) => {
      this.#warn(`slack: ${err.message}`);
      await Promise.resolve();
    });
  }

  /** Connects the socket; resolves once Slack accepted the tokens and the socket is open. */
  static async open(options: SlackChannelOptions): Promise<SlackChannel> {
    const channel = new SlackChannel(options);
    const why = (err: unknown): string => (err instanceof Error ? err.message : String(err));
    try {
      const auth = await channel.#app.client.auth.test();
      channel.#botUserId = typeof auth.user_id === 'string' ? auth.user_id : '';
    } catch (err) {
      throw new ServeError('no_endpoint', `Slack did not accept the bot token in ${SLACK_TOKEN_VARIABLES.bot}: ${why(err)}`, {
        cause: err,
      });
    }
    try {
      await channel.#app.start();
    } catch (err) {
      await channel.#app.stop().catch(() => undefined);
      throw new ServeError(
        'no_endpoint',
        `Slack did not open a socket-mode connection with the app token in ${SLACK_TOKEN_VARIABLES.app}: ${why(err)}`,
        { cause: err },
      );
    }
    return channel;
  }

  /** Tracks one event handler, so a drain waits for intake to end before counting what was admitted. */
  #admitIntake(handle: () => Promise<void>): Promise<void> {
    const intake = handle().catch((err: unknown) =>
      this.#warn(`slack: could not take a message: ${err instanceof Error ? err.message : String(err)}`),
    );
    this.#intake.add(intake);
    void intake.finally(() => this.#intake.delete(intake));
    return intake;
  }

  /** Runs a Web API call and keeps it counted until it settles, so a drain lets it land. */
  #post<T>(call: () => Promise<T>): Promise<T | undefined> {
    const posted = call().catch((err: unknown) => {
      this.#warn(`slack: a message could not be posted: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    });
    this.#posts.add(posted);
    void posted.finally(() => this.#posts.delete(posted));
    return posted;
  }

  #say(channel: string, thread: string, text: string, blocks?: readonly Record<string, unknown>[]): Promise<string | undefined> {
    return this.#post(async () => {
      const posted = await this.#app.client.chat.postMessage({
        channel,
        thread_ts: thread,
        text,
        ...(blocks === undefined ? {} : { blocks: blocks as never }),
      });
      return typeof posted.ts === 'string' ? posted.ts : undefined;
    });
  }

  #edit(channel: string, ts: string | undefined, text: string): Promise<void> {
    if (ts === undefined) return Promise.resolve();
    return this.#post(async () => {
      await this.#app.client.chat.update({ channel, ts, text, blocks: [] });
    }).then(() => undefined);
  }

  #setStatus(turn: Turn, text: string): Promise<void> {
    return turn.status.then((ts) => this.#edit(turn.channel, ts, text));
  }

  async #onMessage(event: MessageEvent, teamId: string | undefined, mentioned: boolean): Promise<void> {
    if (event.channel === undefined || !this.#allowed.has(event.channel)) return;
    if (event.subtype !== undefined || event.bot_id !== undefined || event.ts === undefined) return;
    if (event.user === this.#botUserId) return;
    const raw = event.text ?? '';
    const mentionTag = `<@${this.#botUserId}>`;
    // a mention arrives twice (app_mention and message); it is taken from app_mention only
    if (!mentioned && this.#botUserId !== '' && raw.includes(mentionTag)) return;
    const thread = event.thread_ts ?? event.ts;
    const team = event.team ?? teamId ?? '';
    const session = threadSessionId(team, event.channel, thread);
    const text = raw.split(mentionTag).join('').trim();
    if (!mentioned) {
      // a reply without a mention continues a conversation the agent is in, and only that
      if (event.thread_ts === undefined) return;
      if (!this.#tails.has(session) && !(await holds(this.#o.sessions, session))) return;
    }
    if (this.#closed) {
      await this.#say(event.channel, thread, STATUS.notStarted);
      return;
    }
    this.#admit({ session, channel: event.channel, thread, requester: event.user ?? '', ask: { kind: 'message', text } });
  }

  /**
   * Takes on a turn: posts its status (or, for a run resumed by a late answer, brings the status
   * message of the turn that stopped up to date), then queues it behind the thread's turn in progress.
   */
  #admit(incoming: Pick<Turn, 'session' | 'channel' | 'thread' | 'requester' | 'ask'>, statusTs?: string): void {
    let end!: () => void;
    const ended = new Promise<void>((r) => (end = r));
    const before = this.#tails.get(incoming.session);
    const first = before === undefined ? STATUS.admitted : STATUS.queued;
    const turn: Turn = {
      ...incoming,
      state: 'waiting',
      status:
        statusTs === undefined
          ? this.#say(incoming.channel, incoming.thread, first)
          : this.#edit(incoming.channel, statusTs, first).then(() => statusTs),
      ended,
      end: () => {
        turn.state = 'ended';
        this.#turns.delete(turn);
        end();
      },
    };
    this.#turns.add(turn);
    const tail = (before ?? Promise.resolve()).then(() => this.#enqueue(turn)).then(() => turn.ended);
    this.#tails.set(incoming.session, tail);
    void tail.finally(() => {
      if (this.#tails.get(incoming.session) === tail) this.#tails.delete(incoming.session);
    });
  }

  /** Hands a turn to `next` once the thread's earlier turn is over, deciding then how it runs. */
  async #enqueue(turn: Turn): Promise<void> {
    if (turn.state !== 'waiting') return;
    let input: RunInput;
    try {
      if (turn.ask.kind === 'resume') input = { resume: turn.session };
      else if (await holds(this.#o.sessions, turn.session)) input = { resume: turn.session, followUp: turn.ask.text };
      else input = { prompt: turn.ask.text, checkpoint: { runId: turn.session } };
    } catch (err) {
      await this.#setStatus(turn, `:x: Could not read this conversation: ${escapeSlack(err instanceof Error ? err.message : String(err))}`);
      turn.end();
      return;
    }
    if (turn.state !== 'waiting') return;
    turn.state = 'queued';
    this.#queue.push(this.#work(turn, input));
    this.#wake?.();
  }

  #work(turn: Turn, input: RunInput): Work {
    let detach: (() => void) | undefined;
    let lastStatus = '';
    const status = (text: string): void => {
      if (text === lastStatus) return;
      lastStatus = text;
      void this.#setStatus(turn, text);
    };
    const prompter = new SlackPrompter({
      board: this.#board,
      session: turn.session,
      requester: turn.requester,
      status: turn.status,
      windowMs: this.#o.questionWindowMs ?? DEFAULT_QUESTION_WINDOW_MS,
      poster: {
        post: (text, blocks) => this.#say(turn.channel, turn.thread, text, blocks),
        settle: (ts, text) => this.#edit(turn.channel, ts, text),
      },
    });
    return {
      label: `slack ${turn.channel} thread ${turn.thread}`,
      ids: { session: turn.session },
      input,
      prompter,
      runContext: (handle) => {
        turn.state = 'handed';
        status(STATUS.working);
        detach = handle.subscribe({
          emit: (event: AgentEvent) => {
            if (event.type === 'tool_call') status(`:gear: Working: running \`${escapeSlack(event.name)}\`…`);
            else if (event.type === 'question') status(':raised_hand: Waiting for an answer to the question below.');
            else if (event.type === 'tool_result') status(STATUS.working);
          },
        });
      },
      done: async (result: WorkResult) => {
        detach?.();
        try {
          await this.#finish(turn, result);
        } finally {
          turn.end();
        }
      },
    };
  }

  async #finish(turn: Turn, result: WorkResult): Promise<void> {
    switch (result.kind) {
      case 'abandoned':
        await this.#setStatus(turn, STATUS.notStarted);
        return;
      case 'refused':
        await this.#setStatus(turn, `:x: Could not start: ${escapeSlack(result.error.message)}`);
        return;
      case 'crashed':
        await this.#setStatus(turn, `:x: Failed: ${escapeSlack(result.error.message)}`);
        return;
      case 'ran': {
        const outcome = result.outcome;
        if (outcome.status === 'completed') {
          const parts = splitMessage(toMrkdwn(outcome.answer.trim() === '' ? '_(no answer)_' : outcome.answer));
          for (const part of parts) await this.#say(turn.channel, turn.thread, part);
        }
        await this.#setStatus(turn, endedStatus(outcome));
        return;
      }
      default: {
        const never: never = result;
        throw new Error(`unknown work result ${JSON.stringify(never)}`);
      }
    }
  }

  /** A click, a menu choice or a typed answer on a question. */
  async #onAction(body: ActionBody, action: ActionPayload): Promise<void> {
    const user = body.user?.id ?? '';
    const actionId = action.action_id ?? '';
    const ref = decodeRef(
      actionId === ACTIONS.select ? action.selected_option?.value : actionId === ACTIONS.input ? action.block_id : action.value,
    );
    if (ref === undefined) return;
    const reply = replyOf(actionId, ref, action, user);
    if (reply === undefined) return;
    const channel = body.container?.channel_id ?? body.channel?.id;
    const thread = body.container?.thread_ts ?? body.message?.thread_ts;
    const refusal = reply.kind === 'approval' ? this.#refusal(user, ref) : undefined;
    if (refusal !== undefined) {
      // told only to the one who pressed; the question stays open for whoever may answer it
      if (channel !== undefined && this.#allowed.has(channel) && user !== '') await this.#whisper(channel, thread, user, refusal);
      return;
    }
    const messageTs = body.container?.message_ts ?? body.message?.ts;
    if (actionId === ACTIONS.reason) {
      if (channel === undefined || !this.#allowed.has(channel) || body.trigger_id === undefined) return;
      await this.#openReason(body.trigger_id, { ref, channel, thread, message: messageTs }, body.message?.text ?? '');
      return;
    }
    if (this.#board.deliver(ref.question, reply)) return;
    // nobody waits: the run that asked has ended, or this worker restarted since
    if (channel === undefined || !this.#allowed.has(channel) || thread === undefined) return;
    const team = body.user?.team_id ?? body.team?.id ?? '';
    // the element says which session it belongs to; it must be the session of the thread it is in
    if (threadSessionId(team, channel, thread) !== ref.session) return;
    const at = { channel, thread, messageTs, user };
    const refused = await this.#lateAnswer(ref, reply, at);
    if (refused !== undefined) await this.#edit(channel, messageTs, refused);
  }

  /** Opens the reason box for the approval `origin` names, with the trigger of the press that asked for it. */
  async #openReason(trigger: string, origin: ReasonOrigin, message: string): Promise<void> {
    const tool = /`([^`]+)` wants to run/.exec(message)?.[1] ?? /Approval needed for (\S+)/.exec(message)?.[1] ?? '';
    await this.#post(async () => {
      await this.#app.client.views.open({ trigger_id: trigger, view: reasonView(origin, tool) as never });
    });
  }

  /**
   * A reason box submitted: a decline with what was typed (a plain decline when nothing was), taken
   * by the waiting run as a click is, or journaled for a resume. Answered with the error the modal
   * shows when nothing was done: not an approver, or the question was already answered.
   */
  async #onReason(body: SubmissionBody): Promise<SubmissionAck> {
    const origin = decodeOrigin(body.view?.private_metadata);
    const user = body.user?.id ?? '';
    const shown = (text: string): SubmissionAck => ({ response_action: 'errors', errors: { [REASON_VIEW.block]: text } });
    if (origin === undefined || !this.#allowed.has(origin.channel) || user === '')
      return shown('This box does not belong to a question of this agent; nothing was changed.');
    const refusal = this.#refusal(user, origin.ref);
    if (refusal !== undefined) return shown(refusal.replace(/<@([^>]+)>/g, '$1'));
    const typed = body.view?.state?.values?.[REASON_VIEW.block]?.[REASON_VIEW.action]?.value ?? '';
    const reply: Reply = { kind: 'approval', decision: 'decline', user, ...(typed.trim() === '' ? {} : { reason: typed }) };
    const { ref } = origin;
    if (this.#board.deliver(ref.question, reply)) return undefined;
    if (this.#board.answered(ref.question)) return shown(ALREADY_ANSWERED);
    const team = body.user?.team_id ?? body.team?.id ?? '';
    if (origin.thread === undefined || threadSessionId(team, origin.channel, origin.thread) !== ref.session) return shown(ALREADY_ANSWERED);
    const refused = await this.#lateAnswer(ref, reply, { channel: origin.channel, thread: origin.thread, messageTs: origin.message, user });
    return refused === undefined ? undefined : shown(refused);
  }

  /**
   * Why `user` may not answer the approval `ref` asks, or undefined when they may. Fails closed:
   * under `requester`, an approval that does not say who asked can be answered by nobody.
   */
  #refusal(user: string, ref: QuestionRef): string | undefined {
    const approvers = this.#o.approvers ?? { kind: 'requester' };
    switch (approvers.kind) {
      case 'channel':
        return undefined;
      case 'requester':
        if (ref.requester !== undefined && ref.requester !== '' && user === ref.requester) return undefined;
        return ref.requester === undefined || ref.requester === ''
          ? 'This approval does not say who asked for it, so nobody can answer it here; mention me in the thread to ask again.'
          : `Only <@${ref.requester}>, whose message started this, can answer this approval. Nothing was changed.`;
      case 'users':
        if (approvers.users.includes(user)) return undefined;
        return 'You are not one of the approvers of this agent, so this approval is still waiting. Nothing was changed.';
      default: {
        const never: never = approvers;
        return String(never);
      }
    }
  }

  /** A message only `user` sees (an ephemeral one), in the thread when there is one. */
  #whisper(channel: string, thread: string | undefined, user: string, text: string): Promise<void> {
    return this.#post(async () => {
      await this.#app.client.chat.postEphemeral({ channel, user, text, ...(thread === undefined ? {} : { thread_ts: thread }) });
    }).then(() => undefined);
  }

  /**
   * An answer to a question whose run is no longer waiting: journaled against the call still
   * open (an approval against the gated call the run stopped before, an answer as the result of a
   * deferred question), then a resume turn carries the conversation on in the same thread.
   */
  async #lateAnswer(
    ref: QuestionRef,
    reply: Reply,
    at: { channel: string; thread: string; messageTs: string | undefined; user: string },
  ): Promise<string | undefined> {
    if (this.#closed) return STATUS.notStarted;
    if (this.#tails.has(ref.session)) return 'This answer arrived while the conversation was busy; answer again once it is idle.';
    const store = this.#o.sessions;
    try {
      const applied = await journalAnswer(store, ref.session, reply);
      if (applied === undefined) return ALREADY_ANSWERED;
      await this.#edit(
        at.channel,
        at.messageTs,
        `${escapeSlack(applied)} by <@${at.user}>; carrying on.${reply.kind === 'approval' ? saidText(declineWith(reply.reason ?? '')) : ''}`,
      );
    } catch (err) {
      return `This answer could not be applied: ${escapeSlack(err instanceof Error ? err.message : String(err))}`;
    }
    // the resumed run takes over the status message of the turn that stopped, so it does not stay
    // on "waiting for an answer" above a run that carried on
    this.#admit(
      { session: ref.session, channel: at.channel, thread: at.thread, requester: ref.requester ?? at.user, ask: { kind: 'resume' } },
      ref.status,
    );
    return undefined;
  }

  async next(signal: AbortSignal): Promise<Work | undefined> {
    for (;;) {
      if (this.#closed || signal.aborted) return undefined;
      const turn = this.#queue.shift();
      if (turn !== undefined) return turn;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }
  }

  /**
   * Stops taking messages (a message arriving now is told to come back) and, once the handlers in
   * progress have ended, tells every turn admitted but never started that it will not run.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      this.#wake?.();
      while (this.#intake.size > 0) await Promise.allSettled([...this.#intake]);
      const unstarted = [...this.#turns].filter((t) => t.state === 'waiting' || t.state === 'queued');
      this.#queue.length = 0;
      for (const turn of unstarted) {
        turn.state = 'ended';
        void this.#setStatus(turn, STATUS.notStarted);
        turn.end();
      }
    })();
    return this.#closing;
  }

  /**
   * Once every turn handed over has ended: lets every post land, then closes the socket, last,
   * because a running turn's questions take their clicks through it until the end.
   */
  settled(): Promise<void> {
    this.#settling ??= (async () => {
      await this.close();
      while (this.#turns.size > 0) await Promise.allSettled([...this.#turns].map((t) => t.ended));
      while (this.#intake.size > 0 || this.#posts.size > 0) await Promise.allSettled([...this.#intake, ...this.#posts]);
      this.#board.cancelAll();
      await this.#app.stop();
    })();
    return this.#settling;
  }
}

/** Opens the Slack channel: checks the settings, connects, and resolves once the socket is open. */
export function openSlackChannel(options: SlackChannelOptions): Promise<SlackChannel> {
  return SlackChannel.open(options);
}
