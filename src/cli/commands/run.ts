/**
 * `fisk run [query...]` on the line surface: the answer on stdout, everything else on stderr,
 * questions asked on the terminal (No first) and denied without one. The loop itself is
 * `runAgent`; this file parses flags, builds the run's resources and presents the outcome.
 */
import { isAbsolute, resolve } from 'node:path';
import type { Command } from 'commander';
import { resumeCheckpoint, runFingerprint, startCheckpoint } from '../../agent/checkpoint.js';
import type { Checkpoint } from '../../agent/checkpoint.js';
import { humanTools } from '../../agent/human-tools.js';
import type { AgentEvent, EventSink } from '../../agent/events.js';
import type { RunOutcome } from '../../agent/outcome.js';
import { replayEvents } from '../../agent/replay.js';
import { runAgent } from '../../agent/run-agent.js';
import type { RunStatus } from '../../agent/status.js';
import type { NatsConnection } from '@nats-io/transport-node';
import { ConfigError, parseConfigForMode } from '../../config/index.js';
import { connectNats } from '../../conns/index.js';
import { prepareRunKnowledge } from '../../knowledge/index.js';
import { memoryBackend, prepareRunMemory } from '../../memory/index.js';
import type { Config } from '../../config/index.js';
import type { FetchLike, FetchMiddleware } from '../../llm/http.js';
import { openHttpDebugLog } from '../../llm/http-debug.js';
import type { HttpDebugLog } from '../../llm/http-debug.js';
import { newProvider } from '../../llm/providers.js';
import type { Provider } from '../../llm/provider.js';
import { openTraceFile } from '../../llm/trace.js';
import type { TraceFile } from '../../llm/trace.js';
import { appendNext, loadRun, memoryScopeBody, openConfiguredSessionStore } from '../../runstate/index.js';
import type { SessionStore } from '../../runstate/index.js';
import { applicationLoadOptions } from '../../toolkit/load.js';
import { resolveRunTools } from '../../toolkit/run-tools.js';
import type { ToolSource } from '../../toolkit/source.js';
import { PublishedToolSetSource } from '../../toolkit/tool-set.js';
import type { Prompter } from '../../toolkit/tool.js';
import { CliError, ExitWith } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';
import { println } from '../io.js';
import { LinePrompter } from '../prompter-line.js';
import { formatAnswer, shouldRenderMarkdown } from '../render/answer.js';
import { LineSurface } from '../render/line-surface.js';
import { summaryLine } from '../render/summary.js';
import { packageVersion } from '../version.js';

/** The prompt used when the query is empty. */
export const DEFAULT_PROMPT = 'assist the user';
/** Where `--http-debug` writes, relative to the working directory. */
export const HTTP_DEBUG_FILE = 'http-debug.log';

interface RunFlags {
  readonly config: string;
  readonly apiKey?: string;
  readonly baseUrl?: string;
  readonly toolOutput?: boolean;
  readonly color: boolean;
  readonly verbose?: boolean;
  readonly httpDebug?: boolean;
  readonly tui: boolean;
  readonly trace?: string;
  readonly checkpoint?: boolean;
  readonly name?: string;
  readonly resume?: string;
  readonly force?: boolean;
  readonly stateDir?: string;
}

/** The flag combinations `fisk run` refuses, checked before the configuration is read. */
function checkJournalFlags(query: readonly string[], flags: RunFlags): void {
  const usage = (message: string): CliError => new CliError(message, EXIT.usage);
  if (flags.resume !== undefined && flags.checkpoint === true) throw usage('--resume cannot be combined with --checkpoint');
  if (flags.resume !== undefined && query.join(' ').trim() !== '') throw usage('--resume does not take a query; the prompt is restored from the session');
  if (flags.name !== undefined && flags.checkpoint !== true) throw usage('--name requires --checkpoint');
  if (flags.force === true && flags.resume === undefined) throw usage('--force only applies when resuming');
}

/**
 * What a test (or an embedding host) can replace. Everything defaults to the real process: stdin,
 * SIGINT/SIGTERM, the global fetch.
 */
