/**
 * `fisk run --nats-context CTX --identity AGENT [query...]`: a client of an agent served
 * elsewhere. The prompt is delegated over a2a and the remote run is rendered on the same surface
 * as a local one (the full-screen view at a terminal, else the line surface); its questions are
 * asked there and Ctrl-C sends the cancel.
 * Flags that belong to a local worker are refused when given on the command line.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { A2aError, checkRequestId, createTransport } from '../../a2a/index.js';
import type { Transport } from '../../a2a/index.js';
import { parseConfigForMode } from '../../config/index.js';
import type { Config } from '../../config/index.js';
import { connectNats } from '../../conns/index.js';
import { DEFAULT_PROMPT } from '../../host/index.js';
import type { RunHandle } from '../../host/index.js';
import { runRemote, startRemoteRun } from '../../serve/index.js';
import type { RemoteRunHandle, RemoteRunOutcome } from '../../serve/index.js';
import { shouldUseFullScreen } from '../../tui/select.js';
import type { RunCommandDeps } from './run-options.js';
import { CliError, ExitWith, UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { println } from '../io.js';
import { LinePrompter } from '../prompter-line.js';
import { formatAnswer, loadMarkdown, shouldRenderMarkdown } from '../../render/answer.js';
import { LineSurface } from '../../render/line-surface.js';
import { envFlag, exitCodeFor, processInterrupt } from '../process.js';
import { shellJoin } from '../../util/shell-quote.js';

/** The flags client mode reads. */
export interface RemoteFlags {
  readonly config: string;
  readonly natsContext?: string;
  readonly identity?: string;
  readonly toolOutput?: boolean;
  readonly color: boolean;
  readonly verbose?: boolean;
  /** False with `--no-tui`: the line surface even at a terminal. */
  readonly tui?: boolean;
  /** With `--nats-context`: the remote conversation to continue (what a suspended run printed). */
  readonly resume?: string;
}

/** What a test can replace: those of `fisk run`'s own dependencies that a remote run uses. */
export type RemoteDeps = Pick<RunCommandDeps, 'stdin' | 'prompter' | 'onInterrupt'>;

/** The sender identity when no configuration is read. */
const ANONYMOUS = 'fisk-ai';

/** Flags that configure a local worker (attribute name, flag): meaningless for a remote run. */
const WORKER_FLAGS: ReadonlyArray<readonly [string, string]> = [
  ['checkpoint', '--checkpoint'],
  ['name', '--name'],
  ['force', '--force'],
  ['stateDir', '--state-dir'],
  ['apiKey', '--api-key'],
  ['baseUrl', '--base-url'],
  ['trace', '--trace'],
  ['httpDebug', '--http-debug'],
];

/** Whether `fisk run` was asked to be a client (`--nats-context` or `--identity` given). */
export { isRemoteRun } from './flags.js';

/**
 * Refuses what client mode cannot honour. Only flags typed on the command line count, so an
 * exported variable (HTTP_DEBUG) never fails a remote run.
 */
export function checkRemoteFlags(flags: RemoteFlags, command: Command): void {
  if (flags.identity !== undefined && flags.natsContext === undefined) {
    throw new UsageError('--identity names an agent on a NATS cluster and needs --nats-context to reach it; add --nats-context <context>');
  }
  const given = WORKER_FLAGS.filter(([key]) => command.getOptionValueSource(key) === 'cli').map(([, flag]) => flag);
  if (given.length > 0) {
    throw new UsageError(
      `${given.join(', ')} ${given.length === 1 ? 'configures' : 'configure'} a local run, and with --nats-context the run is hosted by the remote agent; remove ${given.length === 1 ? 'it' : 'them'}`,
    );
  }
}

