/**
 * The serving side of a hosted run: the host's own run (`fisk run` at a terminal) behind the
 * in-process a2a transport, driven by a client in the same process through `run.start`. The run
 * borrows the runtime the host built; it is journaled only when the start asks for a checkpoint,
 * and its handle is kept per conversation so a follow-up continues it, journal or not.
 *
 * What travels is the host's own values (events with their presentation and refusals, crash
 * stacks, the start details, the outcome), since nothing here leaves the process: serve this only
 * on a transport that stays in it.
 */
import {
  checkIdentity,
  createTransport,
  IDENTITY_PATTERN,
  InprocBus,
  SERVICE_DESCRIPTION,
  SERVICE_VERSION,
  startPromptServer,
} from '../a2a/index.js';
import type { AnswerValue, AskResult, HostedRun, HostedRunHandler, RunEnding, RunFailure, Transport } from '../a2a/index.js';
import { ConfigError } from '../config/index.js';
import type { RunOutcome } from '../agent/outcome.js';
import { isFiskError } from '../errors/fisk-error.js';
import { HostError, startRun } from '../host/index.js';
import type { HostTelemetry, RunHandle, RunInput, RunRuntime } from '../host/index.js';
import { approvalFromValue } from '../toolkit/tool.js';
import type { ApprovalAnswer, ApprovalRequest, Prompter } from '../toolkit/tool.js';
import { raceAbort } from '../util/abort-race.js';
import { endingFor } from './prompt-channel.js';

export interface RunHostOptions {
  /** The runtime the host already built; every run borrows it. */
  readonly runtime: RunRuntime;
  /** The agent's identity, for the terminal messages. */
  readonly identity: string;
  /** The directory command tools run in. */
  readonly workDir?: string;
  readonly telemetry?: HostTelemetry;
}

/** The hosted-run handler to give the prompt server, and the release of what it keeps. */
export interface RunHost {
  readonly handler: HostedRunHandler;
  /** Closes every handle kept for follow-ups (their journals). */
  close(): Promise<void>;
}

/**
 * Puts each prompter call to the caller's own prompter, as it is (an approval keeps its tool and
 * trigger). The request it relays to changes with each follow-up of the conversation.
 */
class RelayPrompter implements Prompter {
  /** Open once the run's events are relayed: a question never overtakes an event emitted before it. */
  #ready: Promise<void> = Promise.resolve();
  #open: () => void = () => undefined;

  constructor(public run: HostedRun) {
    this.hold();
  }

  /** Holds questions until `open()`: a run may ask at once (a resumed batch) before its events are relayed. */
  hold(): void {
    this.#ready = new Promise<void>((resolve) => (this.#open = resolve));
  }

  open(): void {
    this.#open();
  }

  canPrompt(): boolean {
    return true;
  }

  async #ask(call: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<AnswerValue> {
    if (signal.aborted) return null;
    await raceAbort(this.#ready, signal, () => undefined);
    if (signal.aborted) return null;
    const r = await raceAbort(this.run.ask(call), signal, (): AskResult => ({ answered: false }));
    return r.answered ? r.value : null;
  }

  async approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    return approvalFromValue(
      await this.#ask(
        { kind: 'approval', request: { tool: request.tool, commandLine: request.commandLine, trigger: request.trigger } },
        signal,
      ),
    );
  }

  async confirm(question: string, signal: AbortSignal): Promise<boolean> {
    return (await this.#ask({ kind: 'confirm', question }, signal)) === true;
  }

  async select(question: string, options: readonly string[], signal: AbortSignal): Promise<string | null> {
    const a = await this.#ask({ kind: 'select', question, options }, signal);
    return typeof a === 'string' && options.includes(a) ? a : null;
  }

  async input(question: string, signal: AbortSignal): Promise<string | null> {
    const a = await this.#ask({ kind: 'input', question }, signal);
    return typeof a === 'string' ? a : null;
  }
}

interface Kept {
  handle: RunHandle;
  readonly relay: RelayPrompter | undefined;
}

/**
 * Why a run never started, in the form a client raises again as the same error: a configuration
 * error with every issue and the key it names, a host error with its code, anything else with its
 * code, category and message.
 */
export function failureOf(err: unknown): RunFailure {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof ConfigError) {
    const issues = err.issues.map((i) => ({ code: i.code, key: i.key, message: i.message, ...(i.at === undefined ? {} : { at: i.at }) }));
    return { class: 'config', code: err.code, category: err.category, message, issues };
  }
  if (err instanceof HostError) return { class: 'host', code: err.code, category: err.category, message };
  return isFiskError(err)
    ? { class: 'other', code: err.code, category: err.category, message }
    : { class: 'other', code: 'internal', category: 'internal', message };
}

/** What a new start runs. */
function inputOf(run: HostedRun): RunInput {
  const s = run.request.start;
  if (s.resume !== undefined) return { resume: s.resume, force: s.force === true };
  return { prompt: s.prompt ?? '', ...(s.checkpoint === true ? { checkpoint: s.name === undefined ? {} : { runId: s.name } } : {}) };
}