export interface RunCommandDeps {
  /** Where answers to questions are read from; `process.stdin` by default. */
  readonly stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** A prompter to use instead of the line prompter. */
  readonly prompter?: Prompter;
  /** Installs an interrupt handler and returns its removal; SIGINT and SIGTERM by default. */
  readonly onInterrupt?: (handler: () => void) => () => void;
  /** The fetch the provider's HTTP hooks wrap. */
  readonly fetch?: FetchLike;
  /** A provider to use instead of the one `llm.provider` names. */
  readonly provider?: Provider;
}

function envFlag(env: Io['env'], name: string): boolean {
  const v = env[name];
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

function processInterrupt(handler: () => void): () => void {
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

/**
 * `llm.base_url`, unless the provider's own variable is set: the precedence is flag, then the
 * environment, then the file, as `fisk info` reports it. The provider reads the variable itself.
 */
function configuredBaseUrl(config: Config, env: Io['env']): string | undefined {
  const variable = config.llm.provider.startsWith('openai') ? 'OPENAI_BASE_URL' : 'ANTHROPIC_BASE_URL';
  const fromEnv = env[variable];
  return fromEnv !== undefined && fromEnv !== '' ? undefined : config.llm.baseUrl;
}

/** The exit status for each way a run ends. */
export function exitCodeFor(status: RunStatus): ExitCode {
  switch (status) {
    case 'completed':
    case 'suspended':
      return EXIT.ok;
    case 'budget':
      return EXIT.budget;
    case 'max_iterations':
      return EXIT.maxIterations;
    case 'aborted':
      return EXIT.aborted;
    case 'error':
      return EXIT.error;
    case 'crashed':
      return EXIT.crashed;
    default: {
      const never: never = status;
      return never;
    }
  }
}

/** Tracks the loop iteration for the trace file, passing every event on. */
class IterationTap implements EventSink {
  iteration: number | undefined;
  constructor(private readonly next: EventSink) {}
  emit(event: AgentEvent): void {
    if (event.type === 'status') this.iteration = event.iteration;
    this.next.emit(event);
  }
}

/** The run's tool set and the system prompt notes its built-ins bring. */
interface BuiltTools {
  readonly source: PublishedToolSetSource;
  /** Notes that depend only on the configuration: part of the run fingerprint. */
  readonly notes: readonly string[];
  /** Notes that change between runs (the memory index): sent last, never fingerprinted. */
  readonly volatileNotes: readonly string[];
  /** The run's memory read record, journaled with a checkpointed run so a resume keeps its authority. */
  readonly memoryScope: { snapshot(): Readonly<Record<string, number>> } | undefined;
}

/**
 * Told to the model on a resume, after the fingerprint is computed so it cannot perturb the
 * comparison: time has passed and what tools report may have changed.
 */
const RESUME_REMINDER =
  'This conversation was interrupted and has now been resumed. Time may have passed since the earlier turns: what tools reported then may have changed, so check again before relying on it.';

/** `FISK_AI_STORE_DIR`, the base a relative `harness.knowledge.directory` resolves against; it must be absolute. */
function knowledgeStoreBase(env: Io['env']): string | undefined {
  const base = env['FISK_AI_STORE_DIR'];
  if (base === undefined || base === '') return undefined;
  if (!isAbsolute(base)) throw new CliError(`FISK_AI_STORE_DIR is ${base}, a relative path; set it to an absolute directory or unset it`, EXIT.usage);
  return base;
}

/**
 * The NATS connection a memory backend that declares the need gets (JetStream KV), from
 * `nats_context`; closed when the command ends. The store only borrows it.
 */
async function memoryConnection(config: Config, env: Io['env'], cleanup: (() => void)[]): Promise<NatsConnection | undefined> {
  const memory = config.harness.memory;
  if (!memory.enabled || !memoryBackend(memory.backend).needs.includes('nats')) return undefined;
  if (config.natsContext === undefined) {
    throw ConfigError.of('missing', 'nats_context', `is required by harness.memory.backend: ${memory.backend}`);
  }
  const conn = await connectNats(config.natsContext, { env, name: `fisk-ai ${config.identity}` });
  cleanup.push(() => {
    conn.connection.close().catch(() => undefined);
  });
  return conn.connection;
}

async function buildTools(
  config: Config,
  env: Io['env'],
  provider: Provider,
  io: Io,
  signal: AbortSignal,
  cleanup: (() => void)[],
  memorySnapshot: Readonly<Record<string, number>> | undefined,
): Promise<BuiltTools> {
  const sources: ToolSource[] = [];
  const notes: string[] = [];
  if (config.harness.humanInTheLoop) sources.push({ source: 'human', tools: humanTools() });
  // opened before the model is contacted, so a missing bucket or bad option fails the run here
  const memoryNats = await memoryConnection(config, env, cleanup);
  const memory = await prepareRunMemory(
    config.harness.memory,
    { identity: config.identity, baseDir: io.cwd, natsContext: config.natsContext, ...(memoryNats === undefined ? {} : { nats: memoryNats }) },
    { signal, ...(memorySnapshot === undefined ? {} : { snapshot: memorySnapshot }) },
  );
  if (memory !== undefined) {
    sources.push({ source: 'memory', tools: memory.tools });
    notes.push(memory.note);
  }
  const knowledge = prepareRunKnowledge(config.harness.knowledge, { cwd: io.cwd, storeBase: knowledgeStoreBase(env), env });
  if (knowledge !== undefined) {
    const reader = knowledge.reader;
    cleanup.push(() => reader.close());
    sources.push({ source: 'knowledge', tools: knowledge.tools });
    notes.push(...knowledge.notes);
  }
  if (config.remoteTools.length > 0) {
    println(io.err, 'warning: remote_tools is set but fisk run in this build does not import remote agents\' tools yet; the run has none of them');
  }
  if (config.mcpClients.length > 0) {
    println(io.err, 'warning: mcp_clients is set but fisk run in this build does not connect to MCP servers yet; the run has none of their tools');
  }
  const application = applicationLoadOptions(config, env);
  const tools = await resolveRunTools({
    ...(application === undefined ? {} : { application }),
    sources,
    confirmTags: config.harness.confirmTags,
    deferral: { noToolSearch: config.llm.noToolSearch, providerToolSearch: provider.capabilities().toolSearch },
  });
  for (const w of tools.warnings) println(io.err, `warning: ${w.message}`);
  return {
    source: new PublishedToolSetSource(tools.toolSet),
    notes,
    volatileNotes: memory?.index === undefined ? [] : [memory.index],
    memoryScope: memory?.scope,
  };
}

function trailer(outcome: RunOutcome): string | undefined {
  switch (outcome.status) {
    case 'completed':
    case 'suspended':
      return undefined;
    case 'budget':
    case 'max_iterations':
    case 'aborted':
    case 'error':
    case 'crashed':
      return outcome.message === '' ? undefined : outcome.message;
    default: {
      const never: never = outcome.status;
      return never;
    }
  }
}

async function runCommand(query: readonly string[], flags: RunFlags, io: Io, deps: RunCommandDeps): Promise<void> {
  checkJournalFlags(query, flags);
  const config = parseConfigForMode({ path: resolve(io.cwd, flags.config) }, 'run');
  const env = io.env;
  const verbose = flags.verbose === true || envFlag(env, 'VERBOSE');
  const toolOutput = flags.toolOutput === true || envFlag(env, 'TOOL_OUTPUT');
  const httpDebug = flags.httpDebug === true || envFlag(env, 'HTTP_DEBUG');
  const noColor = !flags.color;

  const cleanup: (() => void)[] = [];
  let sessions: { store: SessionStore; close: () => Promise<void> } | undefined;
  let checkpoint: Checkpoint | undefined;
  try {
    const middleware: FetchMiddleware[] = [];
    let trace: TraceFile | undefined;
    const surface = new LineSurface(io.err, { toolOutput, verbose });
    const tap = new IterationTap(surface);
    if (flags.trace !== undefined) {
      try {
        trace = openTraceFile(resolve(io.cwd, flags.trace));
      } catch (err) {
        const why = (err as NodeJS.ErrnoException).code === 'EEXIST' ? 'it already exists (a trace is never overwritten)' : (err as Error).message;
        throw new CliError(`--trace ${flags.trace}: cannot create the trace file: ${why}; name a new file`, EXIT.usage);
      }
      const t = trace;
      cleanup.push(() => t.close());
      t.write({ type: 'session', time: new Date().toISOString(), model: config.llm.model, config: config.source, version: packageVersion() });
      middleware.push(t.middleware({ iteration: () => tap.iteration }));
    }
    if (httpDebug) {
      let log: HttpDebugLog;
      try {
        log = openHttpDebugLog(resolve(io.cwd, HTTP_DEBUG_FILE));
      } catch (err) {
        throw new CliError(`--http-debug: cannot create ${HTTP_DEBUG_FILE}: ${(err as Error).message}`);
      }
      cleanup.push(() => log.close());
      middleware.push(log.middleware);
      println(io.err, `Writing model API request and response bodies to ${HTTP_DEBUG_FILE} (mode 0600; it holds the whole conversation, do not share it)`);
    }

    const baseUrl = flags.baseUrl ?? configuredBaseUrl(config, env);
    const provider =
      deps.provider ??
      newProvider(config.llm.provider, {
        ...(flags.apiKey === undefined ? {} : { apiKey: flags.apiKey }),
        ...(baseUrl === undefined ? {} : { baseUrl }),
        callTimeoutMs: config.llm.budget.callTimeout.ms,
        fetchMiddleware: middleware,
        ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }),
        env,
      });
    const controller = new AbortController();
    const journaled = flags.checkpoint === true || flags.resume !== undefined;
    if (journaled) {
      sessions = await openConfiguredSessionStore(config.harness.sessions, config.natsContext, {
        env,
        cwd: io.cwd,
        ...(flags.stateDir === undefined ? {} : { stateDir: resolve(io.cwd, flags.stateDir) }),
        connectionName: `fisk-ai run ${config.identity}`,
      });
    }
    // a resume seeds the memory read record the run journaled, so its authority to overwrite survives
    const memorySnapshot = sessions !== undefined && flags.resume !== undefined && config.harness.memory.enabled
      ? (await loadRun(sessions.store, flags.resume)).memoryScope
      : undefined;
    const tools = await buildTools(config, env, provider, io, controller.signal, cleanup, memorySnapshot);
    const prompt = query.join(' ').trim();
    if (sessions !== undefined) {
      const fingerprint = runFingerprint(config, tools.source, tools.notes);
      if (flags.resume === undefined) {
        checkpoint = await startCheckpoint(sessions.store, { ...(flags.name === undefined ? {} : { runId: flags.name }), fingerprint, prompt: prompt === '' ? DEFAULT_PROMPT : prompt });
        println(io.err, `checkpointing run ${checkpoint.runId}`);
      } else {
        const resumed = await resumeCheckpoint(sessions.store, flags.resume, { fingerprint, force: flags.force === true });
        checkpoint = resumed;
        if (resumed.changes.length > 0) println(io.err, `warning: resuming under a changed configuration (--force):\n${resumed.changes.map((c) => `  ${c.line}`).join('\n')}`);
        // the conversation so far, through the same renderer as a live run
        for (const event of replayEvents(resumed.run.messages)) surface.emit(event);
        println(io.err, `resuming run ${resumed.runId} at iteration ${resumed.run.nextIteration}`);
      }
    }

    let prompter: Prompter | undefined = deps.prompter;
    if (prompter === undefined) {
      const stdin = deps.stdin ?? process.stdin;
      if (stdin.isTTY === true) {
        const line = new LinePrompter({ input: stdin, output: io.err });
        cleanup.push(() => line.close());
        prompter = line;
      }
    }

    // journaled: the first interrupt suspends at the next boundary, the second cancels;
    // otherwise the first cancels. One more leaves at once.
    let interrupts = 0;
    let suspend = false;
    const uninstall = (deps.onInterrupt ?? processInterrupt)(() => {
      interrupts++;
      if (checkpoint !== undefined && interrupts === 1) {
        suspend = true;
        println(io.err, '\nsuspend requested; finishing the current step, press Ctrl-C again to abort');
        return;
      }
      if (interrupts === (checkpoint === undefined ? 1 : 2)) {
        println(io.err, '\ncancelling the run; press Ctrl-C again to quit now');
        controller.abort(new Error('interrupted'));
        return;
      }
      process.exit(EXIT.aborted);
    });
    cleanup.push(uninstall);

    const outcome = await runAgent({
      config,
      provider,
      tools: tools.source,
      systemNotes: [...tools.notes, ...tools.volatileNotes, ...(flags.resume === undefined ? [] : [RESUME_REMINDER])],
      // a resume continues the stored conversation, which already holds the prompt
      prompt: flags.resume !== undefined ? '' : prompt === '' ? DEFAULT_PROMPT : prompt,
      ...(checkpoint === undefined ? {} : { ...checkpoint.options, suspendRequested: () => suspend }),
      ...(prompter === undefined ? {} : { prompter }),
      events: tap,
      signal: controller.signal,
      workDir: io.cwd,
    });

    if (checkpoint !== undefined && tools.memoryScope !== undefined && outcome.status !== 'crashed') {
      try {
        await appendNext(checkpoint.journal, memoryScopeBody(tools.memoryScope.snapshot()));
      } catch (err) {
        println(io.err, `warning: the memory read record was not journaled: ${(err as Error).message}; a resume will need to read memories again before overwriting them`);
      }
    }
    if (outcome.status === 'completed') {
      const markdown = shouldRenderMarkdown(io.out.isTTY === true, noColor, env);
      io.out.write(formatAnswer(outcome.answer, markdown));
    }
    if (outcome.status === 'suspended' && checkpoint !== undefined) println(io.err, `\nsuspended; resume with: fisk run --resume ${checkpoint.runId}`);
    const tail = trailer(outcome);
    if (tail !== undefined) println(io.err, `${outcome.status === 'crashed' ? '' : 'stopped: '}${tail}`);
    println(io.err, summaryLine(outcome, { verbose }));
    trace?.write({
      type: 'summary',
      time: new Date().toISOString(),
      suspended: outcome.status === 'suspended',
      llm_calls: outcome.counters.llmCalls,
      tool_calls: outcome.counters.toolCalls,
      remote_tool_calls: outcome.counters.remoteToolCalls,
      tool_calls_by_kind: outcome.counters.toolCallsByKind,
      input_tokens: outcome.counters.usage.input,
      output_tokens: outcome.counters.usage.output,
      cache_read_tokens: outcome.counters.usage.cacheRead,
      cache_create_tokens: outcome.counters.usage.cacheWrite,
      duration_ms: outcome.durationMs,
    });
    const code = exitCodeFor(outcome.status);
    if (code !== EXIT.ok) throw new ExitWith(code);
  } finally {
    for (const c of cleanup.reverse()) c();
    await checkpoint?.journal.close();
    await sessions?.close();
  }
}