/** Who this client is and whom it asks: the configuration is read only when it is there or named. */
function parties(
  flags: RemoteFlags,
  command: Command,
  io: Io,
): { readonly self: string; readonly agent: string; readonly config: Config | undefined; readonly configPath: string | undefined } {
  const path = resolve(io.cwd, flags.config);
  const named = command.getOptionValueSource('config') === 'cli';
  const config = named || existsSync(path) ? parseConfigForMode({ path }, 'discover') : undefined;
  const agent = flags.identity ?? config?.identity;
  if (agent === undefined) throw new UsageError(`--nats-context needs --identity <agent>: no ${flags.config} here names the agent to ask`);
  return { self: config?.identity ?? ANONYMOUS, agent, config, configPath: config === undefined ? undefined : path };
}

/**
 * The command that carries a remote conversation on: the same agent, context and sender (the
 * agent keys its session by who asked), and the conversation to continue.
 */
export function remoteResumeCommand(p: {
  readonly context: string;
  readonly agent: string;
  readonly conversation: string;
  readonly configPath: string | undefined;
}): string {
  return shellJoin([
    'fisk',
    'run',
    '--nats-context',
    p.context,
    '--identity',
    p.agent,
    '--resume',
    p.conversation,
    ...(p.configPath === undefined ? [] : ['--config', p.configPath]),
  ]);
}

/** What both surfaces share: whom to ask, over what, and how to show it. */
interface RemoteParts {
  readonly transport: Transport;
  readonly self: string;
  readonly agent: string;
  readonly context: string;
  readonly prompt: string;
  /** The conversation to continue, from `--resume`. */
  readonly conversation: string | undefined;
  readonly verbose: boolean;
  readonly toolOutput: boolean;
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** The configuration file given, for the resume command a message spells out. */
  readonly configPath: string | undefined;
}

/** How a remote run ended, seen from here: with the conversation it ran in and whether the cancel was sent. */
interface RemoteEnding {
  readonly outcome: RemoteRunOutcome;
  readonly conversation: string | undefined;
  readonly cancelled: boolean;
}

/**
 * The agent went silent after it took the prompt (`conversation` is the one it acknowledged): the
 * run goes on, or finished, there, and what it sent meanwhile may be lost (core NATS keeps nothing
 * for a caller that was away). Says how to carry the conversation on; nothing when it never took it.
 */
function tookThePrompt(p: Pick<RemoteParts, 'agent' | 'context' | 'configPath'>, conversation: string | undefined): string {
  if (conversation === undefined) return '';
  return `; ${p.agent} had taken the prompt and its run goes on, or ended, there: carry the conversation on with: ${remoteResumeCommand({ ...p, conversation })} "<your next prompt>"`;
}

/** The agent could not be reached or its reply set broke: say which agent, over which context. */
function unreachable(err: unknown, p: RemoteParts, conversation?: string): unknown {
  if (!(err instanceof A2aError)) return err;
  const after = err.code === 'unavailable' ? tookThePrompt(p, conversation) : '';
  return new CliError(
    `cannot run on agent ${JSON.stringify(p.agent)} over NATS context ${JSON.stringify(p.context)}: ${err.message}${after}`,
    err.code === 'identity' ? EXIT.usage : EXIT.error,
    { cause: err },
  );
}

