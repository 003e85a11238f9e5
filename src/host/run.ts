/**
 * `startRun`: one run of an agent over a runtime, as a handle every surface consumes alike (the
 * line surface, the full-screen view, a browser, an a2a channel). The handle carries the event
 * stream, suspend and cancel, answers to questions, follow-ups in the same session, and the
 * outcome. The run borrows the runtime; the handle owns only the journal it opened.
 */
import { resumeCheckpoint, runFingerprint, startCheckpoint } from '../agent/checkpoint.js';
import type { Checkpoint } from '../agent/checkpoint.js';
import type { AgentEvent, EventSink } from '../agent/events.js';
import type { Hooks } from '../agent/hooks.js';
import type { RunOutcome } from '../agent/outcome.js';
import { withPiiGuard } from '../agent/pii/guard.js';
import { replayConversation } from '../agent/replay.js';
import type { ReplayedPrompt } from '../agent/replay.js';
import { runAgent } from '../agent/run-agent.js';
import type { RunOptions } from '../agent/run-agent.js';
import { settingsFromConfig } from '../agent/settings.js';
import type { RunSettings } from '../agent/settings.js';
import { systemBlocks } from '../agent/system-prompt.js';
import type { SystemBlock, Usage } from '../llm/types.js';
import { memoryScopeBody, userBody } from '../runstate/builders.js';
import { loadRun } from '../runstate/run-ops.js';
import { appendNext } from '../runstate/store.js';
import type { FingerprintChange } from '../runstate/index.js';
import { deferredNotLoaded, loadedFromHistory } from '../toolkit/tool-search.js';
import type { PublishedToolSetSource } from '../toolkit/tool-set.js';
import type { Prompter } from '../toolkit/tool.js';
import { EventHub } from './event-hub.js';
import { HostError } from './errors.js';
import { guardedResume } from './restored-guard.js';
import { HandlePrompter } from './handle-prompter.js';
import { unattendedWarnings } from './unattended.js';
import type { QuestionAnswer } from './question-answer.js';
import type { HostTelemetry, RunTelemetry } from './telemetry.js';
import { runToolSource } from './run-tools.js';
import type { RunToolSource } from './run-tools.js';
import { requireRunRuntime } from './runtime.js';
import type { RunRuntime } from './runtime.js';
import { assembleTools } from './tools.js';
import type { AssembledTools } from './tools.js';

/** The prompt used when the operator gave none. */
export const DEFAULT_PROMPT = 'assist the user';

/**
 * Told to the model on a resume, after the fingerprint is computed so it cannot perturb the
 * comparison: time has passed and what tools report may have changed.
 */
export const RESUME_REMINDER =
  'This conversation was interrupted and has now been resumed. Time may have passed since the earlier turns: what tools reported then may have changed, so check again before relying on it.';

/**
 * What to run: a new prompt (journaled with `checkpoint`), or a stored run to continue: resumed
 * where it stopped, or, with `followUp`, given a further prompt once its last turn is finished.
 */
export type RunInput =
  | { readonly prompt: string; readonly checkpoint?: { readonly runId?: string } }
  | { readonly resume: string; readonly force?: boolean; readonly followUp?: string };

/** Limits a caller may lower for one run (a peer's or a job's budget); never raised. */
export interface BudgetOverride {
  readonly maxTokens?: number;
  readonly maxIterations?: number;
}

/** How one run is driven. */
export interface StartRunOptions {
  /**
   * Who answers questions: a prompter (a terminal), `'handle'` (questions go out as events with
   * ids and come back through `RunHandle.answer`), or absent: nobody, so every gated call is
   * declined.
   */
  readonly prompter?: Prompter | 'handle';
  readonly hooks?: Hooks;
  /** The directory command tools run in. */
  readonly workDir?: string;
  /** An operator is present at a chat surface (longer cache lifetime). */
  readonly interactive?: boolean;
  readonly budget?: BudgetOverride;
  /** Receives every event from the first; the same as subscribing at once. */
  readonly events?: EventSink;
  /**
   * The process's telemetry: each turn is a root span with chat and tool spans under it. Built by
   * the commands; not part of the package's API.
   * @internal
   */
  readonly telemetry?: HostTelemetry;
  /** Stream the model's answer as `text_fragment` events; journals are the same either way. */
  readonly stream?: boolean;
  /** The model to use instead of `llm.model` (a chat's `/model NAME`). */
  readonly model?: string;
  /**
   * The agents a delegated prompt came through, outermost first, without this one: delegation
   * tools send the chain on, this agent added, and refuse a peer already in it.
   */
  readonly hops?: readonly string[];
}

