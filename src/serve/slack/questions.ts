/**
 * Questions put to people in a Slack thread: approvals and the `ask_human_*` questions as
 * interactive messages, each routed back to the call waiting for it by a minted question id.
 */
import { randomUUID } from 'node:crypto';
import { declineReasonOf, declineWith, Unanswered } from '../../toolkit/tool.js';
import type { ApprovalAnswer, ApprovalDecision, ApprovalRequest, Prompter } from '../../toolkit/tool.js';

/** What a person did with a question. */
export type Reply =
  /** `reason`: what the person said to do instead, with a decline given through the reason box. */
  | { readonly kind: 'approval'; readonly decision: ApprovalDecision; readonly user: string; readonly reason?: string }
  | { readonly kind: 'confirm'; readonly yes: boolean; readonly user: string }
  | { readonly kind: 'select'; readonly index: number; readonly user: string }
  | { readonly kind: 'input'; readonly text: string; readonly user: string };

/** How waiting for a reply ended. */
export type Settled = { readonly kind: 'answered'; readonly reply: Reply } | { readonly kind: 'silence' } | { readonly kind: 'cancelled' };

interface Waiting {
  settle(s: Settled): void;
  restart(): void;
}

/** How many answered question ids the board remembers, to tell a late second answer what happened. */
const REMEMBERED = 1000;

/**
 * The questions waiting now, by question id. Delivering a reply and giving up are the same
 * transition: whichever removes the entry first decides, so a click landing as the window closes
 * is either delivered or reported late, never both.
 */
export class QuestionBoard {
  readonly #waiting = new Map<string, Waiting>();
  readonly #answered = new Set<string>();

  /** A fresh question id: random, so it cannot be guessed from the thread or the question. */
  static mint(): string {
    return randomUUID();
  }

