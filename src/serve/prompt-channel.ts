/**
 * The a2a prompts channel (`expose.agent.a2a.prompts`): whole prompts delegated by peers, run by
 * the server. The delegation protocol (`startPromptServer`) owns the reply set; this channel turns
 * each accepted request into work and the run into that reply set:
 *
 * - the session id is derived from the caller and the conversation, never taken from the caller,
 *   so a follow-up finds its journal and nobody reaches another's;
 * - the run's events stream to the caller as blocks, its model text as fragments, its warnings;
 * - questions go to the caller (with `elicitation` on): silence defers a question tool and stops
 *   the run at the confirm gate, resumable;
 * - a cancel parks the run at its next boundary, ending suspended and resumable by a follow-up;
 *   a `run.abort` stops it now, killing a running tool, as a local cancel does.
 */
import type { AnswerValue, AskResult, DelegatedRun, EndpointSpec, KnownBlock, RunEnding, StopReason, Transport } from '../a2a/index.js';
import { startPromptServer } from '../a2a/index.js';
import type { AgentEvent } from '../agent/events.js';
import type { RunOutcome } from '../agent/outcome.js';
import type { BudgetOverride, RunInput } from '../host/index.js';
import { isRunStateError, loadRun } from '../runstate/index.js';
import { withoutPaths } from '../util/server-paths.js';
import type { SessionStore } from '../runstate/index.js';
import { approvalFromValue, Unanswered } from '../toolkit/tool.js';
import type { ApprovalAnswer, ApprovalRequest, Prompter } from '../toolkit/tool.js';
import type { Channel, Work, WorkResult } from './channel.js';
import { WorkQueue } from './work-queue.js';

export interface PromptChannelOptions {
  readonly identity: string;
  readonly transport: Transport;
  /** Runs at once: requests beyond this are refused as busy rather than queued. */
  readonly workers: number;
  /** `expose.agent.a2a.elicitation`: put the run's questions to the caller. */
  readonly elicitation: boolean;
  /** How long a question waits for an answer, restarted by each keepalive from the caller. */
  readonly questionWindowMs?: number;
  /**
   * The store served runs are journaled in. With it, a follow-up to a conversation that stopped
   * inside a tool batch (an approval met silence, a cancel landed mid-batch) first finishes that
   * batch, asking again where the gate must, and then takes the further prompt.
   */
  readonly sessions?: SessionStore;
  readonly keepaliveMs?: number;
}

export interface PromptChannel extends Channel {
  /** The endpoint to add to the agent's a2a service. */
  readonly endpoint: EndpointSpec;
  readonly subject: string;
}

/** Asks the caller; silence (the window closed, or a cancel gave the question up) throws `Unanswered`. */
class CallerPrompter implements Prompter {
  constructor(private readonly run: DelegatedRun) {}

  /** Until the caller cancels: a run in flight during a drain still hears its answers. */
  canPrompt(): boolean {
    return !this.run.park.aborted && !this.run.abort.aborted;
  }

  async #ask(question: Parameters<DelegatedRun['ask']>[0]): Promise<AnswerValue> {
    const r: AskResult = await this.run.ask(question);
    if (!r.answered) throw new Unanswered(`${this.run.caller} did not answer the question in time`);
    return r.value;
  }

  async approve(request: ApprovalRequest): Promise<ApprovalAnswer> {
    return approvalFromValue(
      await this.#ask({ kind: 'approval', text: request.commandLine, tool: request.tool, trigger: request.trigger }),
    );
  }

  async confirm(question: string): Promise<boolean> {
    return (await this.#ask({ kind: 'confirm', text: question })) === true;
  }

  async select(question: string, options: readonly string[]): Promise<string | null> {
    const a = await this.#ask({ kind: 'select', text: question, options });
    return typeof a === 'string' && options.includes(a) ? a : null;
  }

  async input(question: string): Promise<string | null> {
    const a = await this.#ask({ kind: 'input', text: question });
    return typeof a === 'string' ? a : null;
  }
}