/** The remote run on the line surface: its questions asked on the terminal, Ctrl-C sends the cancel. */
async function lineRemote(parts: RemoteParts, io: Io, deps: RemoteDeps, cleanup: (() => void)[]): Promise<RemoteEnding> {
  const surface = new LineSurface(io.err, { toolOutput: parts.toolOutput, verbose: parts.verbose });
  let prompter = deps.prompter;
  if (prompter === undefined && parts.stdin.isTTY === true) {
    const line = new LinePrompter({ input: parts.stdin, output: io.err });
    cleanup.push(() => line.close());
    prompter = line;
  }
  const cancel = new AbortController();
  let presses = 0;
  cleanup.push(
    (deps.onInterrupt ?? processInterrupt)(() => {
      presses++;
      if (presses > 1) process.exit(EXIT.aborted);
      println(io.err, `\ncancel sent to ${parts.agent}: its run stops at the next step; press Ctrl-C again to quit now`);
      cancel.abort(new Error('interrupted'));
    }),
  );
  let conversation = parts.conversation;
  let acked = false;
  try {
    const outcome = await runRemote({
      transport: parts.transport,
      self: parts.self,
      agent: parts.agent,
      prompt: parts.prompt,
      ...(parts.conversation === undefined ? {} : { conversation: parts.conversation }),
      onAck: (accepted, c) => {
        if (!accepted) return;
        conversation = c;
        acked = true;
      },
      sink: surface,
      ...(prompter === undefined ? {} : { prompter }),
      signal: cancel.signal,
    });
    return { outcome, conversation, cancelled: cancel.signal.aborted };
  } catch (err) {
    throw unreachable(err, parts, acked ? conversation : undefined);
  }
}

function isRemoteHandle(h: RunHandle): h is RemoteRunHandle {
  return 'remote' in h;
}

/**
 * The remote run in the full-screen view, as a local run is shown: the first turn is delegated
 * before the screen is taken (an agent that cannot be reached says so on the normal screen), its
 * questions are the view's modal, Ctrl-C sends the cancel, and the input row takes a follow-up
 * in the same remote conversation.
 */
async function fullScreenRemote(parts: RemoteParts, io: Io, config: Config | undefined): Promise<RemoteEnding> {
  const { runFullScreen, StderrBuffer } = await import('../../tui/index.js');
  const start = (text: string, conversation?: string): Promise<RemoteRunHandle> =>
    startRemoteRun({
      transport: parts.transport,
      self: parts.self,
      agent: parts.agent,
      prompt: text,
      stream: true,
      ...(conversation === undefined ? {} : { conversation }),
    });
  let first: RemoteRunHandle;
  try {
    first = await start(parts.prompt, parts.conversation);
  } catch (err) {
    throw unreachable(err, parts);
  }
  const result = await runFullScreen({
    handle: first,
    prompt: parts.prompt,
    identity: parts.agent,
    // a peer's card says nothing of its model or telemetry, so the card says so rather than guess
    card: {
      identity: `${parts.agent} (remote)`,
      model: 'chosen by the agent',
      provider: '',
      tools: undefined,
      session: first.conversation,
      resumed: false,
      telemetry: { state: 'unknown' },
    },
    startSession: (text) => start(text),
    verbose: parts.verbose,
    toolOutput: parts.toolOutput,
    noBell: config?.harness.noBell === true,
    env: io.env,
    stdout: io.out as NodeJS.WriteStream,
    stdin: parts.stdin as NodeJS.ReadStream,
    stderr: new StderrBuffer(),
    onInterrupt: (handler) => {
      process.on('SIGTERM', handler);
      return () => process.off('SIGTERM', handler);
    },
  });
  const last = result.handle ?? first;
  const handle = isRemoteHandle(last) ? last : first;
  for (const warning of result.warnings) println(io.err, `warning: ${warning}`);
  if (result.abandoned) {
    // the last interrupt with the cancel still travelling: leave at once, as on the line surface
    handle.cancel();
    println(io.err, 'quit with the run still stopping');
    process.exit(EXIT.aborted);
  }
  const ending = await handle.remote;
  const cancelled = handle.cancelSent;
  for (const other of result.handles) if (other !== handle) await other.close();
  await handle.close();
  return { outcome: ending, conversation: handle.conversation === '' ? undefined : handle.conversation, cancelled };
}

