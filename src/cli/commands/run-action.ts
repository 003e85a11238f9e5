/**
 * What `fisk run` does once its flags are parsed (loaded only when the command runs): `fisk run [query...]` on the line surface: the answer on stdout, everything else on stderr,
 * questions asked on the terminal (No first) and declined without one. The host builds the runtime
 * and starts the run; this file turns the flags into what to run, consumes the run's handle
 * directly (the same handle a remote run gives), wires the terminal and presents the outcome.
 */
import { resolve } from 'node:path';
import { answerOf, messageOf } from '../../agent/outcome.js';
import type { RunOutcome } from '../../agent/outcome.js';
import { configWarnings } from '../../config/index.js';
import { assembleTools, openRuntime, startRun, twoStageInterrupt } from '../../host/index.js';
import type { FollowUpOptions, HostTelemetry, RunHandle, RunInput, RunRuntime, StartRunOptions } from '../../host/index.js';
import type { Prompter } from '../../toolkit/tool.js';
import { ExitWith } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';
import { println } from '../io.js';
import { LinePrompter } from '../prompter-line.js';
import { formatAnswer, loadMarkdown, shouldRenderMarkdown } from '../../render/answer.js';
import { AnswerStream } from '../render/answer-stream.js';
import { lineWidthFor } from '../../render/cap.js';
import { shouldColorLines } from '../../render/line-colour.js';
import { StatusLine, shouldShowProgress } from '../render/status-line.js';
import { LineSurface } from '../../render/line-surface.js';
import { summaryLine } from '../../render/summary.js';
import { shouldUseFullScreen } from '../../tui/select.js';
import { openRunDebugFiles } from './run-debug.js';
import { runtimeDepsFromFlags } from './runtime-flags.js';
import { finishCommandTelemetry, openCommandTelemetry } from './telemetry-flag.js';
import { readPrompt, resumeCommand } from './run-surface.js';
import type { PreparedRun } from './run-prepare.js';
import type { RunCommandDeps, RunFlags } from './run-options.js';
import { envFlag, exitCodeFor, processInterrupt } from '../process.js';
import { walkReplay } from '../../agent/replay.js';
import { stripControl } from '../../agent/sanitize.js';
export { exitCodeFor } from '../process.js';

export type { RunCommandDeps, RunFlags } from './run-options.js';

/** What `fisk run` prints once the run has ended. */
async function present(
  outcome: RunOutcome,
  handle: RunHandle,
  flags: RunFlags,
  io: Io,
  verbose: boolean,
  streamed: AnswerStream | undefined,
): Promise<void> {
  if (outcome.status === 'completed') {
    const shown = streamed?.finish(answerOf(outcome)) === true;
    if (!shown)
      io.out.write(
        formatAnswer(
          answerOf(outcome),
          await loadMarkdown(shouldRenderMarkdown(io.out.isTTY === true, !flags.color, io.env), lineWidthFor(io.out)),
        ),
      );
  } else {
    streamed?.finish('');
  }
  const stateDir = flags.stateDir === undefined ? undefined : resolve(io.cwd, flags.stateDir);
  const resume = handle.runId === undefined ? undefined : resumeCommand(handle.runId, resolve(io.cwd, flags.config), stateDir);
  if (outcome.status === 'suspended' && resume !== undefined) println(io.err, `\nsuspended; resume with: ${resume}`);
  const tail = messageOf(outcome);
  if (outcome.status !== 'completed' && outcome.status !== 'suspended' && tail !== '')
    println(io.err, `${outcome.status === 'crashed' ? '' : 'stopped: '}${tail}`);
  // a journaled run cancelled before it ended stays resumable: the call it stopped at is asked again;
  // so does one stopped by a failure or a limit, once its cause is fixed (the model service back,
  // the limit raised)
  if (outcome.status === 'aborted' && resume !== undefined) println(io.err, `resume with: ${resume}`);
  else if (outcome.status !== 'completed' && outcome.status !== 'suspended' && resume !== undefined)
    println(io.err, `the run is journaled: once the cause is fixed, resume it with: ${resume}`);
  println(io.err, summaryLine(outcome, { verbose, ...(handle.runId === undefined ? {} : { sessionId: handle.runId }) }));
}