/** What a follow-up may change for its own turn and the ones after it. */
export interface FollowUpOptions {
  /** The model the turn uses instead of the conversation's. */
  readonly model?: string;
}

/**
 * Whether a turn that ended so can take a follow-up: a completed one, and one stopped at
 * `llm.budget.max_iterations` (at a loop boundary, so the conversation is whole); the follow-up
 * gets a fresh iteration budget.
 */
export function takesFollowUp(status: RunOutcome['status']): boolean {
  return status === 'completed' || status === 'max_iterations';
}

/** How the run began. */
export type RunStart =
  | { readonly kind: 'new'; readonly runId: string | undefined }
  | {
      readonly kind: 'resumed';
      readonly runId: string;
      /** Configuration changes a forced resume let through, each as a line naming the field. */
      readonly changes: readonly FingerprintChange[];
      readonly nextIteration: number;
      /** The stored conversation, as events, rendered before anything live. */
      readonly replay: readonly AgentEvent[];
      /** The operator's prompts of that conversation, each placed before the replayed event it came before. */
      readonly prompts?: readonly ReplayedPrompt[];
      /** The tokens the journaled turns used, tier by tier, so a display can count on from them. */
      readonly usage?: Usage;
    };

/** One run in progress, and the session it belongs to. */
export interface RunHandle {
  readonly start: RunStart;
  /** The run id of a journaled run; `undefined` for a run kept in memory only. */
  readonly runId: string | undefined;
  /** The system prompt segments the model is sent on this turn, exactly. */
  readonly system: readonly SystemBlock[];
  /** The names of the tools the model is offered on this turn, in order; absent where the source does not say. */
  readonly tools?: readonly string[];
  /** Replays every event so far into `sink`, then delivers each later one. Returns the unsubscribe. */
  subscribe(sink: EventSink): () => void;
  /** Every event from the first, ending when the turn ends. */
  events(): AsyncIterable<AgentEvent>;
  /** Ends the run at its next boundary, resumable (a journaled run), without cutting a step short. */
  suspend(): void;
  /** Cancels the run now: a running tool is killed, a model call abandoned. */
  cancel(): void;
  /** Answers a question put out as an event with an id; false when no such question waits. */
  answer(questionId: string, answer: QuestionAnswer): boolean;
  /** Resolves when the turn ends. Never rejects. */
  readonly outcome: Promise<RunOutcome>;
  /**
   * Continues the conversation with another prompt, in the same session and journal, with a fresh
   * iteration budget; after a completed turn or one stopped at `llm.budget.max_iterations`.
   */
  followUp(prompt: string, options?: FollowUpOptions): Promise<RunHandle>;
  /** Releases what the handle opened (the journal). Call once the session is over. */
  close(): Promise<void>;
}

function lowered(settings: RunSettings, budget: BudgetOverride | undefined): RunSettings {
  if (budget === undefined) return settings;
  const min = (a: number, b: number | undefined): number => (b === undefined || b <= 0 ? a : Math.min(a, b));
  return {
    ...settings,
    maxTokens: min(settings.maxTokens, budget.maxTokens),
    maxIterations: min(settings.maxIterations, budget.maxIterations),
  };
}

/**
 * Refuses or redacts a prompt under `harness.pii.mode` before anything stores it, so a journal
 * never keeps what the operator asked to keep from the provider. Returns the prompt to store.
 */