/** Builds the handler that runs `run.start` requests on the borrowed runtime. */
export function hostRuns(opts: RunHostOptions): RunHost {
  const kept = new Map<string, Kept>();

  const begin = async (run: HostedRun): Promise<Kept> => {
    const s = run.request.start;
    if (run.continues !== undefined) {
      const k = kept.get(run.continues);
      if (k === undefined)
        throw new HostError('resume', 'this conversation is not kept here, so there is nothing to follow up; start a new run');
      if (k.relay !== undefined) {
        k.relay.run = run;
        k.relay.hold();
      }
      k.handle = await k.handle.followUp(s.prompt ?? '', s.model === undefined ? {} : { model: s.model });
      return k;
    }
    const relay = s.questions === 'ask' ? new RelayPrompter(run) : undefined;
    const prompter = relay ?? (s.questions === 'events' ? ('handle' as const) : undefined);
    const handle = await startRun(opts.runtime, inputOf(run), {
      ...(prompter === undefined ? {} : { prompter }),
      ...(opts.workDir === undefined ? {} : { workDir: opts.workDir }),
      ...(opts.telemetry === undefined ? {} : { telemetry: opts.telemetry }),
      ...(s.stream === true ? { stream: true } : {}),
      ...(s.interactive === true ? { interactive: true } : {}),
      ...(s.model === undefined ? {} : { model: s.model }),
    });
    const k: Kept = { handle, relay };
    kept.set(run.request.conversation, k);
    return k;
  };

  const handler = async (run: HostedRun): Promise<RunEnding> => {
    let handle: RunHandle;
    let relay: RelayPrompter | undefined;
    try {
      ({ handle, relay } = await begin(run));
    } catch (err) {
      const failure = failureOf(err);
      await run.outcome({ failure });
      return { error: failure.message, stop_reason: 'error', code: 'refused' };
    }
    const send = (p: Promise<void>): void => void p.catch(() => undefined);
    run.onAnswer((question, value) => void handle.answer(question, value));
    send(run.started({ ...handle.start, system: handle.system, ...(handle.tools === undefined ? {} : { tools: handle.tools }) }));
    handle.subscribe({ emit: (event) => send(run.event({ ...event })) });
    // the events so far are queued to go out: questions may follow them now
    relay?.open();
    const park = (): void => handle.suspend();
    const abort = (): void => handle.cancel();
    if (run.park.aborted) park();
    else run.park.addEventListener('abort', park, { once: true });
    if (run.abort.aborted) abort();
    else run.abort.addEventListener('abort', abort, { once: true });
    let outcome: RunOutcome;
    try {
      outcome = await handle.outcome;
    } finally {
      run.park.removeEventListener('abort', park);
      run.abort.removeEventListener('abort', abort);
    }
    // the conversation stays here, with the handle a follow-up continues
    await run.outcome({ outcome: { ...outcome, messages: [] } });
    return endingFor({ kind: 'ran', runId: handle.runId, outcome }, handle.runId ?? run.request.conversation, opts.identity);
  };

  return {
    handler,
    async close(): Promise<void> {
      const handles = [...kept.values()].map((k) => k.handle);
      kept.clear();
      for (const h of handles) await h.close();
    },
  };
}

/** An agent's own runs served in this process: the transport a client drives them over. */
export interface InprocRunHost {
  readonly transport: Transport;
  /** The identity the runs are served under. */
  readonly agent: string;
  /** Stops serving once the run in flight has ended, then closes the kept handles. */
  close(): Promise<void>;
}

/** The identity runs are served under when the configured one cannot key a subject. */
const LOCAL_IDENTITY = 'local';

/**
 * Hosts the agent behind the in-process a2a transport, prompts only and one worker, for a client
 * in this process to drive with `startHostedRun`: `fisk run` at a terminal takes this path, the
 * same one a remote client and a peer take. A delegated prompt is refused: only the host's own
 * runs are served here.
 */
export async function serveRunsInProcess(opts: RunHostOptions): Promise<InprocRunHost> {
  const agent = IDENTITY_PATTERN.test(opts.identity) ? opts.identity : LOCAL_IDENTITY;
  checkIdentity(agent);
  const transport = createTransport('inproc', { bus: new InprocBus() });
  const host = hostRuns({ ...opts, identity: agent });
  const server = startPromptServer({
    identity: agent,
    transport,
    workers: 1,
    handler: () =>
      Promise.resolve({ error: `agent ${agent} serves only its own run in this process`, stop_reason: 'error', code: 'refused' }),
    hostedRuns: host.handler,
  });
  const service = await transport.serve({
    name: agent,
    version: SERVICE_VERSION,
    description: SERVICE_DESCRIPTION,
    endpoints: [server.endpoint],
    slots: 1,
  });
  return {
    transport,
    agent,
    async close(): Promise<void> {
      await server.drain();
      await service.stop();
      await host.close();
    },
  };
}