/** What the flags ask to run first: the resumed run, or the prompt, journaled with `--checkpoint` (under `--name`). */
function firstInput(flags: RunFlags, prompt: string): RunInput {
  if (flags.resume !== undefined) return { resume: flags.resume, force: flags.force === true };
  return { prompt, ...(flags.checkpoint === true ? { checkpoint: flags.name === undefined ? {} : { runId: flags.name } } : {}) };
}

/** How every run of this command is driven: command tools run in its directory, under its telemetry. */
function runOptions(io: Io, telemetry: HostTelemetry, extra: StartRunOptions): StartRunOptions {
  return { workDir: io.cwd, telemetry, ...extra };
}

interface FullScreenParts {
  readonly runtime: RunRuntime;
  readonly telemetry: HostTelemetry;
  readonly verbose: boolean;
  readonly toolOutput: boolean;
  readonly debug: ReturnType<typeof openRunDebugFiles>;
  readonly stdin: NodeJS.ReadStream;
}

/**
 * `fisk run` in the full-screen view: the first turn starts before the screen is taken, so a run
 * that cannot start says so on the normal screen; on exit everything worth keeping is reprinted
 * there (warnings, conversations set aside, the answer, the resume hint and the summary).
 */
async function fullScreenRun(query: readonly string[], flags: RunFlags, io: Io, parts: FullScreenParts): Promise<ExitCode> {
  // the terminal libraries load only for a run that takes the full screen
  const { chatOutcome, localCard, runFullScreen, StderrBuffer } = await import('../../tui/index.js');
  // questions go out as events and come back through the handle; the model's text streams
  const base = runOptions(io, parts.telemetry, { prompter: 'handle', stream: true, interactive: true });
  const prompt = query.join(' ').trim();
  const journaled = flags.checkpoint === true;
  // with no query, the view opens on the input row and waits for the person's first prompt
  const waiting = flags.resume === undefined && prompt === '';
  const first = waiting ? undefined : await startRun(parts.runtime, firstInput(flags, prompt), base);
  // the first conversation takes --name; later ones (after /clear) get their own ids
  let named = first !== undefined;
  const startSession = (text: string, options: FollowUpOptions): Promise<RunHandle> => {
    const name = !named && flags.name !== undefined ? { runId: flags.name } : {};
    named = true;
    const input: RunInput = { prompt: text, ...(journaled || flags.resume !== undefined ? { checkpoint: name } : {}) };
    return startRun(parts.runtime, input, { ...base, ...(options.model === undefined ? {} : { model: options.model }) });
  };
  const stateDir = flags.stateDir === undefined ? undefined : resolve(io.cwd, flags.stateDir);
  const result = await runFullScreen({
    ...(first === undefined ? {} : { handle: first }),
    ...(flags.resume === undefined && first !== undefined ? { prompt } : {}),
    identity: parts.runtime.config.identity,
    // before the first prompt there is no turn to ask: the card counts the tools a run assembles
    card: localCard(
      parts.runtime,
      first,
      parts.telemetry,
      first === undefined ? (await assembleTools(parts.runtime, 'run')).toolSet.tools.map((t) => t.name) : undefined,
    ),
    startSession,
    resumeHint: (runId) => resumeCommand(runId, resolve(io.cwd, flags.config), stateDir),
    modelSwitch: true,
    verbose: parts.verbose,
    toolOutput: parts.toolOutput,
    noBell: parts.runtime.config.harness.noBell,
    env: io.env,
    color: flags.color,
    stdout: io.out as NodeJS.WriteStream,
    stdin: parts.stdin,
    stderr: new StderrBuffer(),
    onInterrupt: (handler) => {
      process.on('SIGTERM', handler);
      return () => process.off('SIGTERM', handler);
    },
  });
  for (const warning of result.warnings) println(io.err, `warning: ${warning}`);
  const handle = result.handle ?? first;
  if (handle === undefined) {
    // left before sending a prompt: nothing ran
    for (const handle of result.handles) await handle.close();
    return EXIT.ok;
  }
  if (result.abandoned) {
    // the third interrupt: a stop is hanging, so the process leaves at once, as on the line surface
    handle.cancel();
    println(io.err, 'quit with the run still stopping');
    process.exit(EXIT.aborted);
  }
  let outcome = result.outcome;
  for (const id of result.leftBehind) println(io.err, `conversation set aside by /clear: ${id} (fisk session show ${id})`);
  outcome ??= await handle.outcome;
  // the summary counts every turn of the chat, follow-ups and new conversations included
  const chat = chatOutcome(outcome, result.outcomes);
  await present(chat, handle, flags, io, parts.verbose, undefined);
  parts.debug.summary(chat);
  for (const other of result.handles) if (other !== handle) await other.close();
  await handle.close();
  return exitCodeFor(outcome.status);
}