/** The block a caller is sent for one event; `undefined` for what stays here. */
export function blockFromEvent(event: AgentEvent): KnownBlock | undefined {
  switch (event.type) {
    case 'text':
      // the answer travels in the terminal result; prose beside tool calls is an event
      return event.final ? undefined : { type: 'text', text: event.text };
    case 'thinking':
      return { type: 'thinking', text: event.text };
    case 'tool_call':
      return { type: 'tool_call', id: event.id, name: event.name, input: event.input };
    case 'tool_result':
      return {
        type: 'tool_result',
        call_id: event.call_id,
        ...(event.is_error ? { is_error: true } : {}),
        output: event.output,
        ...(event.exec === undefined
          ? {}
          : { exec: { command: event.exec.command, exit_code: event.exec.exit_code, truncated: event.exec.truncated } }),
        ...(event.refused === undefined ? {} : { refused: event.refused }),
      };
    case 'status':
      return { type: 'status', iteration: event.iteration, phase: event.phase, usage: event.usage };
    case 'text_fragment':
    case 'warning':
    case 'question':
    case 'approval':
    case 'progress':
    case 'crash':
      // fragments and warnings have their own messages, questions go through the prompter (the
      // question names the tool and its tag, the caller who answered knows the decision, and the
      // refusal travels in the result), and a
      // crash's stack never leaves this process; a delegated peer's progress is this agent's own business
      return undefined;
    default: {
      const never: never = event;
      return never;
    }
  }
}

/**
 * The terminal message for how the work ended. What goes to the caller says what went wrong and
 * what to do, never where this host keeps its files: every path in it is replaced.
 */
export function endingFor(result: WorkResult, sessionId: string, identity: string): RunEnding {
  switch (result.kind) {
    case 'abandoned':
      return {
        error: `agent ${identity} is shutting down and did not start this prompt; send it again`,
        stop_reason: 'error',
        code: 'draining',
      };
    case 'refused':
      if (isRunStateError(result.error, 'not_found')) {
        return {
          error: `agent ${identity} holds no conversation to continue under this id (session ${sessionId}); start a new conversation`,
          stop_reason: 'error',
          code: 'refused',
        };
      }
      return { error: withoutPaths(result.error.message), stop_reason: 'error', code: 'refused' };
    case 'crashed':
      return { error: `the run failed: ${withoutPaths(result.error.message)}`, stop_reason: 'error', code: 'crashed' };
    case 'ran':
      return endingForOutcome(result.outcome, sessionId);
    default: {
      const never: never = result;
      return never;
    }
  }
}

function endingForOutcome(outcome: RunOutcome, sessionId: string): RunEnding {
  const usage = { input_tokens: outcome.counters.usage.input, output_tokens: outcome.counters.usage.output };
  const stopped = (stop_reason: StopReason, text: string): RunEnding => ({ stop_reason, text, usage });
  switch (outcome.status) {
    case 'completed': {
      const raw = outcome.stopReason?.unified;
      return stopped(raw === 'max_tokens' || raw === 'refusal' ? raw : 'end_turn', outcome.answer);
    }
    case 'suspended':
      // the session id lets the caller's operator find the run (fisk session show) to answer or resume it
      return stopped(
        'suspended',
        `${withoutPaths(outcome.message)} (session ${sessionId}; send a follow-up in this conversation to continue)`,
      );
    case 'aborted':
      return stopped('canceled', withoutPaths(outcome.message));
    case 'budget':
      return stopped('budget_exhausted', withoutPaths(outcome.message));
    case 'max_iterations':
      return stopped('max_iterations', withoutPaths(outcome.message));
    case 'error':
    case 'crashed':
      // an error message carries no usage: the protocol gives it the error, a stop reason and a code
      return { error: withoutPaths(outcome.message), stop_reason: 'error', code: outcome.error.code };
    default: {
      const never: never = outcome;
      return never;
    }
  }
}

function budgetOf(run: DelegatedRun): BudgetOverride | undefined {
  const b = run.request.budget;
  if (b === undefined) return undefined;
  // a caller's budget may only lower the configured limits (startRun takes the lower of the two);
  // the tool timeout stays as whoever started the server set it
  return {
    ...(b.max_tokens === undefined ? {} : { maxTokens: b.max_tokens }),
    ...(b.max_iterations === undefined ? {} : { maxIterations: b.max_iterations }),
  };
}

function promptOf(run: DelegatedRun): string {
  const context = run.request.context === undefined || run.request.context.trim() === '' ? '' : `${run.request.context.trim()}\n\n`;
  return `${context}${run.request.prompt}`;
}