async function guardedPrompt(settings: RunSettings, prompt: string, hooks: Hooks | undefined, events: EventSink): Promise<string> {
  if (settings.piiMode === 'off') return prompt;
  const guard = withPiiGuard(hooks ?? {}, settings.piiMode, (text) => events.emit({ type: 'warning', text }));
  const decided = await guard.userPromptSubmit?.(prompt);
  if (decided?.action === 'deny') throw new HostError('resume', `the prompt was refused and nothing was stored: ${decided.reason}`);
  return decided?.action === 'continue' && decided.prompt !== undefined ? decided.prompt : prompt;
}

interface Turn {
  readonly tools: AssembledTools;
  readonly source: PublishedToolSetSource;
  readonly tooling: RunToolSource;
  readonly checkpoint: Checkpoint | undefined;
  readonly settings: RunSettings;
}

/**
 * Starts a run. Everything that can refuse (a resume the gate stops, a tool set that will not
 * assemble, a prompt the PII guard rejects before it is journaled) throws here, before the model
 * is contacted; once the handle is returned, the run's end is its outcome.
 */
export async function startRun(given: RunRuntime, input: RunInput, opts: StartRunOptions = {}): Promise<RunHandle> {
  // a caller the type checker did not see may still pass a runtime of another mode
  const runtime = requireRunRuntime(given, 'startRun');
  const config = runtime.config;
  const base = lowered(settingsFromConfig(config), opts.budget);
  const settings = opts.model === undefined ? base : { ...base, model: opts.model };
  const traced = opts.telemetry?.run({ agentName: config.identity });
  const resuming = 'resume' in input;
  if (!resuming && 'checkpoint' in input && input.checkpoint !== undefined && runtime.sessions === undefined) {
    throw new HostError('usage', 'a journaled run needs the session store: open the runtime with sessions');
  }
  const sessions = runtime.sessions;
  if (resuming && sessions === undefined) throw new HostError('usage', 'resuming needs the session store: open the runtime with sessions');

  const hub = new EventHub();
  if (opts.events !== undefined) hub.subscribe(opts.events);
  // a resume seeds the memory read record the run journaled, so its authority to overwrite survives
  const memorySnapshot =
    resuming && sessions !== undefined && config.harness.memory.enabled ? (await loadRun(sessions, input.resume)).memoryScope : undefined;
  const tools = await assembleTools(runtime, 'run', memorySnapshot === undefined ? {} : { memorySnapshot });
  for (const warning of tools.warnings) hub.emit({ type: 'warning', text: warning.message });
  if (opts.prompter === undefined) {
    for (const text of unattendedWarnings(tools.toolSet.tools, settings.confirmTags)) hub.emit({ type: 'warning', text });
  }
  const tooling = runToolSource(runtime, tools);
  try {
    return await begin(runtime, input, opts, { hub, tools, tooling, settings, sessions, traced });
  } catch (err) {
    tooling.stop();
    throw err;
  }
}

interface Begun {
  readonly hub: EventHub;
  readonly tools: AssembledTools;
  readonly tooling: RunToolSource;
  readonly settings: RunSettings;
  readonly sessions: RunRuntime['sessions'];
  readonly traced: RunTelemetry | undefined;
}

