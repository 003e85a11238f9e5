/**
 * A run hosted by another agent, seen from here: the prompt is delegated over a2a, the remote
 * reply set is turned into the same events a local run emits (so one surface renders both), the
 * remote run's questions are put to a local prompter, and aborting the signal sends the cancel.
 * Everything from the peer is untrusted text: control sequences are stripped before a surface
 * sees it.
 */
import { delegate, KEEPALIVE_INTERVAL_MS } from '../a2a/index.js';
import type { AnswerValue, Block, DelegationUpdate, QuestionMessage, Transport, Usage } from '../a2a/index.js';
import type { AgentEvent, ApprovalOutcome, EventSink } from '../agent/events.js';
import type { RunPhase, RunStatus } from '../agent/status.js';
import { RUN_PHASES } from '../agent/status.js';
import { REFUSAL_REASONS } from '../toolkit/invoke/index.js';
import type { RefusalReason } from '../toolkit/invoke/index.js';
import type { Prompter } from '../toolkit/tool.js';
import { cleanText } from '../util/terminal-text.js';

export interface RemoteRunOptions {
  readonly transport: Transport;
  /** The calling identity, sent as the sender. */
  readonly self: string;
  /** The identity of the agent that runs the prompt. */
  readonly agent: string;
  readonly prompt: string;
  /** Continue this conversation (a follow-up in the same remote session) instead of starting one. */
  readonly conversation?: string;
  /** Ask the agent to stream the model's text as `text_fragment` events. */
  readonly stream?: boolean;
  /** Receives the remote run's events, in order. */
  readonly sink: EventSink;
  /** Answers the remote run's questions; without one that can prompt, every question gets the conservative answer. */
  readonly prompter?: Prompter;
  /**
   * Answers the remote run's questions instead of the prompter: each was emitted to the sink as a
   * `question` event carrying the agent's question id, and the answer is awaited here (a run
   * handle's `answer(id)`), so nothing is asked twice. `signal` aborts when the run ends or is
   * cancelled with the question still open.
   */
  readonly answer?: (question: QuestionMessage, signal: AbortSignal) => Promise<AnswerValue>;
  /** Told once the agent acked the request, with the conversation a follow-up continues. */
  readonly onAck?: (accepted: boolean, conversation: string) => void;
  /** Aborting it sends the cancel: the remote run parks at its next boundary. */
  readonly signal?: AbortSignal;
  /**
   * Aborting it sends `run.abort` and then the cancel: the remote run stops now, its running tool
   * killed, and ends aborted (an agent that does not take `run.abort` parks it on the cancel).
   */
  readonly abort?: AbortSignal;
  /** The delegation chain, ending with the calling agent, sent on so the agent can refuse a circle. */
  readonly hops?: readonly string[];
  /** The longest silence accepted from the agent (floored at three keepalive intervals). */
  readonly idleTimeoutMs?: number;
  readonly keepaliveMs?: number;
}

/** How a remote run ended. */
export interface RemoteRunOutcome {
  readonly status: RunStatus;
  /** The stop reason as the agent sent it (or `error` for a terminal error). */
  readonly stopReason: string;
  /** The answer (a result's text), control sequences stripped. */
  readonly text: string;
  readonly usage: Usage | undefined;
  /** For a terminal error: what the agent said, and its code. */
  readonly error?: { readonly message: string; readonly code: string | undefined };
}

/** Bounds a walk over the peer's tool input, which is untrusted JSON. */
const MAX_INPUT_DEPTH = 32;

function cleanValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return cleanText(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_INPUT_DEPTH) return '[nested too deeply to show]';
  if (Array.isArray(value)) return value.map((v) => cleanValue(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[cleanText(k)] = cleanValue(v, depth + 1);
  return out;
}

/** A refusal as sent; one this build does not know is still a call that never ran. */
function refusalOf(reason: string): RefusalReason {
  return (REFUSAL_REASONS as readonly string[]).includes(reason) ? (reason as RefusalReason) : 'denied';
}

function isPhase(phase: string | undefined): phase is RunPhase {
  return phase !== undefined && (RUN_PHASES as readonly string[]).includes(phase);
}

/** The local event for one remote block; `undefined` for a block with nothing to show. */
export function eventFromBlock(block: Block): AgentEvent | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: cleanText(block.text), final: false };
    case 'thinking':
      return { type: 'thinking', text: cleanText(block.text) };
    case 'tool_call':
      return {
        type: 'tool_call',
        id: cleanText(block.id),
        name: cleanText(block.name),
        input: cleanValue(block.input ?? {}, 0) as Record<string, unknown>,
      };
    case 'tool_result':
      return {
        type: 'tool_result',
        call_id: cleanText(block.call_id),
        is_error: block.is_error === true,
        output: cleanText(block.output ?? ''),
        ...(block.exec === undefined
          ? {}
          : {
              exec: {
                command: cleanText(block.exec.command ?? ''),
                exit_code: block.exec.exit_code ?? 0,
                truncated: block.exec.truncated === true,
              },
            }),
        ...(block.refused === undefined ? {} : { refused: refusalOf(block.refused) }),
      };
    case 'agent_call':
      return { type: 'tool_call', id: cleanText(block.id), name: cleanText(block.name), input: { task: cleanText(block.task) } };
    case 'status':
      return isPhase(block.phase)
        ? {
            type: 'status',
            iteration: block.iteration ?? 0,
            phase: block.phase,
            usage: block.usage ?? { input_tokens: 0, output_tokens: 0 },
          }
        : undefined;
    case 'opaque':
      return { type: 'warning', text: `the agent sent a ${JSON.stringify(cleanText(block.kind))} block, which this build does not show` };
    default: {
      const never: never = block;
      return never;
    }
  }
}

