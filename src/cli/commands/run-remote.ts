/**
 * `fisk run --nats-context CTX --identity AGENT [query...]`: a client of an agent served
 * elsewhere. The prompt is delegated over a2a and the remote run is rendered on the same line
 * surface as a local one; its questions are asked on the terminal and Ctrl-C sends the cancel.
 * Flags that belong to a local worker are refused when given on the command line.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { A2aError, createTransport } from '../../a2a/index.js';
import { parseConfigForMode } from '../../config/index.js';
import { connectNats } from '../../conns/index.js';
import { DEFAULT_PROMPT } from '../../host/index.js';
import { runRemote } from '../../serve/index.js';
import type { Prompter } from '../../toolkit/tool.js';
import { CliError, ExitWith, UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { println } from '../io.js';
import { LinePrompter } from '../prompter-line.js';
import { formatAnswer, loadMarkdown, shouldRenderMarkdown } from '../render/answer.js';
import { LineSurface } from '../render/line-surface.js';
import { envFlag, exitCodeFor, processInterrupt } from '../process.js';

/** The flags client mode reads. */
export interface RemoteFlags {
  readonly config: string;
  readonly natsContext?: string;
  readonly identity?: string;
  readonly toolOutput?: boolean;
  readonly color: boolean;
  readonly verbose?: boolean;
}

/** What a test can replace; the same members as `fisk run`'s own dependencies. */
export interface RemoteDeps {
  readonly stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly prompter?: Prompter;
  readonly onInterrupt?: (handler: () => void) => () => void;
}

/** The sender identity when no configuration is read. */
const ANONYMOUS = 'fisk-ai';

/** Flags that configure a local worker (attribute name, flag): meaningless for a remote run. */
const WORKER_FLAGS: ReadonlyArray<readonly [string, string]> = [
  ['checkpoint', '--checkpoint'],
  ['resume', '--resume'],
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
    throw new UsageError(`${given.join(', ')} ${given.length === 1 ? 'configures' : 'configure'} a local run, and with --nats-context the run is hosted by the remote agent; remove ${given.length === 1 ? 'it' : 'them'}`);
  }
}

/** Who this client is and whom it asks: the configuration is read only when it is there or named. */
function parties(flags: RemoteFlags, command: Command, io: Io): { readonly self: string; readonly agent: string } {
  const path = resolve(io.cwd, flags.config);
  const named = command.getOptionValueSource('config') === 'cli';
  const config = named || existsSync(path) ? parseConfigForMode({ path }, 'discover') : undefined;
  const agent = flags.identity ?? config?.identity;
  if (agent === undefined) throw new UsageError(`--nats-context needs --identity <agent>: no ${flags.config} here names the agent to ask`);
  return { self: config?.identity ?? ANONYMOUS, agent };
}

/** Runs `fisk run` as a client of a remote agent. */
export async function runRemoteCommand(query: readonly string[], flags: RemoteFlags, command: Command, io: Io, deps: RemoteDeps): Promise<void> {
  checkRemoteFlags(flags, command);
  const context = flags.natsContext ?? '';
  const { self, agent } = parties(flags, command, io);
  const verbose = flags.verbose === true || envFlag(io.env, 'VERBOSE');
  const toolOutput = flags.toolOutput === true || envFlag(io.env, 'TOOL_OUTPUT');
  const surface = new LineSurface(io.err, { toolOutput, verbose });
  const cleanup: (() => void)[] = [];
  const conn = await connectNats(context, { env: io.env, name: `fisk-ai ${self}` });
  try {
    let prompter = deps.prompter;
    if (prompter === undefined) {
      const stdin = deps.stdin ?? process.stdin;
      if (stdin.isTTY === true) {
        const line = new LinePrompter({ input: stdin, output: io.err });
        cleanup.push(() => line.close());
        prompter = line;
      }
    }
    const cancel = new AbortController();
    let presses = 0;
    cleanup.push(
      (deps.onInterrupt ?? processInterrupt)(() => {
        presses++;
        if (presses > 1) process.exit(EXIT.aborted);
        println(io.err, `\ncancel sent to ${agent}: its run stops at the next step; press Ctrl-C again to quit now`);
        cancel.abort(new Error('interrupted'));
      }),
    );
    const prompt = query.join(' ').trim() || DEFAULT_PROMPT;
    let outcome;
    try {
      outcome = await runRemote({
        transport: createTransport('nats', { connection: conn.connection }),
        self,
        agent,
        prompt,
        sink: surface,
        ...(prompter === undefined ? {} : { prompter }),
        signal: cancel.signal,
      });
    } catch (err) {
      if (err instanceof A2aError) {
        throw new CliError(`cannot run on agent ${JSON.stringify(agent)} over NATS context ${JSON.stringify(context)}: ${err.message}`, err.code === 'identity' ? EXIT.usage : EXIT.error, { cause: err });
      }
      throw err;
    }
    if (outcome.status === 'completed') io.out.write(formatAnswer(outcome.text, await loadMarkdown(shouldRenderMarkdown(io.out.isTTY === true, !flags.color, io.env))));
    else if (outcome.status === 'suspended') println(io.err, `${agent} suspended the run at its next step`);
    if (outcome.error !== undefined) println(io.err, `stopped: ${outcome.error.message}${outcome.error.code === undefined ? '' : ` (${outcome.error.code})`}`);
    else if (outcome.status !== 'completed' && outcome.status !== 'suspended') println(io.err, `stopped: ${outcome.stopReason}`);
    const usage = outcome.usage;
    println(io.err, `Run summary: agent=${agent} stop_reason=${outcome.stopReason}${usage === undefined ? '' : ` tokens=${usage.input_tokens}/${usage.output_tokens}`}`);
    const code = exitCodeFor(outcome.status);
    if (code !== EXIT.ok) throw new ExitWith(code);
  } finally {
    for (const c of cleanup.reverse()) c();
    await conn.connection.close();
  }
}