async function begin(runtime: RunRuntime, input: RunInput, opts: StartRunOptions, begun: Begun): Promise<RunHandle> {
  const { hub, tools, tooling, settings, sessions, traced } = begun;
  const config = runtime.config;
  const resuming = 'resume' in input;
  const source = tooling.source;
  let checkpoint: Checkpoint | undefined;
  let start: RunStart;
  let prompt = '';
  if (resuming) {
    const store = sessions as NonNullable<typeof sessions>;
    const fingerprint = runFingerprint(config, source, tools.notes);
    const further = input.followUp === undefined ? undefined : input.followUp.trim();
    if (further === '') throw new HostError('usage', 'a follow-up needs a prompt');
    const followUp = further === undefined ? undefined : await guardedPrompt(settings, further, opts.hooks, hub);
    const claimed = await resumeCheckpoint(store, input.resume, {
      fingerprint,
      force: input.force === true,
      ...(followUp === undefined ? {} : { followUp }),
    });
    const resumed = await guardedResume(claimed, settings.piiMode, hub);
    checkpoint = resumed;
    // definitions earlier searches loaded stay loaded: derived from the search results journaled
    const pending = (resumed.options as Partial<Pick<RunOptions, 'pendingBatch'>>).pendingBatch;
    tooling.restoreLoaded(loadedFromHistory(resumed.run.messages, pending));
    const { events: replay, prompts } = replayConversation(resumed.run.messages, resumed.run.gates);
    start = {
      kind: 'resumed',
      runId: resumed.runId,
      changes: resumed.changes,
      nextIteration: resumed.run.nextIteration,
      replay,
      prompts,
      usage: resumed.run.counters.usage,
    };
  } else {
    prompt = input.prompt.trim() === '' ? DEFAULT_PROMPT : input.prompt;
    if (input.checkpoint !== undefined && sessions !== undefined) {
      const stored = await guardedPrompt(settings, prompt, opts.hooks, hub);
      const fingerprint = runFingerprint(config, source, tools.notes);
      checkpoint = await startCheckpoint(sessions, {
        ...(input.checkpoint.runId === undefined ? {} : { runId: input.checkpoint.runId }),
        fingerprint,
        prompt: stored,
      });
      prompt = stored;
    }
    start = { kind: 'new', runId: checkpoint?.runId };
  }

  const system = systemBlocks(settings.systemPrompt, settings.humanInTheLoop, [
    ...tools.notes,
    ...tools.volatileNotes,
    ...(resuming ? [RESUME_REMINDER] : []),
  ]);
  const handlePrompter = opts.prompter === 'handle' ? new HandlePrompter(hub) : undefined;
  const prompter = opts.prompter === 'handle' ? handlePrompter : opts.prompter;
  return launch(
    runtime,
    { tools, source, tooling, checkpoint, settings },
    {
      hub,
      start,
      system,
      prompter,
      handlePrompter,
      opts,
      traced,
      runOptions: {
        prompt: resuming ? '' : prompt,
        systemNotes: [...tools.notes, ...tools.volatileNotes, ...(resuming ? [RESUME_REMINDER] : [])],
        ...(checkpoint === undefined ? {} : checkpoint.options),
        ...(checkpoint?.options.journal === undefined || opts.telemetry === undefined || sessions === undefined
          ? {}
          : { journal: opts.telemetry.timedJournal(checkpoint.options.journal, sessions.backend) }),
      },
    },
  );
}

interface LaunchParts {
  readonly hub: EventHub;
  readonly start: RunStart;
  readonly system: readonly SystemBlock[];
  readonly prompter: Prompter | undefined;
  readonly handlePrompter: HandlePrompter | undefined;
  readonly opts: StartRunOptions;
  readonly traced?: RunTelemetry | undefined;
  readonly runOptions: Pick<RunOptions, 'prompt' | 'systemNotes'> &
    Partial<Pick<RunOptions, 'journal' | 'history' | 'startIteration' | 'budgetFrom' | 'grants' | 'pendingBatch' | 'delegatedBefore'>>;
}