/** The local status for a remote stop reason; one this build does not know is an error. */
export function statusForStopReason(reason: string): RunStatus {
  switch (reason) {
    case 'end_turn':
    case 'max_tokens':
    case 'refusal':
      return 'completed';
    case 'suspended':
      return 'suspended';
    case 'canceled':
      return 'aborted';
    case 'budget_exhausted':
      return 'budget';
    case 'max_iterations':
      return 'max_iterations';
    default:
      return 'error';
  }
}

/** The conservative answer to a question nobody here can answer. */
export function conservativeAnswer(q: QuestionMessage): string | boolean | null {
  switch (q.kind) {
    case 'approval':
      return 'decline';
    case 'confirm':
      return false;
    case 'select':
    case 'input':
      return null;
    default: {
      const never: never = q.kind;
      return never;
    }
  }
}

/** What the agent's gate decides for an approval answered with `value`, as its own surface says it. */
export function approvalOutcomeOf(value: AnswerValue): ApprovalOutcome {
  if (value === 'once') return 'approved_once';
  if (value === 'always') return 'approved_for_run';
  return 'declined';
}

/** The tool and tag an approval question names, cleaned; undefined for an agent that sends neither. */
function gatedBy(q: QuestionMessage): { readonly tool: string; readonly trigger: string } | undefined {
  if (q.kind !== 'approval' || q.tool === undefined || q.trigger === undefined) return undefined;
  const tool = cleanText(q.tool);
  const trigger = cleanText(q.trigger);
  return tool === '' || trigger === '' ? undefined : { tool, trigger };
}

async function ask(prompter: Prompter, agent: string, q: QuestionMessage, text: string, signal: AbortSignal): Promise<AnswerValue> {
  switch (q.kind) {
    case 'approval': {
      const gate = gatedBy(q);
      return prompter.approve(
        { tool: gate?.tool ?? 'this tool', commandLine: text, trigger: gate?.trigger ?? `asked by ${agent}` },
        signal,
      );
    }
    case 'confirm':
      return prompter.confirm(text, signal);
    case 'select':
      return prompter.select(text, (q.options ?? []).map(cleanText), signal);
    case 'input':
      return prompter.input(text, signal);
    default: {
      const never: never = q.kind;
      return never;
    }
  }
}

/**
 * Delegates one prompt and follows the remote run to its end. Throws `A2aError` when the agent
 * cannot be reached or its reply set breaks (`unavailable`, `sequence`, `rejected`).
 */