/** What to run: an opening prompt starts the derived session; a follow-up continues it. */
function inputOf(run: DelegatedRun): RunInput {
  const prompt = promptOf(run);
  if (run.request.protocol !== 'io.choria.fisk-ai.v1.followup') return { prompt, checkpoint: { runId: run.sessionId } };
  // a follow-up with nothing to add continues the conversation where it stopped
  return run.request.prompt.trim() === '' ? { resume: run.sessionId } : { resume: run.sessionId, followUp: prompt };
}

/**
 * Whether a follow-up must first finish the batch its conversation stopped in: calls left without
 * a result and none deferred (a deferred call waits for `fisk session answer`, which no caller
 * can give over a2a). A session that cannot be read is left for the run itself to refuse.
 */
async function stoppedInBatch(sessions: SessionStore | undefined, sessionId: string): Promise<boolean> {
  if (sessions === undefined) return false;
  try {
    const stored = await loadRun(sessions, sessionId);
    return stored.pending !== undefined && stored.pending.calls.every((c) => c.state !== 'deferred');
  } catch {
    return false;
  }
}

/** Builds the channel; serve `endpoint` on the agent's a2a service. */
export function promptChannel(opts: PromptChannelOptions): PromptChannel {
  const queue = new WorkQueue();
  let drained: Promise<void> | undefined;

  const handler = async (run: DelegatedRun): Promise<RunEnding> => {
    const finishFirst = run.request.protocol === 'io.choria.fisk-ai.v1.followup' && (await stoppedInBatch(opts.sessions, run.sessionId));
    return new Promise<RunEnding>((resolve) => {
      const send = (p: Promise<void>): void => void p.catch(() => undefined);
      const hand = (work: Work): void => {
        if (!queue.offer(work)) resolve(endingFor({ kind: 'abandoned' }, run.sessionId, opts.identity));
      };
      const work = (input: RunInput, then?: () => void): Work => ({
        label: `a2a prompt from ${run.caller} (session ${run.sessionId})`,
        ids: { session: run.sessionId },
        input,
        ...(opts.elicitation ? { prompter: new CallerPrompter(run) } : {}),
        ...(budgetOf(run) === undefined ? {} : { budget: budgetOf(run) as BudgetOverride }),
        park: run.park,
        signal: run.abort,
        hops: run.hops,
        ...(run.request.stream === true ? { stream: true } : {}),
        runContext(handle) {
          handle.subscribe({
            emit(event) {
              if (event.type === 'text_fragment') return send(run.text(event.text));
              if (event.type === 'warning') return send(run.warn(event.text));
              // the answer of a turn finished before the further prompt is prose the caller sees
              const block =
                then !== undefined && event.type === 'text' ? { type: 'text' as const, text: event.text } : blockFromEvent(event);
              if (block !== undefined) send(run.emit(block));
            },
          });
        },
        done(result) {
          if (then !== undefined && result.kind === 'ran' && result.outcome.status === 'completed') then();
          else resolve(endingFor(result, run.sessionId, opts.identity));
          return Promise.resolve();
        },
      });
      const further: RunInput = inputOf(run);
      // the batch first (the gate asks again where it must), then the further prompt in a second run
      const resumeOnly = !('followUp' in further) && 'resume' in further;
      hand(finishFirst && !resumeOnly ? work({ resume: run.sessionId }, () => hand(work(further))) : work(further));
    });
  };

  const server = startPromptServer({
    identity: opts.identity,
    transport: opts.transport,
    handler,
    workers: opts.workers,
    ...(opts.questionWindowMs === undefined ? {} : { questionWindowMs: opts.questionWindowMs }),
    ...(opts.keepaliveMs === undefined ? {} : { keepaliveMs: opts.keepaliveMs }),
  });

  return {
    name: 'a2a prompts',
    workers: opts.workers,
    endpoint: server.endpoint,
    subject: server.endpoint.subject,
    next: (signal) => queue.next(signal),
    close() {
      if (!queue.open) return Promise.resolve();
      // the gate first: intake now refuses with a negative ack rather than accepting a prompt
      // nothing will run; the runs already handed over finish on the server
      drained = server.drain();
      queue.close();
      return Promise.resolve();
    },
    // every terminal message published: the process may close its connection after this
    settled: () => drained ?? server.drain(),
  };
}