  /** Waits for the reply to `id` for `windowMs` of silence, or until `signal` aborts. */
  wait(id: string, windowMs: number, signal: AbortSignal): Promise<Settled> {
    return new Promise<Settled>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = (): void => settle({ kind: 'cancelled' });
      const settle = (s: Settled): void => {
        if (this.#waiting.get(id) !== entry) return;
        this.#waiting.delete(id);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(s);
      };
      const restart = (): void => {
        clearTimeout(timer);
        timer = setTimeout(() => settle({ kind: 'silence' }), windowMs);
      };
      const entry: Waiting = { settle, restart };
      this.#waiting.set(id, entry);
      if (signal.aborted) return settle({ kind: 'cancelled' });
      signal.addEventListener('abort', onAbort, { once: true });
      restart();
    });
  }

  /** Hands `reply` to the call waiting on `id`; false when none waits (it ended, or this worker restarted). */
  deliver(id: string, reply: Reply): boolean {
    const w = this.#waiting.get(id);
    if (w === undefined) return false;
    w.settle({ kind: 'answered', reply });
    this.#answered.add(id);
    if (this.#answered.size > REMEMBERED) this.#answered.delete(this.#answered.values().next().value ?? id);
    return true;
  }

  /** Whether a reply to `id` was delivered here already (among the last answers this worker took). */
  answered(id: string): boolean {
    return this.#answered.has(id);
  }

  /** Restarts the silence window of a question somebody is still working on; false when none waits. */
  keepalive(id: string): boolean {
    const w = this.#waiting.get(id);
    w?.restart();
    return w !== undefined;
  }

  /** Ends every wait (a cancelled run, a closed channel). */
  cancelAll(): void {
    for (const w of [...this.#waiting.values()]) w.settle({ kind: 'cancelled' });
  }

  get size(): number {
    return this.#waiting.size;
  }
}

/** The action ids of the interactive elements; the question id travels in the element's value. */
export const ACTIONS = {
  once: 'fisk_approve_once',
  always: 'fisk_approve_always',
  decline: 'fisk_approve_decline',
  /** Opens the reason box: a decline that tells the agent what to do instead. */
  reason: 'fisk_approve_decline_reason',
  yes: 'fisk_confirm_yes',
  no: 'fisk_confirm_no',
  select: 'fisk_select',
  input: 'fisk_input',
} as const;

/** What a question message's element values carry: the question id, and the session it belongs to. */
export interface QuestionRef {
  readonly question: string;
  readonly session: string;
  /** For a menu option, the option's index. */
  readonly index?: number;
  /**
   * The user whose message started the turn that asked: with `approvers: requester`, the only
   * one who may answer an approval, also after a restart. Slack returns element values as the
   * bot wrote them, so a person cannot put another name here.
   */
  readonly requester?: string;
  /** The turn's status message, brought up to date when a late answer resumes the run. */
  readonly status?: string;
}

/** The reason box: a modal whose submission is a decline carrying what the person typed. */
export const REASON_VIEW = { callbackId: 'fisk_decline_reason', block: 'fisk_reason', action: 'fisk_reason_text' } as const;

/** Where a reason box was opened from, carried in the modal's private metadata (Slack returns it as written). */
export interface ReasonOrigin {
  readonly ref: QuestionRef;
  readonly channel: string;
  readonly thread: string | undefined;
  /** The approval message, edited when a late answer resumes the run. */
  readonly message: string | undefined;
}

/** The modal asking what the agent should do instead. `tool` names the call, for the title line. */
export function reasonView(origin: ReasonOrigin, tool: string): Block {
  return {
    type: 'modal',
    callback_id: REASON_VIEW.callbackId,
    private_metadata: JSON.stringify({ r: encodeRef(origin.ref), c: origin.channel, th: origin.thread, m: origin.message }),
    title: { type: 'plain_text', text: 'Decline' },
    submit: { type: 'plain_text', text: 'Decline' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      section(
        `Decline ${tool === '' ? 'this call' : `\`${escapeSlack(tool)}\``}. It will not run; what you write here reaches the agent with the refusal. Leave it empty for a plain decline.`,
      ),
      {
        type: 'input',
        block_id: REASON_VIEW.block,
        optional: true,
        label: { type: 'plain_text', text: 'Tell the agent what to do instead' },
        element: { type: 'plain_text_input', action_id: REASON_VIEW.action, multiline: true, max_length: 2000 },
      },
    ],
  };
}

/** Reads a reason box's private metadata back; undefined for anything `reasonView` did not write. */
export function decodeOrigin(metadata: string | undefined): ReasonOrigin | undefined {
  if (metadata === undefined || metadata.length > 3000) return undefined;
  try {
    const v = JSON.parse(metadata) as { r?: unknown; c?: unknown; th?: unknown; m?: unknown };
    const ref = typeof v.r === 'string' ? decodeRef(v.r) : undefined;
    if (ref === undefined || typeof v.c !== 'string') return undefined;
    if ((v.th !== undefined && typeof v.th !== 'string') || (v.m !== undefined && typeof v.m !== 'string')) return undefined;
    return { ref, channel: v.c, thread: typeof v.th === 'string' ? v.th : undefined, message: typeof v.m === 'string' ? v.m : undefined };
  } catch {
    return undefined;
  }
}

export function encodeRef(ref: QuestionRef): string {
  return JSON.stringify({
    q: ref.question,
    s: ref.session,
    ...(ref.index === undefined ? {} : { i: ref.index }),
    ...(ref.requester === undefined ? {} : { r: ref.requester }),
    ...(ref.status === undefined ? {} : { t: ref.status }),
  });
}

/** Reads an element value back; undefined for anything not written by `encodeRef`. */
export function decodeRef(value: string | undefined): QuestionRef | undefined {
  if (value === undefined || value.length > 2000) return undefined;
  try {
    const v = JSON.parse(value) as { q?: unknown; s?: unknown; i?: unknown; r?: unknown; t?: unknown };
    if (typeof v.q !== 'string' || typeof v.s !== 'string') return undefined;
    if (v.i !== undefined && (typeof v.i !== 'number' || !Number.isInteger(v.i) || v.i < 0)) return undefined;
    if ((v.r !== undefined && typeof v.r !== 'string') || (v.t !== undefined && typeof v.t !== 'string')) return undefined;
    return {
      question: v.q,
      session: v.s,
      ...(typeof v.i === 'number' ? { index: v.i } : {}),
      ...(typeof v.r === 'string' ? { requester: v.r } : {}),
      ...(typeof v.t === 'string' ? { status: v.t } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Text a person wrote or a tool reported, made safe to show inside a Slack message. */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A plain-text label for Slack's element limits (75 characters for buttons and options). */
function label(text: string, max = 75): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

type Block = Record<string, unknown>;

const section = (text: string): Block => ({ type: 'section', text: { type: 'mrkdwn', text } });
const button = (text: string, actionId: string, value: string, style?: 'primary' | 'danger'): Block => ({
  type: 'button',
  text: { type: 'plain_text', text },
  action_id: actionId,
  value,
  ...(style === undefined ? {} : { style }),
});

/** The blocks of an approval question. */
export function approvalBlocks(ref: QuestionRef, request: ApprovalRequest): Block[] {
  const v = encodeRef(ref);
  return [
    section(
      `*Approval needed* (${escapeSlack(request.trigger)}): \`${escapeSlack(request.tool)}\` wants to run\n\`\`\`${escapeSlack(request.commandLine)}\`\`\``,
    ),
    {
      type: 'actions',
      elements: [
        button('Allow once', ACTIONS.once, v, 'primary'),
        button('Allow for this conversation', ACTIONS.always, v),
        button('Decline', ACTIONS.decline, v, 'danger'),
        button('Decline with reason…', ACTIONS.reason, v),
      ],
    },
  ];
}

export function confirmBlocks(ref: QuestionRef, question: string): Block[] {
  const v = encodeRef(ref);
  return [
    section(`*Question:* ${escapeSlack(question)}`),
    { type: 'actions', elements: [button('Yes', ACTIONS.yes, v, 'primary'), button('No', ACTIONS.no, v)] },
  ];
}

export function selectBlocks(ref: QuestionRef, question: string, options: readonly string[]): Block[] {
  // the full options are listed in the text, since a menu label is cut at 75 characters
  const listed = options.map((o, i) => `${i + 1}. ${escapeSlack(o)}`).join('\n');
  return [
    section(`*Question:* ${escapeSlack(question)}\n${listed}`),
    {
      type: 'actions',
      elements: [
        {
          type: 'static_select',
          action_id: ACTIONS.select,
          placeholder: { type: 'plain_text', text: 'Choose one' },
          options: options.map((o, i) => ({
            text: { type: 'plain_text', text: label(`${i + 1}. ${o}`) },
            value: encodeRef({ ...ref, index: i }),
          })),
        },
      ],
    },
  ];
}

export function inputBlocks(ref: QuestionRef, question: string): Block[] {
  return [
    section(`*Question:* ${escapeSlack(question)}`),
    {
      type: 'input',
      block_id: encodeRef(ref).length <= 255 ? encodeRef(ref) : ref.question,
      dispatch_action: true,
      label: { type: 'plain_text', text: 'Your answer (press Enter to send)' },
      element: { type: 'plain_text_input', action_id: ACTIONS.input, dispatch_action_config: { trigger_actions_on: ['on_enter_pressed'] } },
    },
  ];
}

/** How the prompter reaches its thread; supplied by the channel. */
export interface ThreadPoster {
  /** Posts a message in the thread; resolves with its ts. */
  post(text: string, blocks: readonly Block[]): Promise<string | undefined>;
  /** Replaces a message's text and drops its buttons. */
  settle(ts: string, text: string): Promise<void>;
}

export interface SlackPrompterOptions {
  readonly board: QuestionBoard;
  readonly poster: ThreadPoster;
  /** The session the questions belong to, carried in every element so a late click finds it. */
  readonly session: string;
  /** Who started the turn, carried in every element (see `QuestionRef.requester`). */
  readonly requester?: string;
  /** The turn's status message once posted, carried in every element (see `QuestionRef.status`). */
  readonly status?: Promise<string | undefined>;
  /** How long a question waits in silence. */
  readonly windowMs: number;
}

/** How an approval message says what was decided. */
export function decidedText(answer: ApprovalAnswer): string {
  const d = typeof answer === 'string' ? answer : answer.decision;
  return d === 'decline' ? 'Declined' : d === 'always' ? 'Allowed for this conversation' : 'Allowed once';
}

/** The reason a decline carried, quoted under the decision; empty without one. */
export function saidText(answer: ApprovalAnswer): string {
  const said = declineReasonOf(answer);
  return said === undefined ? '' : `\n>${escapeSlack(said)}`;
}

/** What silence says, thrown so the asker decides: the question tools defer, the gate stops the run. */
const SILENCE = 'nobody in the Slack thread answered in time; a later answer there carries the conversation on';

/**
 * The prompter of one Slack turn. Every answer comes from a click in the thread. Silence is no
 * answer: it throws `Unanswered`, so a question tool defers its call and the gate stops the run
 * before its call; the message keeps its buttons, and a later click resumes the conversation.
 */
export class SlackPrompter implements Prompter {
  readonly #o: SlackPrompterOptions;

  constructor(options: SlackPrompterOptions) {
    this.#o = options;
  }

  canPrompt(): boolean {
    return true;
  }

  async #ask(
    blocks: (ref: QuestionRef) => Block[],
    text: string,
    signal: AbortSignal,
  ): Promise<{ settled: Settled; ts: string | undefined }> {
    const status = await this.#o.status;
    const ref: QuestionRef = {
      question: QuestionBoard.mint(),
      session: this.#o.session,
      ...(this.#o.requester === undefined || this.#o.requester === '' ? {} : { requester: this.#o.requester }),
      ...(status === undefined ? {} : { status }),
    };
    const failed = new AbortController();
    // wait first, so a click landing before the post returns still finds the question
    const waiting = this.#o.board.wait(ref.question, this.#o.windowMs, AbortSignal.any([signal, failed.signal]));
    let ts: string | undefined;
    try {
      ts = await this.#o.poster.post(text, blocks(ref));
    } catch {
      // a question nobody could see is not asked: the conservative answer
      failed.abort();
    }
    return { settled: await waiting, ts };
  }

  async #close(ts: string | undefined, text: string): Promise<void> {
    if (ts !== undefined) await this.#o.poster.settle(ts, text);
  }

  async approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const what = `\`${escapeSlack(request.tool)}\`: \`${escapeSlack(request.commandLine)}\``;
    const { settled, ts } = await this.#ask((ref) => approvalBlocks(ref, request), `Approval needed for ${request.tool}`, signal);
    if (settled.kind === 'answered' && settled.reply.kind === 'approval') {
      const d = settled.reply.decision;
      const answer = d === 'decline' ? declineWith(settled.reply.reason ?? '') : d;
      await this.#close(ts, `${decidedText(answer)} by <@${settled.reply.user}>: ${what}${saidText(answer)}`);
      return answer;
    }
    // the buttons stay: a click later resumes the run, which asks the gate again
    if (settled.kind === 'silence') throw new Unanswered(SILENCE);
    await this.#close(ts, `No longer waiting for approval: ${what}`);
    return 'decline';
  }

  async confirm(question: string, signal: AbortSignal): Promise<boolean> {
    const { settled, ts } = await this.#ask((ref) => confirmBlocks(ref, question), question, signal);
    if (settled.kind === 'answered' && settled.reply.kind === 'confirm') {
      await this.#close(ts, `*${escapeSlack(question)}* — <@${settled.reply.user}> answered ${settled.reply.yes ? 'yes' : 'no'}`);
      return settled.reply.yes;
    }
    if (settled.kind === 'silence') throw new Unanswered(SILENCE);
    await this.#close(ts, `*${escapeSlack(question)}* — no longer asked`);
    return false;
  }

  async select(question: string, options: readonly string[], signal: AbortSignal): Promise<string | null> {
    const { settled, ts } = await this.#ask((ref) => selectBlocks(ref, question, options), question, signal);
    if (settled.kind === 'answered' && settled.reply.kind === 'select') {
      const picked = options[settled.reply.index];
      if (picked !== undefined) {
        await this.#close(ts, `*${escapeSlack(question)}* — <@${settled.reply.user}> chose ${escapeSlack(picked)}`);
        return picked;
      }
    }
    if (settled.kind === 'silence') throw new Unanswered(SILENCE);
    await this.#close(ts, `*${escapeSlack(question)}* — no choice made`);
    return null;
  }

  async input(question: string, signal: AbortSignal): Promise<string | null> {
    const { settled, ts } = await this.#ask((ref) => inputBlocks(ref, question), question, signal);
    if (settled.kind === 'answered' && settled.reply.kind === 'input') {
      await this.#close(ts, `*${escapeSlack(question)}* — <@${settled.reply.user}> answered`);
      return settled.reply.text;
    }
    if (settled.kind === 'silence') throw new Unanswered(SILENCE);
    await this.#close(ts, `*${escapeSlack(question)}* — no longer asked`);
    return null;
  }
}