/** What is printed once the remote run has ended, whichever surface showed it. */
async function present(
  ending: RemoteEnding,
  p: Pick<RemoteParts, 'agent' | 'context'> & { readonly configPath: string | undefined },
  flags: RemoteFlags,
  io: Io,
): Promise<void> {
  const { outcome } = ending;
  const agent = p.agent;
  if (outcome.status === 'completed')
    io.out.write(formatAnswer(outcome.text, await loadMarkdown(shouldRenderMarkdown(io.out.isTTY === true, !flags.color, io.env))));
  else if (outcome.status === 'suspended') {
    println(io.err, `${agent} suspended the run ${ending.cancelled ? 'at its next step' : 'to wait'}`);
    if (ending.conversation !== undefined)
      println(io.err, `\nsuspended; resume with: ${remoteResumeCommand({ ...p, conversation: ending.conversation })}`);
  }
  if (outcome.error !== undefined)
    println(
      io.err,
      `stopped: ${outcome.error.message}${outcome.error.code === undefined ? '' : ` (${outcome.error.code})`}${outcome.error.code === 'unavailable' ? tookThePrompt(p, ending.conversation) : ''}`,
    );
  else if (outcome.status !== 'completed' && outcome.status !== 'suspended') println(io.err, `stopped: ${outcome.stopReason}`);
  const usage = outcome.usage;
  println(
    io.err,
    `Run summary: agent=${agent} stop_reason=${outcome.stopReason}${usage === undefined ? '' : ` tokens=${usage.input_tokens}/${usage.output_tokens}`}`,
  );
}

/**
 * Runs `fisk run` as a client of a remote agent: in the full-screen view under the same rule as a
 * local run (both ends terminals, nothing turned it off), else on the line surface.
 */
export async function runRemoteCommand(
  query: readonly string[],
  flags: RemoteFlags,
  command: Command,
  io: Io,
  deps: RemoteDeps,
): Promise<void> {
  checkRemoteFlags(flags, command);
  const context = flags.natsContext ?? '';
  const { self, agent, config, configPath } = parties(flags, command, io);
  if (flags.resume !== undefined) {
    try {
      checkRequestId(flags.resume);
    } catch {
      throw new UsageError(
        `--resume ${JSON.stringify(flags.resume.slice(0, 80))} is not a conversation id: with --nats-context it takes the id a suspended remote run printed (1 to 64 letters, digits, '-' or '_')`,
      );
    }
  }
  const verbose = flags.verbose === true || envFlag(io.env, 'VERBOSE');
  const toolOutput = flags.toolOutput === true || envFlag(io.env, 'TOOL_OUTPUT');
  const stdin = deps.stdin ?? process.stdin;
  const full =
    deps.prompter === undefined &&
    shouldUseFullScreen(stdin.isTTY === true, io.out.isTTY === true, {
      flag: flags.tui === false,
      env: envFlag(io.env, 'NO_TUI'),
      config: config?.harness.noTui === true,
    });
  const cleanup: (() => void)[] = [];
  // a conversation can outlive a NATS outage: the client keeps reconnecting rather than closing for good
  const conn = await connectNats(context, { env: io.env, name: `fisk-ai ${self}`, keepReconnecting: true });
  try {
    const typed = query.join(' ').trim();
    // resuming with nothing typed carries the conversation on where it stopped
    const prompt = flags.resume !== undefined ? typed : typed || DEFAULT_PROMPT;
    const parts: RemoteParts = {
      transport: createTransport('nats', { connection: conn.connection }),
      self,
      agent,
      context,
      prompt,
      conversation: flags.resume,
      verbose,
      toolOutput,
      stdin,
      configPath,
    };
    const ending = full ? await fullScreenRemote(parts, io, config) : await lineRemote(parts, io, deps, cleanup);
    await present(ending, { agent, context, configPath }, flags, io);
    // a run the caller cancelled exits as a cancelled local run does, however the agent parked it
    const code = ending.cancelled ? EXIT.aborted : exitCodeFor(ending.outcome.status);
    if (code !== EXIT.ok) throw new ExitWith(code);
  } finally {
    for (const release of cleanup.reverse()) release();
    await conn.connection.close();
  }
}