function launch(runtime: RunRuntime, turn: Turn, parts: LaunchParts): RunHandle {
  const { hub, opts } = parts;
  const controller = new AbortController();
  let suspendAsked = false;
  const provider = runtime.provider;
  const outcome = (async (): Promise<RunOutcome> => {
    parts.traced?.systemInstructions(() => parts.system.map((b) => b.text).join('\n\n'));
    const result = await runAgent({
      ...parts.runOptions,
      settings: turn.settings,
      provider,
      tools: turn.source,
      notCallable: deferredNotLoaded,
      ...(parts.prompter === undefined ? {} : { prompter: parts.prompter, questionsAnnounced: parts.handlePrompter !== undefined }),
      ...(opts.hooks === undefined ? {} : { hooks: opts.hooks }),
      events: hub,
      signal: controller.signal,
      suspendRequested: () => suspendAsked,
      workDir: opts.workDir ?? process.cwd(),
      scrub: runtime.scrub,
      chain: [...(opts.hops ?? []), runtime.config.identity],
      interactive: opts.interactive ?? false,
      ...(parts.traced === undefined ? {} : { modelCall: parts.traced.modelCall(provider), toolWrappers: [parts.traced.toolWrapper()] }),
      ...(opts.stream === true ? { stream: true } : {}),
    });
    const scope = turn.tools.memoryScope;
    if (turn.checkpoint !== undefined && scope !== undefined && result.status !== 'crashed') {
      try {
        await appendNext(turn.checkpoint.journal, memoryScopeBody(scope.snapshot()));
      } catch (err) {
        hub.emit({
          type: 'warning',
          text: `the memory read record was not journaled: ${err instanceof Error ? err.message : String(err)}; a resume will need to read memories again before overwriting them`,
        });
      }
    }
    parts.handlePrompter?.close();
    hub.close();
    parts.traced?.end(result);
    return result;
  })();

  let closed = false;
  const handle: RunHandle = {
    start: parts.start,
    runId: turn.checkpoint?.runId,
    system: parts.system,
    tools: turn.tools.toolSet.tools.map((t) => t.name),
    subscribe: (sink) => hub.subscribe(sink),
    events: () => hub.events(),
    suspend: () => {
      suspendAsked = true;
    },
    cancel: () => {
      parts.handlePrompter?.close();
      controller.abort(new Error('cancelled'));
    },
    answer: (id, value) => parts.handlePrompter?.answer(id, value) ?? false,
    outcome,
    async followUp(prompt: string, options: FollowUpOptions = {}): Promise<RunHandle> {
      const previous = await outcome;
      if (!takesFollowUp(previous.status)) {
        throw new HostError(
          'resume',
          `a follow-up continues a completed turn; this one ended ${previous.status}${turn.checkpoint === undefined ? '' : `: resume it with fisk run --resume ${turn.checkpoint.runId}`}`,
        );
      }
      const next: Turn = options.model === undefined ? turn : { ...turn, settings: { ...turn.settings, model: options.model } };
      const text = prompt.trim();
      if (text === '') throw new HostError('usage', 'a follow-up needs a prompt');
      const nextHub = new EventHub();
      if (opts.events !== undefined) nextHub.subscribe(opts.events);
      let stored = text;
      if (turn.checkpoint !== undefined) {
        stored = await guardedPrompt(turn.settings, text, opts.hooks, nextHub);
        await appendNext(turn.checkpoint.journal, userBody({ role: 'user', content: [{ type: 'text', text: stored }] }));
      }
      const nextPrompter = opts.prompter === 'handle' ? new HandlePrompter(nextHub) : opts.prompter;
      return launch(runtime, next, {
        hub: nextHub,
        start: { kind: 'new', runId: turn.checkpoint?.runId },
        system: parts.system,
        prompter: nextPrompter,
        handlePrompter: nextPrompter instanceof HandlePrompter ? nextPrompter : undefined,
        opts,
        traced: opts.telemetry?.run({ agentName: runtime.config.identity }),
        runOptions: {
          // a journaled follow-up is already stored as a user record: it continues the history
          prompt: turn.checkpoint === undefined ? stored : '',
          systemNotes: parts.runOptions.systemNotes ?? [],
          history:
            turn.checkpoint === undefined
              ? previous.messages
              : [...previous.messages, { role: 'user', content: [{ type: 'text', text: stored }] }],
          startIteration: previous.nextIteration,
          // each prompt gets the whole iteration budget
          budgetFrom: previous.nextIteration,
          ...(turn.checkpoint === undefined ? {} : { journal: turn.checkpoint.options.journal }),
        },
      });
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      turn.tooling.stop();
      controller.abort(new Error('closed'));
      await outcome;
      await turn.checkpoint?.journal.close();
    },
  };
  return handle;
}