/**
 * Runs a prepared local run (`prepareRun`). The caller owns `prepared`: it removes its interrupt
 * handler and discards its introspection (a no-op once the runtime took it over) when this returns.
 */
export async function runCommand(
  query: readonly string[],
  flags: RunFlags,
  io: Io,
  deps: RunCommandDeps,
  prepared: PreparedRun,
): Promise<void> {
  const { config, introspection, loading, stopLoading } = prepared;
  const env = io.env;
  const verbose = flags.verbose === true || envFlag(env, 'VERBOSE');
  const toolOutput = flags.toolOutput === true || envFlag(env, 'TOOL_OUTPUT');
  const err = io.err as Io['err'] & { columns?: number };
  const surface = new LineSurface(
    io.err,
    { toolOutput, verbose, width: lineWidthFor(err) },
    { color: shouldColorLines(io.err.isTTY === true, !flags.color, env) },
  );
  for (const warning of configWarnings(config)) println(io.err, `warning: ${warning.key}: ${warning.message}`);
  const cleanup: (() => void)[] = [];
  let runtime: RunRuntime | undefined;
  let handle: RunHandle | undefined;
  let iteration: number | undefined;
  // a Ctrl-C before the run has started ends it here (the introspection is already stopped)
  const interruptedLoading = (err: unknown): never => {
    if (!loading.aborted) throw err;
    println(io.err, '\ninterrupted while loading the tools');
    throw new ExitWith(EXIT.aborted);
  };
  const telemetry = await openCommandTelemetry(config, io, flags);
  try {
    const debug = openRunDebugFiles(config, flags, io, () => iteration);
    cleanup.push(() => debug.close());
    const journaled = flags.checkpoint === true || flags.resume !== undefined;
    if (loading.aborted) interruptedLoading(loading.reason);
    runtime = await openRuntime(config, 'run', {
      ...runtimeDepsFromFlags(
        flags,
        { cwd: io.cwd, env },
        { telemetry, debugMiddleware: debug.middleware, ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }), journaled },
      ),
      signal: loading,
      ...(introspection === undefined ? {} : { introspection }),
      ...(deps.provider === undefined ? {} : { provider: deps.provider }),
    })
      .catch(interruptedLoading)
      .finally(stopLoading);
    for (const note of runtime.notes) println(io.err, `${note.level}: ${note.message}`);

    let prompter: Prompter | undefined = deps.prompter;
    const stdin = deps.stdin ?? process.stdin;
    const full =
      deps.prompter === undefined &&
      shouldUseFullScreen(stdin.isTTY === true, io.out.isTTY === true, {
        flag: !flags.tui,
        env: envFlag(env, 'NO_TUI'),
        config: config.harness.noTui,
      });
    if (full) {
      const code = await fullScreenRun(query, flags, io, {
        runtime,
        telemetry,
        verbose,
        toolOutput,
        debug,
        stdin: stdin as NodeJS.ReadStream,
      });
      if (code !== EXIT.ok) throw new ExitWith(code);
      return;
    }
    // a piped prompt uses up standard input: nothing is left there to answer questions with
    const piped = flags.resume === undefined && query.join(' ').trim() === '' && stdin.isTTY !== true ? await readPrompt(stdin) : undefined;
    // its questions wait for the lines the run starts with: what a resumed run replays, the run's id
    let line: LinePrompter | undefined;
    if (prompter === undefined) {
      if (stdin.isTTY === true) {
        line = new LinePrompter({ input: stdin, output: io.err }, { held: true });
        const opened = line;
        cleanup.push(() => opened.close());
        prompter = line;
      }
    }

    const interrupt = twoStageInterrupt(() => handle);
    // Ctrl-C while the terminal is asked for the prompt leaves without running anything
    const reading = new AbortController();
    cleanup.push(
      (deps.onInterrupt ?? processInterrupt)(() => {
        if (handle === undefined && !reading.signal.aborted) {
          reading.abort();
          return;
        }
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

    let prompt = piped ?? query.join(' ').trim();
    if (prompt === '' && flags.resume === undefined && line !== undefined) {
      // a person at a terminal gave no query: ask for the prompt rather than send a made-up one
      line.release();
      let typed: string | null = '';
      while (typed === '') typed = (await line.input('What should the agent do? (Ctrl-D to leave)', reading.signal))?.trim() ?? null;
      if (typed === null) {
        println(io.err, 'no prompt given; nothing was run');
        if (reading.signal.aborted) throw new ExitWith(EXIT.aborted);
        return;
      }
      prompt = typed;
    }
    const out = io.out as Io['out'] & { columns?: number };
    const markdown = await loadMarkdown(shouldRenderMarkdown(io.out.isTTY === true, !flags.color, env), lineWidthFor(out));
    const streamed = io.out.isTTY === true ? new AnswerStream(io.out, markdown) : undefined;
    const status = shouldShowProgress(io.err.isTTY === true, config.harness.noProgress) ? new StatusLine(io.err) : undefined;
    if (status !== undefined) cleanup.push(() => status.clear());
    // questions go to the terminal's prompter, or, with none, every gated call is declined
    handle = await startRun(
      runtime,
      firstInput(flags, prompt),
      runOptions(io, telemetry, { ...(prompter === undefined ? {} : { prompter }), ...(streamed === undefined ? {} : { stream: true }) }),
    );
    const start = handle.start;
    if (start.kind === 'resumed') {
      if (start.changes.length > 0)
        println(
          io.err,
          `warning: resuming under a changed configuration (--force):\n${start.changes.map((c) => `  ${c.line}`).join('\n')}`,
        );
      // the conversation so far, through the same renderer as a live run
      walkReplay(start.replay, start.prompts ?? [], {
        prompt: (text) => {
          for (const line of stripControl(text).split('\n')) println(io.err, `> ${line}`);
        },
        event: (event) => surface.emit(event),
      });
      println(io.err, `resuming run ${start.runId} at iteration ${start.nextIteration + 1}`);
    } else if (start.runId !== undefined) {
      println(io.err, `checkpointing run ${start.runId}`);
    }
    handle.subscribe({
      emit: (event) => {
        if (event.type === 'status') iteration = event.iteration;
        status?.observe(event);
        streamed?.observe(event);
        surface.emit(event);
      },
    });
    line?.release();
    const outcome = await handle.outcome;
    status?.clear();
    await present(outcome, handle, flags, io, verbose, streamed);
    debug.summary(outcome);
    const code = exitCodeFor(outcome.status);
    if (code !== EXIT.ok) throw new ExitWith(code);
  } finally {
    for (const undo of cleanup.reverse()) undo();
    await handle?.close();
    await runtime?.close();
    await finishCommandTelemetry(telemetry, io);
  }
}
