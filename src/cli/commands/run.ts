/**
 * `fisk run [query...]` on the line surface: the answer on stdout, everything else on stderr,
 * questions asked on the terminal (No first) and declined without one. The host builds and runs
 * the agent; this file parses flags, wires the terminal and presents the outcome.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { RunOutcome } from '../../agent/outcome.js';
import type { RunStatus } from '../../agent/status.js';
import type { RunHandle, Runtime } from '../../host/index.js';
import type { FetchLike } from '../../llm/http.js';
import type { Provider } from '../../llm/provider.js';
import type { Prompter } from '../../toolkit/tool.js';
import { CliError, ExitWith } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';
import { println } from '../io.js';
import { HTTP_DEBUG_FILE } from './run-debug.js';

export { HTTP_DEBUG_FILE } from './run-debug.js';

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

/** What `fisk run` prints once the run has ended. */
async function present(outcome: RunOutcome, handle: RunHandle, flags: RunFlags, io: Io, verbose: boolean): Promise<void> {
  const [{ answerOf, messageOf }, { formatAnswer, shouldRenderMarkdown }, { summaryLine }] = await Promise.all([import('../../agent/outcome.js'), import('../render/answer.js'), import('../render/summary.js')]);
  if (outcome.status === 'completed') {
    const markdown = shouldRenderMarkdown(io.out.isTTY === true, !flags.color, io.env);
    io.out.write(formatAnswer(answerOf(outcome), markdown));
  }
  if (outcome.status === 'suspended' && handle.runId !== undefined) println(io.err, `\nsuspended; resume with: fisk run --resume ${handle.runId}`);
  const tail = messageOf(outcome);
  if (outcome.status !== 'completed' && outcome.status !== 'suspended' && tail !== '') println(io.err, `${outcome.status === 'crashed' ? '' : 'stopped: '}${tail}`);
  println(io.err, summaryLine(outcome, { verbose, ...(handle.runId === undefined ? {} : { sessionId: handle.runId }) }));
}

async function runCommand(query: readonly string[], flags: RunFlags, io: Io, deps: RunCommandDeps): Promise<void> {
  checkJournalFlags(query, flags);
  const [{ parseConfigForMode }, { openRuntime, startRun, twoStageInterrupt }, { LinePrompter }, { LineSurface }, { openRunDebugFiles }] = await Promise.all([import('../../config/index.js'), import('../../host/index.js'), import('../prompter-line.js'), import('../render/line-surface.js'), import('./run-debug.js')]);
  const config = parseConfigForMode({ path: resolve(io.cwd, flags.config) }, 'run');
  const env = io.env;
  const verbose = flags.verbose === true || envFlag(env, 'VERBOSE');
  const toolOutput = flags.toolOutput === true || envFlag(env, 'TOOL_OUTPUT');
  const surface = new LineSurface(io.err, { toolOutput, verbose });
  const cleanup: (() => void)[] = [];
  let runtime: Runtime | undefined;
  let handle: RunHandle | undefined;
  let iteration: number | undefined;
  try {
    const debug = openRunDebugFiles(config, flags, io, () => iteration);
    cleanup.push(() => debug.close());
    const journaled = flags.checkpoint === true || flags.resume !== undefined;
    runtime = await openRuntime(config, 'run', {
      env,
      ...(deps.provider === undefined ? {} : { provider: deps.provider }),
      providerOptions: {
        ...(flags.apiKey === undefined ? {} : { apiKey: flags.apiKey }),
        ...(flags.baseUrl === undefined ? {} : { baseUrl: flags.baseUrl }),
        ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }),
        fetchMiddleware: debug.middleware,
      },
      ...(journaled ? { sessions: flags.stateDir === undefined ? {} : { stateDir: resolve(io.cwd, flags.stateDir) } } : {}),
    });
    for (const n of runtime.notes) println(io.err, `${n.level}: ${n.message}`);

    let prompter: Prompter | undefined = deps.prompter;
    if (prompter === undefined) {
      const stdin = deps.stdin ?? process.stdin;
      if (stdin.isTTY === true) {
        const line = new LinePrompter({ input: stdin, output: io.err });
        cleanup.push(() => line.close());
        prompter = line;
      }
    }

    const interrupt = twoStageInterrupt(() => handle);
    cleanup.push(
      (deps.onInterrupt ?? processInterrupt)(() => {
        switch (interrupt()) {
          case 'suspending':
            println(io.err, '\nsuspend requested; finishing the current step, press Ctrl-C again to abort');
            return;
          case 'cancelling':
            println(io.err, '\ncancelling the run; press Ctrl-C again to quit now');
            return;
          case 'exit':
            process.exit(EXIT.aborted);
        }
      }),
    );

    const prompt = query.join(' ').trim();
    handle = await startRun(
      runtime,
      flags.resume !== undefined ? { resume: flags.resume, force: flags.force === true } : { prompt, ...(flags.checkpoint === true ? { checkpoint: flags.name === undefined ? {} : { runId: flags.name } } : {}) },
      { ...(prompter === undefined ? {} : { prompter }), workDir: io.cwd },
    );
    const start = handle.start;
    if (start.kind === 'resumed') {
      if (start.changes.length > 0) println(io.err, `warning: resuming under a changed configuration (--force):\n${start.changes.map((c) => `  ${c.line}`).join('\n')}`);
      // the conversation so far, through the same renderer as a live run
      for (const event of start.replay) surface.emit(event);
      println(io.err, `resuming run ${start.runId} at iteration ${start.nextIteration}`);
    } else if (start.runId !== undefined) {
      println(io.err, `checkpointing run ${start.runId}`);
    }
    handle.subscribe({
      emit: (event) => {
        if (event.type === 'status') iteration = event.iteration;
        surface.emit(event);
      },
    });
    const outcome = await handle.outcome;
    await present(outcome, handle, flags, io, verbose);
    debug.summary(outcome);
    const code = exitCodeFor(outcome.status);
    if (code !== EXIT.ok) throw new ExitWith(code);
  } finally {
    for (const c of cleanup.reverse()) c();
    await handle?.close();
    await runtime?.close();
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