/** Registers `fisk run`. `deps` replaces process resources for tests and embedding hosts. */
export function registerRun(program: Command, io: Io, deps: RunCommandDeps = {}): void {
  program
    .command('run')
    .description('run the agent on a prompt and print its answer')
    .argument('[query...]', 'the prompt, joined with spaces')
    .option('--config <file>', 'the agent configuration', 'agent.yaml')
    .option('--api-key <key>', "the model API key (default: the provider's own variable, e.g. ANTHROPIC_API_KEY)")
    .option('--base-url <url>', "the model API base URL (default: the provider's variable, e.g. ANTHROPIC_BASE_URL, then llm.base_url)")
    .option('--tool-output', 'print tool results on stderr (env TOOL_OUTPUT)')
    .option('--no-color', 'print the answer as raw markdown (env NO_COLOR)')
    .option('--verbose', 'print more on stderr: prose between tool calls, loop phases (env VERBOSE)')
    .option('--http-debug', `write every model API request and response body to ./${HTTP_DEBUG_FILE} (env HTTP_DEBUG)`)
    .option('--no-tui', 'use the line surface (the only one in this build; env NO_TUI)')
    .option('--trace <file>', 'write a JSON-lines trace of every model request and response to a new file (mode 0600)')
    .option('--checkpoint', 'journal the run so it can be suspended and resumed (harness.sessions)')
    .option('--name <id>', 'the run id for --checkpoint (default: a generated time-sortable id)')
    .option('--resume <id>', 'resume a checkpointed run; no query (the prompt is restored from the run)')
    .option('--force', 'resume despite configuration changes (not a provider change); only with --resume')
    .option('--state-dir <dir>', 'the file session backend directory (default: $XDG_STATE_HOME/fisk-ai/runs)')
    .action(async (query: string[], flags: RunFlags) => {
      await runCommand(query, flags, io, deps);
    });
}