export async function runRemote(opts: RemoteRunOptions): Promise<RemoteRunOutcome> {
  const keepaliveMs = opts.keepaliveMs ?? KEEPALIVE_INTERVAL_MS;
  // a question still open when the run ends or is cancelled is given up here too
  const questions = new AbortController();
  // the calls without a result yet, so an approval's decision names the call it is for
  const open = new Map<string, string>();
  const onUpdate = (update: DelegationUpdate): void => {
    switch (update.protocol) {
      case 'io.choria.fisk-ai.v1.event': {
        const event = eventFromBlock(update.block);
        if (event?.type === 'tool_call') open.set(event.id, event.name);
        if (event?.type === 'tool_result') open.delete(event.call_id);
        if (event !== undefined) opts.sink.emit(event);
        return;
      }
      case 'io.choria.fisk-ai.v1.text':
        opts.sink.emit({ type: 'text_fragment', text: cleanText(update.text) });
        return;
      case 'io.choria.fisk-ai.v1.warning':
        opts.sink.emit({ type: 'warning', text: cleanText(update.text) });
        return;
      case 'io.choria.fisk-ai.v1.question':
        opts.sink.emit({
          type: 'question',
          id: update.question,
          kind: update.kind,
          text: cleanText(update.text),
          ...(update.options === undefined ? {} : { options: update.options.map(cleanText) }),
          ...gatedBy(update),
        });
        return;
      case 'io.choria.fisk-ai.v1.keepalive':
      case 'io.choria.fisk-ai.v1.ack':
      case 'io.choria.fisk-ai.v1.cancel':
      case 'io.choria.fisk-ai.v1.answer':
      case 'io.choria.fisk-ai.v1.tool.request':
      case 'io.choria.fisk-ai.v1.tool.reply':
      case 'io.choria.fisk-ai.v1.discovery.request':
      case 'io.choria.fisk-ai.v1.discovery.reply':
      case 'io.choria.fisk-ai.v1.run.ask':
      case 'io.choria.fisk-ai.v1.run.abort':
        return;
      default: {
        const never: never = update;
        return never;
      }
    }
  };
  /** Shows the decision an approval's answer makes, as the agent's own surface shows it; nothing for an agent that did not name the tool. */
  const decided = (q: QuestionMessage, outcome: ApprovalOutcome, reason?: string): void => {
    const gate = gatedBy(q);
    if (gate === undefined) return;
    const call = [...open].reverse().find(([, name]) => name === gate.tool)?.[0] ?? '';
    opts.sink.emit({
      type: 'approval',
      call_id: call,
      tool: gate.tool,
      trigger: gate.trigger,
      outcome,
      ...(reason === undefined || reason.trim() === '' ? {} : { reason: cleanText(reason) }),
    });
  };
  const onQuestion = async (q: QuestionMessage, keepalive: () => Promise<void>): Promise<AnswerValue> => {
    const answered = await putQuestion(q, keepalive);
    // an answer given up with the run (cancelled, ended) decides nothing the agent will act on
    if (q.kind === 'approval' && !questions.signal.aborted)
      decided(
        q,
        answered.nobody ? 'no_operator' : approvalOutcomeOf(answered.value),
        typeof answered.value === 'object' && answered.value !== null ? answered.value.reason : undefined,
      );
    return answered.value;
  };
  const putQuestion = async (
    q: QuestionMessage,
    keepalive: () => Promise<void>,
  ): Promise<{ readonly value: AnswerValue; readonly nobody: boolean }> => {
    const prompter = opts.prompter;
    const answer = opts.answer;
    const put =
      answer !== undefined
        ? (): Promise<AnswerValue> => answer(q, questions.signal)
        : prompter !== undefined && prompter.canPrompt()
          ? (): Promise<AnswerValue> => ask(prompter, opts.agent, q, cleanText(q.text), questions.signal)
          : undefined;
    if (put === undefined) {
      opts.sink.emit({
        type: 'warning',
        text: `nobody can answer ${opts.agent}'s ${q.kind} question here (no terminal), so it was declined`,
      });
      return { value: conservativeAnswer(q), nobody: true };
    }
    // while somebody is deciding, say so, so the agent's window does not close on them
    const alive = setInterval(() => void keepalive().catch(() => undefined), keepaliveMs);
    try {
      return { value: await put(), nobody: false };
    } finally {
      clearInterval(alive);
    }
  };
  const abandon = (): void => questions.abort(new Error('canceled'));
  opts.signal?.addEventListener('abort', abandon, { once: true });
  opts.abort?.addEventListener('abort', abandon, { once: true });
  try {
    const end = await delegate(opts.transport, opts.self, opts.agent, {
      prompt: opts.prompt,
      ...(opts.conversation === undefined ? {} : { conversation: opts.conversation }),
      ...(opts.stream === true ? { stream: true } : {}),
      ...(opts.onAck === undefined ? {} : { onAck: opts.onAck }),
      onUpdate,
      onQuestion,
      keepaliveMs,
      ...(opts.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: opts.idleTimeoutMs }),
      ...(opts.signal === undefined ? {} : { signal: opts.signal }),
      ...(opts.abort === undefined ? {} : { abort: opts.abort }),
      ...(opts.hops === undefined ? {} : { hops: opts.hops }),
    });
    if (end.protocol === 'io.choria.fisk-ai.v1.error') {
      return {
        status:
          end.stop_reason === undefined
            ? 'error'
            : statusForStopReason(end.stop_reason) === 'completed'
              ? 'error'
              : statusForStopReason(end.stop_reason),
        stopReason: end.stop_reason ?? 'error',
        text: '',
        usage: undefined,
        error: { message: cleanText(end.error), code: end.code === undefined ? undefined : cleanText(end.code) },
      };
    }
    return {
      status: statusForStopReason(end.stop_reason),
      stopReason: cleanText(end.stop_reason),
      text: cleanText(end.text ?? ''),
      usage: end.usage,
    };
  } finally {
    opts.signal?.removeEventListener('abort', abandon);
    opts.abort?.removeEventListener('abort', abandon);
    abandon();
  }
}
